// my_ss2 — a single-step method written outside the mbstep tree: SS2, the single-step
// equivalent of the 2-step LMS2, derived from mbstep::SingleStep<2> and registered as the deck
// keyword `my ss2` with an optional rho_inf.
//
// Summary: one implicit solve per step, one auxiliary derivative W_1 carried between steps,
// self-starting, order 2, A-stable, rho_inf in [0, 1] (0: L-stable; 1: the trapezoidal rule).
//
// Equations (SingleStep<2> form, single_step.hpp eqs. (1)-(2), W_0 = y'):
//   (1) y_k = y_{k-1} + h ((1 - g0) W_{1,k-1} + g0 W_{1,k})
//   (2) g1 W_{1,k} + (1 - g1) W_{1,k-1} = g2 y'_k + (1 - g2) y'_{k-1}
//   (3) g0 = g2 = 1 / (1 + rho),   g1 = (3 - rho) / (2 (1 + rho))
// On y' = lambda y the characteristic polynomial of (1)-(2) is proportional to LMS2's
// rho(zeta) - z sigma(zeta) (single_step.hpp eq. (6)), so SS2 and LMS2 share spectral radius,
// damping and period error; unlike LMS2 it needs no start-up and changes step freely.
//
// Parameters: rho_inf (a drive), default 0, rejected outside [0, 1].
// Predictor: constant y' (SingleStep's eq. (15)); start-up: W_1 = y'_0.
//
// References:
//   [Zhang, Masarati et al.] H. Zhang, R. Zhang, A. Zanoni, P. Masarati, Performance of implicit
//     A-stable time integration methods for multibody system dynamics, Multibody Syst Dyn
//     (2022), doi:10.1007/s11044-021-09806-9, section 2.2, eqs. (4a)-(4e), and its ref. [36]
//     for the SS2 parameters (3); the built-in `ss2` computes the same numbers.
#include <memory>

#include "mbstep/integrator/single_step.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

namespace my {

class Ss2 final : public mbstep::SingleStep<2> {
  public:
    explicit Ss2(mbstep::RhoParameter rho) : rho_(std::move(rho)) {}
    std::string name() const override { return "my ss2"; }
    int order() const override { return 2; }
    bool tunable() const override { return true; }

  protected:
    Gammas DoGammas(double rho) const override {
        const double g0 = 1.0 / (1.0 + rho);  // (3)
        const double g1 = (3.0 - rho) / (2.0 * (1.0 + rho));
        return {g0, g1, g0};
    }
    double DoRho(double t) const override { return rho_.At(t); }

  private:
    mbstep::RhoParameter rho_;
};

}  // namespace my

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::IntegratorDescriptor d;
    d.name = "my ss2";
    d.family = "equivalent single-step (SingleStep), out of tree";
    d.description = "SS2 written from scratch: 1 auxiliary variable, order 2, tunable rho_inf";
    d.order = "2";
    d.parameters = {{"rho_inf", "0", "[0, 1] (drive)"}};
    d.tunable = true;
    d.reference = "Zhang, Masarati et al., section 2.2 and ref. [36]";
    d.equations = "(1)-(3) of my_ss2.cpp";
    d.make = [](mbstep::DeckInput& in) -> std::unique_ptr<mbstep::Integrator> {
        return std::make_unique<my::Ss2>(mbstep::RhoParameter::Read(in, 0.0, "my ss2").first);
    };
    r.Add(std::move(d));
    return 0;
}
