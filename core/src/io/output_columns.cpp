// mbstep — columns the output writers share (output_columns.hpp).
#include "output_columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "mbstep/math/rotation.hpp"

namespace mbstep::output_columns {

Vec3 OrientationAngles(const Mat3& R, OrientationOutput kind) {
    constexpr double kDeg = 180.0 / M_PI;
    switch (kind) {
        case OrientationOutput::kEuler123:
            return Euler123FromRotation(R) * kDeg;
        case OrientationOutput::kEuler313:
            return Euler313FromRotation(R) * kDeg;
        case OrientationOutput::kEuler321:
            return Euler321FromRotation(R) * kDeg;
        case OrientationOutput::kOrientationVector:
            return LogSO3(R);
        case OrientationOutput::kOrientationMatrix:
            break;
    }
    return Vec3::Zero();
}

std::vector<double> ReactionNumbers(const ElementOutput& e, const ElementContext& ctx) {
    std::vector<double> v;
    if (!e.HasReactionOutput()) return v;
    std::ostringstream os;
    os.precision(17);
    e.WriteReaction(os, ctx);
    const std::string line = os.str();
    const char* p = line.c_str();
    for (;;) {
        char* end = nullptr;
        const double x = std::strtod(p, &end);
        if (end == p) break;
        v.push_back(x);
        p = end;
    }
    return v;
}

bool JntColumns(const ElementOutput& e, const ElementContext& ctx, double v[13]) {
    const std::vector<double> n = ReactionNumbers(e, ctx);
    if (n.size() < 13) return false;
    std::copy(n.begin(), n.begin() + 13, v);
    return true;
}

}  // namespace mbstep::output_columns
