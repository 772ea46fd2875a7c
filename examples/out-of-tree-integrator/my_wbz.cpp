// my_wbz — a Newmark-type method written outside the mbstep tree: the Wood-Bossak-Zienkiewicz
// alpha method, a coefficient set of mbstep::SecondOrderStep registered as the deck keyword
// `my wbz` with an optional rho_inf.
//
// Summary: one implicit solve per step on a second-order formulation (`lie group`, `euler
// parameters`, `euler angles`, `lagrangian`), self-starting, order 2, unconditionally stable
// for linear problems, spectral radius rho_inf at h omega -> inf (rho_inf = 1: Newmark's
// average acceleration rule, the same numbers as `hht, 0, arnold bruls`).
//
// Equations ([Wood, Bossak, Zienkiewicz 1980]; in the notation of [Chung & Hulbert 1993],
// WBZ is generalized alpha with alpha_f = 0):
//   (1) alpha_m = (rho_inf - 1) / (rho_inf + 1),   alpha_f = 0
//   (2) gamma = 1/2 - alpha_m,                     beta = (1 - alpha_m)^2 / 4
//   (3) M(q_{n+1}) vdot_{n+1} + f(q_{n+1}, v_{n+1}, lambda_{n+1}, t_{n+1}) = 0,
//       phi(q_{n+1}, t_{n+1}) = 0,   (1 - alpha_m) a_{n+1} + alpha_m a_n = vdot_{n+1}
// with q, v updated from the algorithmic acceleration a by Newmark's formulas, i.e.
// SecondOrderStep's kAlgorithmicAcceleration form (second_order_step.hpp). For a constant mass
// matrix (3) is WBZ's M ((1 - alpha_m) a_{n+1} + alpha_m a_n) + f_{n+1} = 0.
//
// Parameters: rho_inf (a drive), default 0.9, rejected outside [0, 1].
// Start-up: consistent vdot_0, lambda_0 from the formulation, a_0 = vdot_0.
//
// References:
//   [Wood, Bossak, Zienkiewicz 1980] W. L. Wood, M. Bossak, O. C. Zienkiewicz, An alpha
//     modification of Newmark's method, Int. J. Numer. Methods Eng. 15 (1980) 1562-1566.
//   [Chung & Hulbert 1993] J. Chung, G. M. Hulbert, A time integration algorithm for structural
//     dynamics with improved numerical dissipation: the generalized-alpha method, J. Appl. Mech.
//     60:371-375, section 2 and eq. (16).
#include <memory>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/second_order_step.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

namespace my {

class Wbz final : public mbstep::SecondOrderStep {
  public:
    explicit Wbz(mbstep::RhoParameter rho) : rho_(std::move(rho)) {}
    std::string name() const override { return "my wbz"; }
    int order() const override { return 2; }

  protected:
    mbstep::NewmarkCoefficients DoCoefficients(double rho) const override {
        mbstep::NewmarkCoefficients k;
        k.alpha_m = (rho - 1.0) / (rho + 1.0);  // (1)
        k.alpha_f = 0.0;
        k.gamma = 0.5 - k.alpha_m;  // (2)
        k.beta = 0.25 * (1.0 - k.alpha_m) * (1.0 - k.alpha_m);
        return k;
    }
    double DoRho(double t) const override { return rho_.At(t); }

  private:
    mbstep::RhoParameter rho_;
};

}  // namespace my

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::IntegratorDescriptor d;
    d.name = "my wbz";
    d.family = "newmark (SecondOrderStep), out of tree";
    d.description = "Wood-Bossak-Zienkiewicz alpha method: generalized alpha with alpha_f = 0";
    d.order = "2";
    d.parameters = {{"rho_inf", "0.9", "[0, 1] (drive)"}};
    d.tunable = true;
    d.reference = "Wood, Bossak, Zienkiewicz 1980";
    d.equations = "(1)-(3) of my_wbz.cpp";
    d.steps = "1 step";
    d.requires_interface = mbstep::ProblemInterface::kSecondOrderDae;
    d.default_formulation = "lie group";
    d.make = [](mbstep::DeckInput& in) -> std::unique_ptr<mbstep::Integrator> {
        return std::make_unique<my::Wbz>(mbstep::RhoParameter::Read(in, 0.9, "my wbz").first);
    };
    r.Add(std::move(d));
    return 0;
}
