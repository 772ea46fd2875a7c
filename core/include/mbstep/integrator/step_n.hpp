// mbstep — StepN<N>: linear multistep methods for r(y, y', t) = 0, the extension point of
// [Zhang, Masarati et al.] section 2.1 / 3 and MBDyn's tplStepNIntegrator.
//
//   (1) y_k = sum_{j=1..N} a_j y_{k-j} + h sum_{j=0..N} b_j y'_{k-j}        [eq. (2)]
//   (2) predictor, second order, from the last two points (cubic Hermite)  [eqs. (12)-(14)]
//         y'_N = (m0 y_{N-1} + m1 y_{N-2}) / h + n0 y'_{N-1} + n1 y'_{N-2},
//         alpha = h / h_prev, m0 = -6 alpha^2 (1 + alpha), m1 = -m0,
//         n0 = (1 + alpha)(1 + 3 alpha), n1 = alpha (2 + 3 alpha)
//       or constant y'_N = y'_{N-1} (methods that ask for it, and the first step);
//       y_N then follows from (1) with the predicted y'_N; multipliers extrapolated linearly,
//       lambda_N = lambda_{N-1} + alpha (lambda_{N-1} - lambda_{N-2}), with the Hermite
//       predictor, else constant.
//   (1') the coefficients are used in irreducible form: common roots of rho(z) and sigma(z)
//       are cancelled (multistep_polynomials.hpp); this matters only at rho_inf = 1, where
//       LMS2/3/4 reduce to the trapezoidal rule;
//   (3) start-up: while fewer than N points are known, the trapezoidal rule        [eq. (3)]
//         y_k = y_{k-1} + h/2 (y'_k + y'_{k-1});
//       a method without variable-step coefficients restarts this way after a step change.
//
// Contract with a derived method (STYLE.md §5): it supplies numbers only — DoCoefficients()
// (a_1..a_N, b_0..b_N for step ratio alpha and rho_inf), DoPredictor() (which predictor), its
// declared order and whether its coefficients hold for variable steps. The template owns the
// history, the rotation re-referencing (through the formulation), prediction, the Newton solve
// with c = b0 h, and start-up.
#pragma once

#include <array>
#include <vector>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/multistep_polynomials.hpp"

namespace mbstep {

enum class PredictorKind { kConstant, kHermite };

template <int N>
class StepN : public FirstOrderIntegrator {
  public:
    static_assert(N >= 1, "StepN needs at least one step");
    static constexpr int kSteps = N;

    struct Coefficients {
        std::array<double, N> a{};      ///< a_1..a_N
        std::array<double, N + 1> b{};  ///< b_0..b_N (multiply h)
    };

    void Start(double t0, double h) final;
    StepStats Advance(double t, double h) final;

    /// Coefficients for step ratio alpha = h / h_prev and the given rho (tests, analysis).
    Coefficients coefficients(double alpha, double rho) const { return DoCoefficients(alpha, rho); }
    int steps() const { return N; }
    /// Companion matrix of (1 - z b0) y_k = sum_j (a_j + z b_j) y_{k-j} (constant step,
    /// irreducible coefficients).
    Eigen::MatrixXcd AmplificationMatrix(std::complex<double> z, double rho) const override {
        const Coefficients c = ReducedCoefficients(1.0, rho);
        Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(N, N);
        for (int j = 0; j < N; ++j) A(0, j) = (c.a[j] + z * c.b[j + 1]) / (1.0 - z * c.b[0]);
        for (int i = 1; i < N; ++i) A(i, i - 1) = 1.0;
        return A;
    }
    /// DoCoefficients in irreducible form (multistep_polynomials.hpp).
    Coefficients ReducedCoefficients(double alpha, double rho) const {
        const Coefficients c = DoCoefficients(alpha, rho);
        std::vector<double> a(c.a.begin(), c.a.end()), b(c.b.begin(), c.b.end());
        ReduceMultistep(a, b);
        Coefficients r;
        std::copy(a.begin(), a.end(), r.a.begin());
        std::copy(b.begin(), b.end(), r.b.begin());
        return r;
    }
    bool MultistepCoefficients(double alpha, double rho, std::vector<double>& a,
                               std::vector<double>& b) const override {
        const Coefficients c = DoCoefficients(alpha, rho);
        a.assign(c.a.begin(), c.a.end());
        b.assign(c.b.begin(), c.b.end());
        return true;
    }

  protected:
    /// The method's coefficients for step ratio alpha and rho_inf.
    virtual Coefficients DoCoefficients(double alpha, double rho) const = 0;
    virtual PredictorKind DoPredictor() const { return PredictorKind::kHermite; }
    /// True if DoCoefficients is valid for alpha != 1 (else a step change restarts).
    virtual bool DoSupportsVariableStep() const { return false; }
    /// rho_inf at time t (methods without a parameter return 0 and ignore it).
    virtual double DoRho(double /*t*/) const { return 0.0; }

  private:
    /// The method's coefficients in irreducible form (multistep_polynomials.hpp), cached.
    Coefficients Irreducible(double alpha, double rho);

    Coefficients cached_{};
    double cached_alpha_{-1.0}, cached_rho_{-1.0};
    std::vector<Eigen::VectorXd> y_hist_, yp_hist_;  // [j] = point k-1-j
    std::vector<double> h_hist_;                     // [j] = step that ended at point k-1-j
    int known_{0};                                   // points in the history
};

}  // namespace mbstep

#include "mbstep/integrator/step_n-inl.hpp"
