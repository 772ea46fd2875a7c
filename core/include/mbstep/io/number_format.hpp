// mbstep — numbers for the text outputs without iostream formatting (issue 7: writing the .mov
// and .jnt lines of the 1000-link chain through std::ostream cost more than the step).
#pragma once

#include <charconv>
#include <string>

namespace mbstep {

/// Appends v exactly as std::ostream writes it with setprecision(precision) and the default
/// float field, i.e. printf's "%.*g" in the C locale (std::to_chars, general format).
inline void AppendNumber(std::string& out, double v, int precision) {
    char buf[64];
    const std::to_chars_result r =
        std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
    out.append(buf, r.ptr);
}

/// Appends the decimal digits of an integer (a label, a step number).
inline void AppendNumber(std::string& out, long v) {
    char buf[24];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

/// Appends " x y z" (a space before each number).
template <class V>
void AppendVector3(std::string& out, const V& v, int precision) {
    for (int i = 0; i < 3; ++i) {
        out.push_back(' ');
        AppendNumber(out, v[i], precision);
    }
}

}  // namespace mbstep
