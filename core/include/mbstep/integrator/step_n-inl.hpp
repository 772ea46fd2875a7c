// mbstep — StepN<N> template bodies (equations in step_n.hpp).
#pragma once

#include <algorithm>
#include <type_traits>

namespace mbstep {

template <int N>
void StepN<N>::Start(double /*t0*/, double h) {
    FirstOrderProblem& p = problem();
    y_hist_.assign(N, p.y());
    yp_hist_.assign(N, p.yp());
    h_hist_.assign(N, h);
    known_ = 1;
}

template <int N>
typename StepN<N>::Coefficients StepN<N>::Irreducible(double alpha, double rho) {
    if (alpha != cached_alpha_ || rho != cached_rho_) {
        cached_ = ReducedCoefficients(alpha, rho);
        cached_alpha_ = alpha;
        cached_rho_ = rho;
    }
    return cached_;
}

template <int N>
StepStats StepN<N>::Advance(double t, double h) {
    FirstOrderProblem& p = problem();
    const auto& kinds = p.dof_kinds();
    const int n = p.num_dofs();
    const double h_prev = h_hist_[0];
    const double alpha = h / h_prev;

    // A step change without variable-step coefficients restarts the history (3).
    if (alpha != 1.0 && !DoSupportsVariableStep() && known_ > 1) known_ = 1;

    // Coefficients of this step: the method's, or the trapezoidal rule during start-up (3).
    Coefficients cf{};
    const bool startup = known_ < N;
    if (startup) {
        cf.a[0] = 1.0;
        cf.b[0] = 0.5;
        cf.b[1] = 0.5;
    } else {
        cf = Irreducible(alpha, DoRho(t + h));
    }

    // Rotations of the history relative to the last solved point.
    p.BeforePredict(y_hist_, yp_hist_);

    // Predictor (2).
    Eigen::VectorXd& y = p.y();
    Eigen::VectorXd& yp = p.yp();
    const bool hermite = DoPredictor() == PredictorKind::kHermite && known_ >= 2;
    const double m0 = -6.0 * alpha * alpha * (1.0 + alpha), m1 = -m0;
    const double n0 = (1.0 + alpha) * (1.0 + 3.0 * alpha), n1 = alpha * (2.0 + 3.0 * alpha);
    const int used = startup ? 1 : N;
    // h b_j once per step ((h b_j) y'_j as before: the same bits), the history's arrays, and
    // runs of one dof kind (nodes, then multipliers, in every formulation): loops without a
    // branch per dof, the compiler vectorizes them.
    double hb[N + 1];
    for (int j = 0; j <= N; ++j) hb[j] = h * cf.b[j];
    const double* yh[N];
    const double* yph[N];
    for (int j = 0; j < N; ++j) yh[j] = y_hist_[j].data(), yph[j] = yp_hist_[j].data();
    double* yo = y.data();
    double* ypo = yp.data();
    // (yh[1 % N]: the second point, read only by the Hermite predictor, which needs N >= 2.)
    auto differential = [&](auto used_tag, int begin, int end) {
        constexpr int U = decltype(used_tag)::value;
        for (int i = begin; i < end; ++i) {
            const double ypi = hermite ? (m0 * yh[0][i] + m1 * yh[1 % N][i]) / h + n0 * yph[0][i] +
                                             n1 * yph[1 % N][i]
                                       : yph[0][i];
            double yi = hb[0] * ypi;
            for (int j = 0; j < U; ++j) yi += cf.a[j] * yh[j][i] + hb[j + 1] * yph[j][i];
            yo[i] = yi;
            ypo[i] = ypi;
        }
    };
    for (int begin = 0; begin < n;) {
        int end = begin + 1;
        while (end < n && kinds[end] == kinds[begin]) ++end;
        if (kinds[begin] == DofKind::kAlgebraic) {
            // Multipliers: linear extrapolation of the last two points where the Hermite
            // predictor is used (it cuts Newton iterations), else constant.
            for (int i = begin; i < end; ++i)
                yo[i] = hermite ? yh[0][i] + alpha * (yh[0][i] - yh[1 % N][i]) : yh[0][i];
        } else if (used == N) {
            differential(std::integral_constant<int, N>{}, begin, end);
        } else {
            differential(std::integral_constant<int, 1>{}, begin, end);
        }
        begin = end;
    }
    p.SetTime(t + h);
    p.AfterPredict();

    // Corrector: Newton on y' with dy = b0 h dy' (1).
    const NewtonResult r = SolvePoint(cf.b[0] * h);
    StepStats stats = MakeStats(r, t + h);
    if (!r.converged) {
        // Back to the last solved point; the caller may retry with another h.
        y = y_hist_[0];
        yp = yp_hist_[0];
        p.SetTime(t);
        p.RestoreLastSolved();
        return stats;
    }
    p.AfterConvergence();
    std::rotate(y_hist_.rbegin(), y_hist_.rbegin() + 1, y_hist_.rend());
    std::rotate(yp_hist_.rbegin(), yp_hist_.rbegin() + 1, yp_hist_.rend());
    std::rotate(h_hist_.rbegin(), h_hist_.rbegin() + 1, h_hist_.rend());
    y_hist_[0] = y;
    yp_hist_[0] = yp;
    h_hist_[0] = h;
    known_ = std::min(known_ + 1, N);
    return stats;
}

}  // namespace mbstep
