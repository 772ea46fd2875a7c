// mbstep — the rho_inf-Bathe method as a 3-stage ESDIRK (S = 2) [Zhang, Masarati et al.,
// eq. (7)]; [Noh & Bathe 2019, ref. 26 of the paper]. Order 2, A-stable, rho_inf in [0, 1],
// R(-inf) = +rho_inf.
//
//   (1) gamma = (2 - sqrt(2 (1 + rho))) / (2 (1 - rho)) = 1 / (2 + sqrt(2 (1 + rho)))
//       (the second form is the first with its removable singularity at rho = 1 cancelled:
//       gamma(1) = 1/4, the trapezoidal rule twice)
//   (2) tableau:   0        |
//                  2 gamma  | gamma  gamma
//                  1        | b1     b2     gamma
//       b1 = -(4 gamma^2 - 6 gamma + 1) / (4 gamma), b2 = (1 - 2 gamma) / (4 gamma)
#include <cmath>

#include "esdirk_methods.hpp"
#include "tableau_tools.hpp"

namespace mbstep::esdirk {

EsdirkTableau BatheTableau(double rho) {
    const double g = 1.0 / (2.0 + std::sqrt(2.0 * (1.0 + rho)));  // (1)
    EsdirkTableau t = TrapezoidalStart(2, g, {});
    t.a(2, 0) = -(4.0 * g * g - 6.0 * g + 1.0) / (4.0 * g);  // (2)
    t.a(2, 1) = (1.0 - 2.0 * g) / (4.0 * g);
    return t;
}

}  // namespace mbstep::esdirk
