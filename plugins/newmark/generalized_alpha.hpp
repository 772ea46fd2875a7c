// mbstep — `generalized alpha, rho_inf`: the generalized-alpha method of Chung & Hulbert in
// the form of Arnold & Brüls with an algorithmic acceleration, on any SecondOrderProblem; on
// the `lie group` formulation it is the Lie group generalized-alpha of Brüls, Cardona & Arnold.
// One step, one implicit solve per step, order 2 (positions, velocities; multipliers order 2
// with the scaling below), unconditionally stable for linear problems, spectral radius rho_inf
// at h omega -> inf (rho_inf = 1: no dissipation; rho_inf = 0: asymptotic annihilation).
//
// Coefficients from rho_inf in [0, 1] [Chung & Hulbert 1993, eqs. (25), (17), (20)]:
//   (1) alpha_m = (2 rho_inf - 1) / (rho_inf + 1),   alpha_f = rho_inf / (rho_inf + 1)
//   (2) gamma   = 1/2 + alpha_f - alpha_m,            beta    = 1/4 (gamma + 1/2)^2
// For the problem M(q) vdot + f(q, v, lambda, t) = 0, phi(q, t) = 0 (formulation/second_order.hpp)
// one step from t_n to t_{n+1} = t_n + h [Arnold & Brüls 2007, eqs. (9)-(12); Brüls, Cardona,
// Arnold 2012, eqs. (40)-(44)]:
//   (3) q_{n+1}   = q_n (+) h Dq_n,      Dq_n = v_n + h (1/2 - beta) a_n + h beta a_{n+1}
//   (4) v_{n+1}   = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
//   (5) (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} + alpha_f vdot_n
//   (6) M(q_{n+1}) vdot_{n+1} + f(q_{n+1}, v_{n+1}, lambda_{n+1}, t_{n+1}) = 0
//   (7) phi(q_{n+1}, t_{n+1}) = 0
// The equilibrium (6), (7) is enforced at t_{n+1} (no alpha-weighted residual). Newton
// unknowns are the increment dx of h Dq_n (a tangent vector at q_n (+) h Dq_n) and the scaled
// multiplier increment dmu:
//   (8) h Dq += dx,  v += gamma' dx,  vdot += beta' dx,  a += dx / (h^2 beta),  lambda += s dmu
//   (9) beta' = (1 - alpha_m) / (h^2 beta (1 - alpha_f)),   gamma' = gamma / (h beta)
//  (10) S = [ M + (gamma'/beta') C + (K + Kq_inertia) T(h Dq) / beta'    L ]
//           [ B T(h Dq)                                               0 ]
// with T the formulation's tangent operator (T_exp blocks on the Lie group, I on vector
// spaces); `tangent operator, no` replaces T by I [Brüls, Cardona, Arnold 2012, section 5].
// Scaling for small h [Bottasso, Bauchau, Cardona 2007; Arnold & Brüls 2007, section 3]: the
// residual's constraint rows are kappa phi with kappa = gamma' (~1/h, the row weight of the
// cgr formulation and of hht.hpp, so deck tolerances mean the same under every method), the
// multipliers move by lambda += beta' dmu, and the linear system is solved with the momentum
// rows divided by beta' and the constraint rows by kappa (NewtonSystem::ScaleForSolve): S has
// O(1) blocks for h -> 0 (gamma'/beta' = O(h), 1/beta' = O(h^2)), whatever the linear solver.
//
// Parameters: rho_inf in [0, 1] (a drive; default 0.9), values outside are rejected;
// `tangent operator, yes|no` (default yes).
// Start-up: q_0, v_0 from the deck, vdot_0 and lambda_0 from the formulation's consistent
// initial conditions, a_0 = vdot_0. Predictor: vdot_{n+1} = vdot_n, lambda_{n+1} = lambda_n,
// a_{n+1} from (5), then (3), (4). Newton full or modified (SolverSettings); a failed step
// leaves the state at t_n, so it can be retried with a smaller h (variable h is allowed).
// The method is a coefficient set of SecondOrderStep (mbstep/integrator/second_order_step.hpp):
// (1), (2) for rho_inf at t_{n+1}; (3)-(10) are its kAlgorithmicAcceleration form.
//
// References:
//   [Chung & Hulbert 1993] J. Chung, G. M. Hulbert, A time integration algorithm for structural
//     dynamics with improved numerical dissipation: the generalized-alpha method, J. Appl. Mech.
//     60:371-375.
//   [Arnold & Brüls 2007] M. Arnold, O. Brüls, Convergence of the generalized-alpha scheme for
//     constrained mechanical systems, Multibody Syst. Dyn. 18:185-202.
//   [Brüls, Cardona, Arnold 2012] Lie group generalized-alpha time integration of constrained
//     flexible multibody systems, Mech. Mach. Theory 48:121-137.
//   [Bottasso, Bauchau, Cardona 2007] Time-step-size-independent conditioning and sensitivity to
//     perturbations in the numerical solution of index three differential algebraic equations,
//     SIAM J. Sci. Comput. 29:397-414.
#pragma once

#include <string>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/second_order_step.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::newmark {

class GeneralizedAlpha final : public SecondOrderStep {
  public:
    GeneralizedAlpha(RhoParameter rho, bool tangent_operator)
        : rho_(std::move(rho)), tangent_operator_(tangent_operator) {}
    /// (1), (2).
    static NewmarkCoefficients FromRho(double rho_inf);

    std::string name() const override { return "generalized alpha"; }
    int order() const override { return 2; }

  protected:
    NewmarkCoefficients DoCoefficients(double rho) const override { return FromRho(rho); }
    double DoRho(double t) const override { return rho_.At(t); }
    bool DoTangentOperator() const override { return tangent_operator_; }

  private:
    RhoParameter rho_;
    bool tangent_operator_{true};
};

}  // namespace mbstep::newmark
