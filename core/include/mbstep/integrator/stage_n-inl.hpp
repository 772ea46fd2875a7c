// mbstep — StageN<S> template bodies (equations in stage_n.hpp).
#pragma once

#include <string>

namespace mbstep {

template <int S>
void StageN<S>::Start(double /*t0*/, double /*h*/) {
    FirstOrderProblem& p = problem();
    for (int i = 0; i <= S; ++i) {
        y_stage_[i] = p.y();
        yp_stage_[i] = p.yp();
    }
    y_hist_.assign(S, p.y());
    yp_hist_.assign(S, p.yp());
    cached_rho_ = -1.0;
}

template <int S>
void StageN<S>::Prepare(double rho) {
    if (rho == cached_rho_ && tableau_.c.size() == S + 1) return;
    EsdirkTableau t = DoTableau(rho);
    if (t.c.size() != S + 1 || t.a.rows() != S + 1 || t.a.cols() != S + 1)
        throw RunError("integrator '" + name() + "': its tableau has " +
                       std::to_string(t.c.size()) + " stages, StageN<" + std::to_string(S) +
                       "> runs " + std::to_string(S + 1));
    // Predictor coefficients per stage, eqs. (5)-(7): k earlier points of the step.
    for (int i = 1; i <= S; ++i) {
        kind_[i] = DoPredictor(i);
        const int k = kind_[i] == StagePredictor::kConstant      ? 0
                      : kind_[i] == StagePredictor::kSecondOrder ? 2
                                                                 : 3;
        if (k > i)
            throw RunError("integrator '" + name() + "': the predictor of stage " +
                           std::to_string(i) + " needs " + std::to_string(k) +
                           " earlier points of the step");
        Eigen::VectorXd tau(k);
        const double dt = t.c[i] - t.c[i - 1];
        for (int j = 0; j < k; ++j) tau[j] = (t.c[i - 1 - j] - t.c[i]) / dt;
        pred_[i] = k ? HermiteExtrapolation(tau) : Eigen::VectorXd();
    }
    tableau_ = std::move(t);
    cached_rho_ = rho;
}

template <int S>
StepStats StageN<S>::Advance(double t, double h) {
    FirstOrderProblem& p = problem();
    const auto& kinds = p.dof_kinds();
    const int n = p.num_dofs();
    Prepare(DoRho(t + h));
    const Eigen::MatrixXd& a = tableau_.a;
    const Eigen::VectorXd& c = tableau_.c;
    const double gamma = a(1, 1);
    Eigen::VectorXd& y = p.y();
    Eigen::VectorXd& yp = p.yp();
    y_stage_[0] = y;
    yp_stage_[0] = yp;

    StepStats total;
    for (int i = 1; i <= S; ++i) {
        // History [Y_{i-1}, ..., Y_0] in the chart of Y_0 = y_{n-1}.
        for (int k = 0; k < i; ++k) {
            y_hist_[k] = y_stage_[i - 1 - k];
            yp_hist_[k] = yp_stage_[i - 1 - k];
        }
        p.BeforePredict(y_hist_, yp_hist_, i - 1);
        const Eigen::VectorXd& y0 = y_hist_[i - 1];

        // Predictor (5)-(7), then Y_i from (1).
        const Eigen::VectorXd& w = pred_[i];
        const int np = static_cast<int>(w.size()) / 2;
        const double dt = (c[i] - c[i - 1]) * h;
        for (int d = 0; d < n; ++d) {
            if (kinds[d] == DofKind::kAlgebraic) {
                y[d] = y_hist_[0][d];
                yp[d] = yp_hist_[0][d];
                continue;
            }
            double ypi = np ? 0.0 : yp_hist_[0][d];
            for (int j = 0; j < np; ++j)
                ypi += w[j] * y_hist_[j][d] / dt + w[np + j] * yp_hist_[j][d];
            double yi = y0[d] + h * gamma * ypi;
            for (int j = 0; j < i; ++j) yi += h * a(i, j) * yp_hist_[i - 1 - j][d];
            y[d] = yi;
            yp[d] = ypi;
        }
        const double t_stage = i == S ? t + h : t + c[i] * h;
        p.SetTime(t_stage);
        p.AfterPredict();

        // Corrector: Newton on Y'_i with dY_i = gamma h dY'_i (3).
        const NewtonResult r = SolvePoint(gamma * h);
        StepStats st = MakeStats(r, t_stage);
        st.iterations += total.iterations;
        st.factorizations += total.factorizations;
        total = st;
        if (!r.converged) {
            total.failure += " (stage " + std::to_string(i) + " of " + std::to_string(S) + ")";
            RestoreStart(t, i);
            return total;
        }
        p.AfterConvergence();
        y_stage_[i] = y;
        yp_stage_[i] = yp;
    }
    return total;
}

template <int S>
void StageN<S>::RestoreStart(double t, int failed) {
    FirstOrderProblem& p = problem();
    // Drop the converged stages of this step from the formulation's history, then re-express
    // y_{n-1} in its own chart (g = 0, g' = w) so that values and references agree.
    p.DiscardSolved(failed - 1);
    y_hist_[0] = y_stage_[0];
    yp_hist_[0] = yp_stage_[0];
    p.BeforePredict(y_hist_, yp_hist_, 0);
    p.y() = y_hist_[0];
    p.yp() = yp_hist_[0];
    p.SetTime(t);
}

}  // namespace mbstep
