// mbstep — columns the output writers share (output_columns.hpp).
#include "output_columns.hpp"

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

bool JntColumns(const Element& e, const ElementContext& ctx, double v[13]) {
    if (!e.HasReactionOutput()) return false;
    std::ostringstream os;
    os.precision(17);
    e.WriteReaction(os, ctx);
    const std::string line = os.str();
    const char* p = line.c_str();
    for (int n = 0; n < 13; ++n) {
        char* end = nullptr;
        v[n] = std::strtod(p, &end);
        if (end == p) return false;
        p = end;
    }
    return true;
}

}  // namespace mbstep::output_columns
