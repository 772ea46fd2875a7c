// my_bdf2 — an integrator written outside the mbstep tree: the 2-step backward differentiation
// formula (BDF2) derived from mbstep::StepN<2>, registered as the deck keyword `my bdf2`.
//
// Summary: linear multistep, 2 steps, order 2 (differential and algebraic variables),
// L-stable (rho_inf = 0, no parameter), constant step.
//
// Equations (StepN<2> form, y_k = sum_j a_j y_{k-j} + h sum_j b_j y'_{k-j}, step_n.hpp eq. 1):
//   (1) y_k = 4/3 y_{k-1} - 1/3 y_{k-2} + 2/3 h y'_k
//         j  |  0     1     2
//        a_j |  -    4/3  -1/3
//        b_j | 2/3    0     0
//   (2) order conditions: sum a_j = 1 (consistency); sum j a_j = sum b_j = 2/3 (order 1);
//       sum j^2 a_j = 2 sum j b_j = 0 (order 2); rho(z) = z^2 - 4/3 z + 1/3 has roots 1, 1/3
//       and sigma(z) = 2/3 z^2 a double root at 0, so the spectral radius is 0 at h lambda -> -inf.
//
// Parameters: none. Predictor: StepN's second-order Hermite predictor [Zhang, Masarati et al.,
// eqs. (12)-(14)], the same as mbstep's built-in `bdf`. Start-up: the trapezoidal rule for the
// first step (StepN eq. 3); a step change restarts the same way (no variable-step coefficients).
//
// References:
//   [Curtiss & Hirschfelder, 1952] C. F. Curtiss, J. O. Hirschfelder, Integration of stiff
//     equations, PNAS 38(3):235-243, 1952 (the backward differentiation formulas).
//   [Zhang, Masarati et al.] H. Zhang, R. Zhang, A. Zanoni, P. Masarati, Performance of implicit
//     A-stable time integration methods for multibody system dynamics, Multibody Syst Dyn
//     (2022), doi:10.1007/s11044-021-09806-9 (multi-step, single-step and multi-stage methods
//     in MBDyn): LMS2 at rho_inf = 0 is this BDF2, eq. (2).
#include <memory>

#include "mbstep/integrator/step_n.hpp"
#include "mbstep/plugin/registry.hpp"

namespace my {

class Bdf2 final : public mbstep::StepN<2> {
  public:
    std::string name() const override { return "my bdf2"; }
    int order() const override { return 2; }

  protected:
    Coefficients DoCoefficients(double /*alpha*/, double /*rho*/) const override {
        return {{4.0 / 3.0, -1.0 / 3.0}, {2.0 / 3.0, 0.0, 0.0}};  // eq. (1)
    }
};

}  // namespace my

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::IntegratorDescriptor d;
    d.name = "my bdf2";
    d.family = "linear multistep (StepN), out of tree";
    d.description = "BDF2 written from scratch: 2 steps, order 2, L-stable";
    d.order = "2";
    d.reference = "Curtiss & Hirschfelder 1952; Zhang, Masarati et al. eq. (2)";
    d.make = [](mbstep::DeckInput&) -> std::unique_ptr<mbstep::Integrator> {
        return std::make_unique<my::Bdf2>();
    };
    r.Add(std::move(d));
    return 0;
}
