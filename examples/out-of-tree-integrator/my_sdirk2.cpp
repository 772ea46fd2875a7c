// my_sdirk2 — a multistage method written outside the mbstep tree: Alexander's two-stage,
// L-stable SDIRK of order 2, written as an ESDIRK with an unused explicit first stage on
// mbstep::StageN<2> and registered as the deck keyword `my sdirk2`.
//
// Summary: 2 implicit stages per step, order 2, L-stable (rho_inf = 0, no parameter),
// stiffly accurate, stage order 1.
//
// Equations (StageN<S> form, stage_n.hpp eq. (1): the full tableau, row 0 the explicit stage):
//   (1) gamma = 1 - 1/sqrt(2)
//   (2) tableau:   0      |  0
//                  gamma  |  0      gamma
//                  1      |  0      1 - gamma   gamma
//   (3) order conditions: b^T 1 = 1 (order 1); b^T c = (1 - gamma) gamma + gamma = 1/2, i.e.
//       gamma^2 - 2 gamma + 1/2 = 0, whose root below 1 is (1) (order 2). Stability function
//       (stage_n.hpp eq. (4)): R(z) = (1 + (1 - 2 gamma) z) / (1 - gamma z)^2, degree 1 over
//       degree 2, so R(-inf) = 0: L-stable (A-stable for gamma >= 1/4).
//   (4) stage order 1: stage 1 is backward Euler over gamma h, A c = c^2 / 2 fails in its row
//       (0 + gamma * gamma != gamma^2 / 2). The built-in ESDIRKs start with the trapezoidal
//       rule (a_10 = a_11 = gamma, c_1 = 2 gamma, stage_n.hpp eq. (2)) for stage order 2.
//
// Parameters: none. Predictor: StageN's default (constant y' for stage 1, the second-order
// Hermite predictor after). Start-up: none needed (single step).
//
// References:
//   [Alexander 1977] R. Alexander, Diagonally implicit Runge-Kutta methods for stiff O.D.E.'s,
//     SIAM J. Numer. Anal. 14(6):1006-1021, 1977 (the two-stage method, Theorem 5).
//   [Hairer & Wanner] E. Hairer, G. Wanner, Solving Ordinary Differential Equations II, 2nd ed.,
//     Springer 1996, Table IV.6.4 (the same method) and section VII.4 (order reduction of
//     Runge-Kutta methods on index-3 problems, governed by the stage order).
#include <cmath>
#include <memory>

#include "mbstep/integrator/stage_n.hpp"
#include "mbstep/plugin/registry.hpp"

namespace my {

class Sdirk2 final : public mbstep::StageN<2> {
  public:
    std::string name() const override { return "my sdirk2"; }
    int order() const override { return 2; }
    int stage_order() const override { return 1; }  // (4)

  protected:
    mbstep::EsdirkTableau DoTableau(double /*rho*/) const override {
        const double g = 1.0 - 1.0 / std::sqrt(2.0);  // (1)
        mbstep::EsdirkTableau t;
        t.a = Eigen::MatrixXd::Zero(3, 3);  // (2)
        t.a(1, 1) = g;
        t.a(2, 1) = 1.0 - g;
        t.a(2, 2) = g;
        t.c = Eigen::Vector3d(0.0, g, 1.0);
        return t;
    }
};

}  // namespace my

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::IntegratorDescriptor d;
    d.name = "my sdirk2";
    d.family = "ESDIRK (StageN), out of tree";
    d.description =
        "Alexander's SDIRK2 written from scratch: 2 implicit stages, order 2, "
        "L-stable, stage order 1";
    d.order = "2";
    d.reference = "Alexander, SIAM J. Numer. Anal. 14 (1977); Hairer & Wanner II, Table IV.6.4";
    d.equations = "(1)-(2) of my_sdirk2.cpp";
    d.make = [](mbstep::DeckInput&) -> std::unique_ptr<mbstep::Integrator> {
        return std::make_unique<my::Sdirk2>();
    };
    r.Add(std::move(d));
    return 0;
}
