// mbstep — SecondOrderStep: Newmark-type one-step methods for second-order index-3 DAEs
// (SecondOrderProblem, formulation/second_order.hpp), the Newmark-family counterpart of StepN.
// A method is four numbers (alpha_m, alpha_f, gamma, beta) and a form; the template owns the
// predictor, the Newton system with its step-size scaling, the corrector, the consistent
// initial accelerations and the failure handling.
//
// Coefficients [Chung & Hulbert 1993, eqs. (2)-(5)]:
//   (1) q_{n+1} = q_n (+) h Dq_n,   Dq_n = v_n + h (1/2 - beta) a_n + h beta a_{n+1}
//   (2) v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
// e.g. HHT-alpha: alpha_m = 0, alpha_f = -alpha, gamma = 1/2 - alpha, beta = (1 - alpha)^2 / 4
// [Hilber, Hughes, Taylor 1977]; generalized alpha: (1), (2) of plugins/newmark/
// generalized_alpha.hpp; Wood-Bossak-Zienkiewicz: alpha_f = 0 (examples/out-of-tree-integrator/
// my_wbz.cpp); Newmark's average acceleration: all alphas 0, gamma = 1/2, beta = 1/4.
//
// Forms (how the alphas meet the equilibrium M(q) vdot + f(q, v, lambda, t) = 0, phi(q, t) = 0
// of formulation/second_order.hpp; f holds every term but M vdot):
//   kAlgorithmicAcceleration [Arnold & Brüls 2007, eqs. (9)-(12); Brüls, Cardona, Arnold 2012,
//       eqs. (40)-(44)]: any SecondOrderProblem (the Lie group too); second order whenever
//       gamma = 1/2 + alpha_f - alpha_m.
//   (A1) (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} + alpha_f vdot_n
//   (A2) M(q_{n+1}) vdot_{n+1} + f(q_{n+1}, v_{n+1}, lambda_{n+1}, t_{n+1}) = 0,  kappa phi = 0
//       Newton unknowns: the increment dx of h Dq_n (a tangent vector at q_{n+1}) and dmu,
//   (A3) h Dq += dx, v += gamma' dx, vdot += beta' dx, a += dx / (h^2 beta), lambda += beta' dmu
//   (A4) beta' = (1 - alpha_m) / (h^2 beta (1 - alpha_f)),  gamma' = kappa = gamma / (h beta)
//   (A5) S = [M + (gamma'/beta') C + (K + Kq_inertia) T(h Dq) / beta',  L;  B T(h Dq),  0],
//       the momentum rows of the right-hand side divided by beta', the constraint rows by
//       kappa; T the formulation's tangent operator (I on vector spaces; with
//       DoTangentOperator() false, I everywhere [Brüls, Cardona, Arnold 2012, section 5]).
//       Predictor: vdot_{n+1} = vdot_n, lambda_{n+1} = lambda_n, a_{n+1} from (A1), (1), (2).
//   kWeightedForces [Hilber, Hughes, Taylor 1977; Sherif, Nachbagauer, Steiner, Lauss 2019,
//       eqs. (17)-(20), (59)-(61)]: a = vdot and alpha_m = 0 (other values are rejected);
//       vector-space formulations only; first order when alpha_f != 0 and M depends on q
//       (plugins/newmark/hht.hpp).
//   (W1) M(q_{n+1}) a_{n+1} + (1 - alpha_f) f_{n+1} + alpha_f f_n = 0,  kappa phi = 0
//       Newton unknowns (a, lambda) from (a_n, lambda_n), q and v by (1), (2) after each update;
//   (W2) J = [M + beta h^2 (Kq_inertia + (1 - alpha_f) K) + (1 - alpha_f) C D,
//             (1 - alpha_f) L;  B,  0],
//       the constraint rows of d(r, kappa phi)/d(a, lambda) (gamma h B) divided by gamma h,
//       and the right-hand side with them; D = dv/da = gamma h I.
//   (W3) with DoUnitQuaternionRates(), the Euler parameters e of each node take the modified
//       velocity update [Sherif et al. 2019, eqs. (33)-(34)] instead of (2),
//       e'_{n+1} = L_{n+1}^T w + h gamma (I - e_{n+1} e_{n+1}^T) e''_{n+1},
//       w = L_n e'_n + h (1 - gamma) L_n e''_n held during the step, and D its derivative
//       (eqs. (69)-(70)), all from the formulation (SecondOrderProblem::
//       unit_quaternion_rates()): the template knows no rotation parameters.
// In both forms kappa = gamma / (beta h) (~2/h) weights the constraint rows, so a deck
// tolerance means the same under every method, and the scaled linear systems (A5), (W2) have
// O(1) blocks as h -> 0 [Bottasso, Bauchau, Cardona 2007].
//
// Start-up: q_0, v_0 from the deck, vdot_0 and lambda_0 from the formulation's consistent
// initial conditions, a_0 = vdot_0. Coefficients are taken at t_{n+1} (a method whose rho_inf
// is a drive changes them during the run; the iteration matrix is refactored then, and when h
// changes). A failed step leaves the state at t_n, so the run loop can retry with a smaller h.
//
// Contract with a derived method (STYLE.md §5), as for StepN: it supplies numbers only —
// DoCoefficients(rho), DoRho(t) when it has a parameter, DoForm() and the two switches — plus
// name() and order(). A Newmark-type method is one file (see my_wbz.cpp).
//
// References:
//   J. Chung, G. M. Hulbert, J. Appl. Mech. 60 (1993) 371-375.
//   H. M. Hilber, T. J. R. Hughes, R. L. Taylor, Earthq. Eng. Struct. Dyn. 5 (1977) 283-292.
//   M. Arnold, O. Brüls, Multibody Syst. Dyn. 18 (2007) 185-202.
//   O. Brüls, A. Cardona, M. Arnold, Mech. Mach. Theory 48 (2012) 121-137.
//   K. Sherif, K. Nachbagauer, W. Steiner, P. Lauss, Multibody Syst. Dyn. 46 (2019) 181-202.
//   C. L. Bottasso, O. A. Bauchau, A. Cardona, SIAM J. Sci. Comput. 29 (2007) 397-414.
#pragma once

#include <memory>
#include <string>

#include "mbstep/integrator/integrator.hpp"

namespace mbstep {

/// (1), (2) and the alphas of one Newmark-type method.
struct NewmarkCoefficients {
    double alpha_m{0.0}, alpha_f{0.0}, gamma{0.5}, beta{0.25};
};

enum class NewmarkForm { kAlgorithmicAcceleration, kWeightedForces };

class SecondOrderStep : public Integrator {
  public:
    SecondOrderStep();
    ~SecondOrderStep() override;
    ProblemInterface requires_interface() const final { return ProblemInterface::kSecondOrderDae; }
    void Attach(Formulation& f, const SolverSettings& s) final;
    void Start(double t0, double h) final;
    StepStats Advance(double t, double h) final;
    const NewtonSolver* newton_solver() const final;

    /// The coefficients at time t (tests, analysis).
    NewmarkCoefficients coefficients(double t) const { return DoCoefficients(DoRho(t)); }
    NewmarkForm form() const { return DoForm(); }

  protected:
    /// The method's coefficients for rho_inf = rho (methods without a parameter ignore it).
    virtual NewmarkCoefficients DoCoefficients(double rho) const = 0;
    /// rho_inf at time t (methods without a parameter return 0).
    virtual double DoRho(double /*t*/) const { return 0.0; }
    virtual NewmarkForm DoForm() const { return NewmarkForm::kAlgorithmicAcceleration; }
    /// kWeightedForces: the modified velocity update of Euler parameters (needs a formulation
    /// with unit_quaternion_rates()).
    virtual bool DoUnitQuaternionRates() const { return false; }
    /// kAlgorithmicAcceleration: T(h Dq) in the iteration matrix (false: I).
    virtual bool DoTangentOperator() const { return true; }

  private:
    class Stepper;
    class AlgorithmicAcceleration;
    class WeightedForces;
    std::unique_ptr<Stepper> stepper_;
};

}  // namespace mbstep
