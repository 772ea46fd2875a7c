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
// Forms (how the alphas meet the equilibrium M(q) vdot + f(q, v, lambda, t) = 0, phi(q, t) = 0):
//   kAlgorithmicAcceleration [Arnold & Brüls 2007, eqs. (9)-(12); Brüls, Cardona, Arnold 2012,
//       eqs. (40)-(44)]: equilibrium at t_{n+1} with vdot_{n+1}, and a is an algorithmic
//       acceleration, (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} +
//       alpha_f vdot_n. Any SecondOrderProblem (the Lie group too); second order whenever the
//       coefficients are (gamma = 1/2 + alpha_f - alpha_m). Newton on the increment of h Dq_n
//       and the scaled multipliers, iteration matrix with the tangent operator T(h Dq) (or I:
//       DoTangentOperator()); the equations are those of generalized_alpha.hpp (3)-(10).
//   kWeightedForces [Hilber, Hughes, Taylor 1977; Sherif, Nachbagauer, Steiner, Lauss 2019,
//       eqs. (17)-(20), (59)-(61)]: M(q_{n+1}) a_{n+1} + (1 - alpha_f) f_{n+1} + alpha_f f_n = 0
//       with a = vdot, alpha_m = 0 (other values are rejected). Vector-space formulations only;
//       first order when alpha_f != 0 and M depends on q (plugins/newmark/hht.hpp). Newton on
//       (a, lambda) from (a_n, lambda_n); with DoUnitQuaternionRates() the velocity update of
//       Euler parameters is the modified one of [Sherif et al. 2019, eqs. (33)-(34), (69)-(70)],
//       whose algebra the formulation provides (SecondOrderProblem::unit_quaternion_rates());
//       the equations are those of hht.hpp (1)-(6).
// Both scale the constraint rows by kappa = gamma / (beta h) (~2/h) in the residual, so that a
// deck tolerance means the same under every method, and solve the linear system with O(1)
// blocks for h -> 0 [Bottasso, Bauchau, Cardona 2007].
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
