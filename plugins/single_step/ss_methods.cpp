// mbstep — SS2/SS3/SS4 gamma functions (formulas and sources in ss_methods.hpp).
#include "ss_methods.hpp"

#include <cmath>

namespace mbstep::single_step {

Ss2::Gammas Ss2::DoGammas(double r) const {
    const double g0 = 1.0 / (1.0 + r);
    const double g1 = (3.0 - r) / (2.0 * (1.0 + r));
    return {g0, g1, g0};
}

Ss3::Gammas Ss3::DoGammas(double r) const {
    const double g0 = 1.0 / (1.0 + r);
    const Complex g1((5.0 - r) / (4.0 * (1.0 + r)),
                     std::sqrt(15.0) * (1.0 - r) / (12.0 * (1.0 + r)));
    return {g0, g1, g0, std::conj(g1), g0};
}

Ss4::Gammas Ss4::DoGammas(double r) const {
    // MBDyn's constants (ss_methods.hpp); the numerators exceed 2^53 and round as MBDyn's do.
    const double g0 = 1.0 / (1.0 + r);
    const double g1 =
        (18136681528176695.0 - 4625882646065207.0 * r) / (13510798882111488.0 * (1.0 + r));
    const Complex g3(
        (29151114559213513.0 - 2129516794990537.0 * r) / (27021597764222976.0 * (1.0 + r)),
        5833664606412816.0 * std::sqrt(3.0) * (1.0 - r) / (27021597764222976.0 * (1.0 + r)));
    return {g0, g1, g0, g3, g0, std::conj(g3), g0};
}

}  // namespace mbstep::single_step
