#include "mbstep/model/drive.hpp"

#include <algorithm>
#include <cmath>

namespace mbstep {

double Drive::Derivative(double t) const {
    // Central difference with a step scaled to t; drives with a closed form override this.
    const double d = 1e-6 * std::max(1.0, std::abs(t));
    return (Value(t + d) - Value(t - d)) / (2.0 * d);
}

}  // namespace mbstep
