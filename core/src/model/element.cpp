// mbstep — the element contract's defaults (element.hpp).
#include "mbstep/model/element.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mbstep {

void Element::OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                            std::vector<Vec3>& moment) const {
    if (!HasReactionOutput() || std::strcmp(output_extension(), "jnt") != 0) return;
    // MBDyn's .jnt line: label, f (local), m (local), F (global), M (global), then
    // joint-specific columns; the global ones are columns 8-13 counting the label as 1.
    std::ostringstream os;
    os.precision(17);
    WriteReaction(os, ctx);
    const std::string line = os.str();
    const char* p = line.c_str();
    double v[13];
    int n = 0;
    for (; n < 13; ++n) {
        char* end = nullptr;
        v[n] = std::strtod(p, &end);
        if (end == p) break;
        p = end;
    }
    if (n < 13) return;  // not the .jnt layout
    force.emplace_back(v[7], v[8], v[9]);
    moment.emplace_back(v[10], v[11], v[12]);
}

}  // namespace mbstep
