// mbstep — `hht, alpha [, modified]`: the Hilber–Hughes–Taylor alpha method on second-order
// index-3 DAEs (SecondOrderProblem, vector-space formulations), one step, order 2, numerical
// dissipation tuned by alpha in [-1/3, 0] (rho_inf = (1 + alpha)/(1 - alpha); alpha = 0 is the
// trapezoidal Newmark rule). With `modified`, the velocity update of every node's Euler
// parameters is the modified Newmark formula of [Sherif et al. 2019], whose quaternion algebra
// the formulation provides (SecondOrderProblem::unit_quaternion_rates(), i.e. `euler
// parameters`).
//
// Unknowns of the step n -> n+1: a = a_{n+1} and lambda = lambda_{n+1}. With
//   beta = (1 - alpha)^2 / 4,  gamma = (1 - 2 alpha) / 2                        [paper] eq. (19)
//   (1) q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a                eqs. (17), (59)
//   (2) v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a                            eqs. (18), (60)
//   (2m) modified, Euler parameters e of each node (replaces (2) there):        eqs. (33)-(34)
//       e'_{n+1} = L_{n+1}^T w + h gamma (I - e_{n+1} e_{n+1}^T) e''_{n+1},
//       w = L_n e'_n + h (1 - gamma) L_n e''_n,  L = L(e) of eq. (4)
//   (3) r = M(q_{n+1}) a + (1 + alpha) f_{n+1} - alpha f_n = 0                   eqs. (20), (61)
//   (4) kappa phi(q_{n+1}, t_{n+1}) = 0,   kappa = gamma / (beta h)
// f holds every term but M a (velocity-dependent inertia, element forces, reactions), see
// formulation/second_order.hpp. The constraint rows are weighted by kappa (~2/h, the weight of
// generalized_alpha.hpp and of the cgr formulation's 1/(b0 h)), so a deck tolerance means the
// same under every method: |phi| <= tol / kappa, a velocity-level bound (the unit length of the
// Euler parameters holds to tol h / 2 after every converged step). Iteration matrix, solved in
// the scaled form
//   (5) J = [M + beta h^2 (Kq_inertia + (1 + alpha) K) + (1 + alpha) C D,  (1 + alpha) L;
//            B,                                                            0]
// i.e. the constraint rows of d(r, kappa phi)/d(a, lambda) (= kappa beta h^2 B = gamma h B)
// divided by gamma h, and the right-hand side with them (NewtonSystem::ScaleForSolve): every
// block is O(1) as h -> 0 (the step-size-independent conditioning of [Bottasso, Bauchau,
// Cardona 2007]; the unscaled rows would be O(h) against O(1)), for any linear solver,
// whether or not it equilibrates rows itself.
// with D = dv_{n+1}/da = gamma h I, and on the Euler-parameter blocks of `modified`
//   (6) D_e = h^2 beta w^ + h gamma (I - e e^T) - h^3 gamma beta (e e''^T + (e^T e'') I)
//       (eq. (69); w^ = d(L(e)^T w)/de, the 4x4 matrix of eq. (70)).
// Newton: full or modified (SolverSettings; refactoring after the deck's iteration count, on a
// contraction rate above 0.5 or when h changes); factorizations are reported per step.
//
// Accuracy (measured, tests/integrators/hht_test.cpp): order 2 for alpha = 0 and on problems
// with a constant mass matrix; with alpha < 0 on a formulation whose mass matrix depends on q
// (Euler parameters: 4 L^T J L rotates with the body) the method as defined by (3) is FIRST
// order: M(q_{n+1}) a meets alpha-weighted forces of t_n, so a_{n+1} carries an O(alpha h)
// term (eq. (28) of [Sherif et al.] is its single-axis form; their Fig. 2 shows slope 1). The
// heavy top's CoM error is c alpha h. `hht, alpha, arnold bruls` is HHT in the form of
// [Arnold & Brüls 2007] (generalized alpha with alpha_m = 0, alpha_f = -alpha: equilibrium at
// t_{n+1}, alpha in the algorithmic acceleration), which is second order on every formulation.
// alpha = 0 (undamped) on an index-3 DAE leaves the alternating acceleration/multiplier mode
// undamped: on the heavy top it grows until Newton fails (t ~ 0.2 s); `modified` needs
// alpha <= -0.05 there (at -0.01 the mode grows ~15 % per step at h = 1e-4).
//
// Parameters: alpha in [-1/3, 0] (default -0.1; other values are rejected with the range, never
// clamped); `modified` or `arnold bruls` (optional keyword). Start-up: consistent a_0, lambda_0
// from the formulation (InitialConditions) in Start(); no predictor (Newton starts from a_n,
// lambda_n).
// The method is a coefficient set of SecondOrderStep (mbstep/integrator/second_order_step.hpp):
// alpha_m = 0, alpha_f = -alpha, gamma, beta of eq. (19); (1)-(6) are its kWeightedForces form
// (with the modified rates for `modified`), `arnold bruls` its kAlgorithmicAcceleration form.
//
// References: H. M. Hilber, T. J. R. Hughes, R. L. Taylor, Earthq. Eng. Struct. Dyn. 5 (1977)
// 283-292; K. Sherif, K. Nachbagauer, W. Steiner, P. Lauss, "A modified HHT method for the
// numerical simulation of rigid body rotations with Euler parameters", Multibody Syst Dyn 46
// (2019) 181-202, eqs. (17)-(20), (33)-(34), (59)-(61), (69)-(70); C. L. Bottasso, O. A.
// Bauchau, A. Cardona, SIAM J. Sci. Comput. 29 (2007) 397-414 (scaling).
#pragma once

#include <string>

#include "mbstep/integrator/second_order_step.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::newmark {

class Hht final : public SecondOrderStep {
  public:
    enum class Variant { kPaper, kModified, kArnoldBruls };
    /// Throws RunError when alpha is outside [-1/3, 0].
    Hht(double alpha, Variant variant);
    static void CheckAlpha(double alpha);
    /// alpha_m = 0, alpha_f = -alpha, gamma = 1/2 - alpha, beta = (1 - alpha)^2 / 4: eq. (19).
    static NewmarkCoefficients Coefficients(double alpha);

    std::string name() const override { return "hht"; }
    int order() const override { return 2; }

  protected:
    NewmarkCoefficients DoCoefficients(double /*rho*/) const override { return k_; }
    NewmarkForm DoForm() const override {
        return variant_ == Variant::kArnoldBruls ? NewmarkForm::kAlgorithmicAcceleration
                                                 : NewmarkForm::kWeightedForces;
    }
    bool DoUnitQuaternionRates() const override { return variant_ == Variant::kModified; }

  private:
    NewmarkCoefficients k_;
    Variant variant_;
};

}  // namespace mbstep::newmark
