// mbstep — linear multistep methods on StepN<N> (plugin family `lms`).
//
// Summary: implicit Euler (1 step, order 1, L-stable), Crank–Nicolson (1 step, order 2,
// A-stable, rho_inf = 1), LMS2/3/4 (`ms`/`ms2`, `ms3`, `ms4`: 2/3/4 steps, order 2, A-stable,
// rho_inf in [0, 1]; rho_inf = 0 gives BDF2 for LMS2), `bdf` (order 1 or 2).
//
// Coefficients of y_k = sum a_j y_{k-j} + h sum b_j y'_{k-j} (rho = rho_inf):
//   implicit euler   a = (1), b = (1, 0)
//   crank nicolson   a = (1), b = (1/2, 1/2)
//   ms2, variable step (alpha = h_k / h_{k-1}) [Masarati, Lanz, Mantegazza 2001; MBDyn]:
//     den = 2 (1 + alpha) - (1 - rho)^2
//     beta = alpha ((1 - rho)^2 (2 + alpha) + 2 (2 rho - 1)(1 + alpha)) / den
//     delta = alpha^2 (1 - rho)^2 / (2 den)
//     a1 = 1 - beta, a2 = beta
//     b0 = (delta/alpha + alpha/2)/alpha, b1 = (beta/2 + alpha/2 - delta/alpha (1 + alpha))/alpha,
//     b2 = (beta/2 + delta)/alpha         (MBDyn's b_j are per h_{k-1}; ours per h_k)
//   ms3 (constant step) [Zhang et al. ref. 36], D = rho^2 - 5 rho + 10, B = (1 + rho) D:
//     a1 = 3 (2 rho^2 - 9 rho + 5)/D, a2 = -3 (5 rho^2 - 9 rho + 2)/D, a3 = (10 rho^2 - 5 rho +
//     1)/D b_j = 6 C(3, j) rho^j / B            (sigma(z) = b0 (z + rho)^3)
//   ms4 (constant step), D = -rho^3 + 7 rho^2 - 21 rho + 35, B = (1 + rho) D:
//     a1 = 4 (-2 rho^3 + 13 rho^2 - 35 rho + 14)/D, a2 = -4 (1 - rho)(7 rho^2 - 34 rho + 7)/D,
//     a3 = -4 (14 rho^3 - 35 rho^2 + 13 rho - 2)/D, a4 = (35 rho^3 - 21 rho^2 + 7 rho - 1)/D
//     b_j = 20 C(4, j) rho^j / B           (sigma(z) = b0 (z + rho)^4)
// (formulas as in MBDyn's mbdyn/base/stepsol_impl.cc (ms2) and mbdyn/base/ms34stepsol.cc
// (ms3, ms4); the tests check the order conditions and the roots of sigma algebraically for
// every registered method).
//
// Predictor: Hermite (StepN eq. 2) for ms2/3/4 and bdf order 2; constant for implicit Euler
// and Crank–Nicolson (MBDyn). Start-up: trapezoidal rule (StepN eq. 3). Variable step: ms2,
// implicit Euler, Crank–Nicolson; ms3/ms4 restart after a step change.
// The algebraic rho_inf is accepted and validated; multipliers enter r only algebraically in
// the cgr formulation (Newton unknown lambda itself), so it has no effect there.
#pragma once

#include "mbstep/integrator/step_n.hpp"

namespace mbstep::lms {

class ImplicitEuler final : public StepN<1> {
  public:
    static constexpr int kOrder = 1;  ///< declared order (also the registry's)
    static constexpr bool kTunable = false;
    std::string name() const override { return "implicit euler"; }
    int order() const override { return kOrder; }

  protected:
    Coefficients DoCoefficients(double, double) const override { return {{1.0}, {1.0, 0.0}}; }
    PredictorKind DoPredictor() const override { return PredictorKind::kConstant; }
    bool DoSupportsVariableStep() const override { return true; }
};

class CrankNicolson final : public StepN<1> {
  public:
    static constexpr int kOrder = 2;
    static constexpr bool kTunable = false;
    std::string name() const override { return "crank nicolson"; }
    int order() const override { return kOrder; }

  protected:
    Coefficients DoCoefficients(double, double) const override { return {{1.0}, {0.5, 0.5}}; }
    PredictorKind DoPredictor() const override { return PredictorKind::kConstant; }
    bool DoSupportsVariableStep() const override { return true; }
};

/// Base for the tunable methods: rho_inf is a drive.
template <int N>
class Tunable : public StepN<N> {
  public:
    static constexpr int kOrder = 2;
    static constexpr bool kTunable = true;
    Tunable(std::string name, RhoParameter rho, RhoParameter alg)
        : name_(std::move(name)), rho_(std::move(rho)), alg_(std::move(alg)) {}
    std::string name() const override { return name_; }
    int order() const override { return kOrder; }
    bool tunable() const override { return kTunable; }

  protected:
    double DoRho(double t) const override { return rho_.At(t); }

  private:
    std::string name_;
    RhoParameter rho_, alg_;
};

class Ms2 final : public Tunable<2> {
  public:
    using Tunable<2>::Tunable;

  protected:
    Coefficients DoCoefficients(double alpha, double rho) const override;
    bool DoSupportsVariableStep() const override { return true; }
};

class Ms3 final : public Tunable<3> {
  public:
    using Tunable<3>::Tunable;

  protected:
    Coefficients DoCoefficients(double alpha, double rho) const override;
};

class Ms4 final : public Tunable<4> {
  public:
    using Tunable<4>::Tunable;

  protected:
    Coefficients DoCoefficients(double alpha, double rho) const override;
};

}  // namespace mbstep::lms
