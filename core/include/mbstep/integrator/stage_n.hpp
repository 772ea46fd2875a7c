// mbstep — StageN<S>: stiffly accurate ESDIRK methods with explicit first stage for
// r(y, y', t) = 0 [Zhang, Masarati et al., sections 2.3 and 3]; MBDyn's tplStageNIntegrator.
//
// Summary: S implicit stages per step (S + 1 stages in all, the first explicit), one Newton
// solve per implicit stage, all with the same coefficient c = gamma h (same Jacobian form);
// stiffly accurate (the last stage is the step's result); internal stage points are not
// output. Order, stability and rho_inf are the derived method's.
//
// Notation: Y_0 = y_{n-1} (explicit first stage), Y_1..Y_S the implicit stages, Y_S = y_n;
// A = (a_ij), i, j = 0..S, is the full Butcher tableau (row 0 zero, a_ii = gamma for i >= 1,
// last row = b^T), c_i = sum_j a_ij, c_0 = 0, c_S = 1.
//
//   (1) Y_i = y_{n-1} + h (a_i0 y'_{n-1} + sum_{0<j<i} a_ij Y'_j + gamma Y'_i),
//       i = 1..S, at t_{n-1} + c_i h                                          [eqs. (5), (6)]
//   (2) stage 1 is the trapezoidal rule on [t_{n-1}, t_{n-1} + 2 gamma h]:
//       a_10 = a_11 = gamma, c_1 = 2 gamma (MBDyn)
//   (3) Newton on Y'_i with dY_i = gamma h dY'_i (differential dofs)          [eq. (21)]
//   (4) stability function (y' = lambda y, z = h lambda):
//       R(z) = 1 + z b^T (I - z A)^-1 1 (full tableau), R(-inf) = -rho_inf or +rho_inf;
//       AmplificationMatrix() is the 1 x 1 matrix R(z)
//
// Predictors [section 3.1], per stage as the method chooses (DoPredictor); t_N is the stage's
// time, t_{N-1}, t_{N-2}, ... the previously solved points of the step (latest first), so
// t_N - t_{N-1} = (c_i - c_{i-1}) h is not the step:
//   (5) constant: Y'_i = Y'_{i-1} (the paper's choice for stage 1, eq. (15))
//   (6) second order, eqs. (12)-(14), from Y_{i-1}, Y_{i-2}:
//         Y'_i = (m0 Y_{i-1} + m1 Y_{i-2}) / (t_N - t_{N-1}) + n0 Y'_{i-1} + n1 Y'_{i-2},
//         alpha = (c_i - c_{i-1}) / (c_{i-1} - c_{i-2}), m0 = -6 alpha^2 (1 + alpha), m1 = -m0,
//         n0 = (1 + alpha)(1 + 3 alpha), n1 = alpha (2 + 3 alpha)
//       (cubic Hermite extrapolation: exact for cubics)
//   (7) fourth order, eqs. (16)-(17), from Y_{i-1}, Y_{i-2}, Y_{i-3}:
//         Y'_i = (m0 Y_{i-1} + m1 Y_{i-2} + m2 Y_{i-3}) / (t_N - t_{N-1})
//                + n0 Y'_{i-1} + n1 Y'_{i-2} + n2 Y'_{i-3};
//       the coefficients are derived here from the Taylor conditions: exactness on
//       1, t, ..., t^5 (quintic Hermite extrapolation), which gives eq. (17) with
//       alpha_1 = (c_i - c_{i-1}) / (c_{i-1} - c_{i-2}), alpha_2 = (c_i - c_{i-1}) / (c_{i-2} -
//       c_{i-3}) (tests/integrators/esdirk_test.cpp compares with eqs. (14) and (17))
//   Y_i then follows from (1) with the predicted Y'_i; multipliers (algebraic dofs) are
//   predicted constant, lambda_i = lambda of the latest solved point.
//
// Rotations: before each stage the template calls BeforePredict with the history
// [Y_{i-1}, ..., Y_1, y_{n-1}] (latest first; AfterConvergence() after every converged stage
// keeps the formulation's ring of solved points in the same order) and chart = index of
// y_{n-1}, so all stages of a step live in the chart of y_{n-1} and (1) holds exactly in the
// rotation parameters (`cgr`). `mbdyn cgr` ignores the chart and re-references to the latest
// stage, as MBDyn does.
//
// Start-up and step changes: self-starting (single-step); a step change needs nothing.
// Failure: a stage that does not converge restores the step's start (values, time and the
// formulation's history, DiscardSolved); the caller may retry with another h.
//
// Contract with a derived method (STYLE.md §5): it supplies numbers only — DoTableau(rho)
// (gamma, abscissae and rows of the full tableau as functions of rho_inf), DoPredictor(i),
// DoRho(t), its declared order() and stage_order(). The template owns the stages, prediction,
// the Newton solves and the history.
#pragma once

#include <Eigen/Core>
#include <array>
#include <complex>
#include <vector>

#include "mbstep/integrator/first_order.hpp"

namespace mbstep {

/// Predictor of one implicit stage, eqs. (5)-(7) above.
enum class StagePredictor { kConstant, kSecondOrder, kFourthOrder };

/// Full Butcher tableau (S + 1 stages) of a stiffly accurate ESDIRK with explicit first stage.
struct EsdirkTableau {
    Eigen::MatrixXd a;  ///< (S+1) x (S+1): row 0 zero, a(i, i) = gamma (i >= 1), last row = b^T
    Eigen::VectorXd c;  ///< abscissae, c(0) = 0, c(S) = 1
    double gamma() const { return a(1, 1); }
    int implicit_stages() const { return static_cast<int>(c.size()) - 1; }
};

/// Coefficients of the Hermite extrapolation of y' at t = 0 from k past points (value and
/// derivative at each), exact on polynomials of degree < 2k: y'(0) ~ sum_j m_j y(tau_j) / dt +
/// n_j y'(tau_j), with the past times tau_j given in units of dt (negative). k = 2: eq. (14);
/// k = 3: eq. (17). Returns m (k entries) followed by n (k entries).
Eigen::VectorXd HermiteExtrapolation(const Eigen::VectorXd& tau);

/// The non-template part of StageN<S>: tableau access, linear analysis and predictor choice
/// (what tests and `mbstep analyze` use without knowing S).
class StageNBase : public FirstOrderIntegrator {
  public:
    /// The full tableau at rho_inf = rho (throws RunError for a rho the method does not
    /// accept, naming the accepted values).
    EsdirkTableau Tableau(double rho) const { return DoTableau(rho); }
    /// Which predictor implicit stage i (1..S) uses.
    StagePredictor predictor(int stage) const { return DoPredictor(stage); }
    /// Declared stage order (A c^(k-1) = c^k / k for k <= q, every stage).
    virtual int stage_order() const = 0;
    /// R(z) of (4) for the tableau.
    static std::complex<double> StabilityFunction(const EsdirkTableau& t, std::complex<double> z);
    /// 1 x 1: R(z) at rho_inf = rho; empty for a rho the method does not accept.
    Eigen::MatrixXcd AmplificationMatrix(std::complex<double> z, double rho) const override;
    int implicit_stages() const override { return DoImplicitStages(); }

  protected:
    virtual EsdirkTableau DoTableau(double rho) const = 0;
    /// Default: the paper's rule — constant for stage 1, second order afterwards.
    virtual StagePredictor DoPredictor(int stage) const {
        return stage <= 1 ? StagePredictor::kConstant : StagePredictor::kSecondOrder;
    }
    /// rho_inf at time t (methods without a parameter return 0 and ignore it).
    virtual double DoRho(double /*t*/) const { return 0.0; }
    virtual int DoImplicitStages() const = 0;
};

template <int S>
class StageN : public StageNBase {
  public:
    static_assert(S >= 1, "StageN needs at least one implicit stage");
    static constexpr int kStages = S;

    void Start(double t0, double h) final;
    StepStats Advance(double t, double h) final;

  private:
    int DoImplicitStages() const final { return S; }
    /// The tableau of rho and its predictor coefficients, recomputed when rho changes.
    void Prepare(double rho);
    /// Back to the step's start after stage `failed` did not converge.
    void RestoreStart(double t, int failed);

    EsdirkTableau tableau_;
    double cached_rho_{-1.0};
    std::array<StagePredictor, S + 1> kind_{};
    std::array<Eigen::VectorXd, S + 1> pred_{};  // per stage: m_j then n_j, eqs. (6)-(7)
    std::array<Eigen::VectorXd, S + 1> y_stage_, yp_stage_;  // Y_0 = y_{n-1} .. Y_S
    std::vector<Eigen::VectorXd> y_hist_, yp_hist_;          // [k] = Y_{i-1-k}
};

extern template class StageN<1>;
extern template class StageN<2>;
extern template class StageN<3>;
extern template class StageN<4>;
extern template class StageN<5>;
extern template class StageN<6>;

}  // namespace mbstep

#include "mbstep/integrator/stage_n-inl.hpp"
