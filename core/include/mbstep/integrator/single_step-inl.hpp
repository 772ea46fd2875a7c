// mbstep — SingleStep<N> template bodies (equations in single_step.hpp).
#pragma once

#include <utility>

namespace mbstep {

template <int N>
typename SingleStep<N>::Scheme SingleStep<N>::MakeScheme(const Gammas& g) {
    Scheme s;
    s.gamma = g;
    // Each quantity as coefficients over (y'_k, y'_{k-1}, W_{1,k-1}, ..., W_{N-1,k-1}).
    using Row = std::array<Complex, N + 1>;
    Row now{}, before{};  // the input of the current stage at k and at k-1
    now[0] = 1.0;         // W_0 = y'
    before[1] = 1.0;
    for (int p = 1; p < N; ++p) {
        const Complex go = g[2 * (N - p) - 1], ge = g[2 * (N - p)];
        // (3): W_{p,k} = d_p W_{p-1,k} + e_p W_{p-1,k-1} + f_p W_{p,k-1}
        s.d[p - 1] = ge / go;
        s.e[p - 1] = (1.0 - ge) / go;
        s.f[p - 1] = -(1.0 - go) / go;
        Row w{};
        for (int j = 0; j <= N; ++j) w[j] = s.d[p - 1] * now[j] + s.e[p - 1] * before[j];
        w[1 + p] += s.f[p - 1];
        now = w;
        before = Row{};
        before[1 + p] = 1.0;
    }
    // (1) -> (4): y_k - y_{k-1} = h (gamma_0 W_{N-1,k} + (1 - gamma_0) W_{N-1,k-1})
    Row b{};
    for (int j = 0; j <= N; ++j) b[j] = g[0] * now[j] + (1.0 - g[0]) * before[j];
    s.b0 = b[0];
    s.bm1 = b[1];
    for (int p = 1; p < N; ++p) s.bI[p - 1] = b[1 + p];
    return s;
}

template <int N>
Eigen::MatrixXcd SingleStep<N>::AmplificationMatrix(std::complex<double> z, double rho) const {
    // (6) with y' = lambda y: column j is one step applied to unit vector j of
    // x = (y, h W_1, ..., h W_{N-1}).
    const Scheme s = scheme(rho);
    Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(N, N);
    // (4): (1 - b0 z) y_k = (1 + b_-1 z) y_{k-1} + sum_p bI_p h W_{p,k-1}
    A(0, 0) = (1.0 + s.bm1 * z) / (1.0 - s.b0 * z);
    for (int p = 1; p < N; ++p) A(0, p) = s.bI[p - 1] / (1.0 - s.b0 * z);
    // (3): the stage inputs h W_{p-1} at k (row) and k-1 (old unit vector).
    Eigen::RowVectorXcd in_now = z * A.row(0), in_before = Eigen::RowVectorXcd::Zero(N);
    in_before(0) = z;
    for (int p = 1; p < N; ++p) {
        A.row(p) = s.d[p - 1] * in_now + s.e[p - 1] * in_before;
        A(p, p) += s.f[p - 1];
        in_now = A.row(p);
        in_before.setZero();
        in_before(p) = 1.0;
    }
    return A;
}

template <int N>
Eigen::MatrixXd SingleStep<N>::RealAmplificationMatrix(double z, double rho) const {
    // The step as Advance() runs it: y real (Re[] in (4)), W complex stored as two reals.
    const Scheme s = scheme(rho);
    const int n = 2 * N - 1;
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
    for (int col = 0; col < n; ++col) {
        // Unit vector col of (y, Re h W_1.., Im h W_1..).
        const double y = col == 0 ? 1.0 : 0.0;
        std::array<Complex, N - 1> u{};
        for (int p = 1; p < N; ++p) {
            if (col == p) u[p - 1] = 1.0;
            if (col == N - 1 + p) u[p - 1] = Complex(0.0, 1.0);
        }
        // (4) solved for y_k: y_k (1 - Re(b0) z) = y + Re(b_-1) z y + Re(sum bI u).
        Complex acc = s.bm1 * z * y;
        for (int p = 1; p < N; ++p) acc += s.bI[p - 1] * u[p - 1];
        const double y_k = (y + acc.real()) / (1.0 - s.b0.real() * z);
        M(0, col) = y_k;
        // (3) from the inputs h y'_k = z y_k, h y'_{k-1} = z y.
        Complex in_now = z * y_k, in_before = z * y;
        for (int p = 1; p < N; ++p) {
            const Complex w = s.d[p - 1] * in_now + s.e[p - 1] * in_before + s.f[p - 1] * u[p - 1];
            in_before = u[p - 1];
            in_now = w;
            M(p, col) = w.real();
            M(N - 1 + p, col) = w.imag();
        }
    }
    return M;
}

template <int N>
void SingleStep<N>::Start(double /*t0*/, double /*h*/) {
    FirstOrderProblem& p = problem();
    const int n = p.num_dofs();
    y_hist_.assign(1, p.y());
    yp_hist_.assign(1, p.yp());
    v_nm2_ = p.yp();
    for (int q = 0; q < N - 1; ++q) {
        w_[q].setZero(n);
        w_new_[q].setZero(n);
    }
    aux_started_ = false;
}

template <int N>
StepStats SingleStep<N>::Advance(double t, double h) {
    FirstOrderProblem& p = problem();
    const auto& kinds = p.dof_kinds();
    const int n = p.num_dofs();
    const double rho = DoRho(t + h);
    const Scheme s = scheme(rho);

    // Rotations of the last point relative to itself: g = 0, g' = w (see the header).
    p.BeforePredict(y_hist_, yp_hist_, 0);
    const Eigen::VectorXd& y_nm1 = y_hist_[0];
    const Eigen::VectorXd& v_nm1 = yp_hist_[0];

    // Auxiliary variables at N-1: W_{p,0} = y'_0 at the start, else (3) with the gammas of
    // the step that ended at N-1, fed with the derivatives as read after BeforePredict.
    if (!aux_started_) {
        for (int q = 0; q < N - 1; ++q) w_new_[q] = v_nm1.template cast<Complex>();
    } else if constexpr (N > 1) {
        const Scheme sp = scheme(rho_nm1_);
        for (int i = 0; i < n; ++i) {
            Complex in_now = v_nm1[i], in_before = v_nm2_[i];
            for (int q = 0; q < N - 1; ++q) {
                const Complex w = sp.d[q] * in_now + sp.e[q] * in_before + sp.f[q] * w_[q][i];
                in_before = w_[q][i];
                in_now = w;
                w_new_[q][i] = w;
            }
        }
    }

    // Predictor (5): y'_N = y'_{N-1}, y_N from (4); multipliers constant.
    Eigen::VectorXd& y = p.y();
    Eigen::VectorXd& yp = p.yp();
    for (int i = 0; i < n; ++i) {
        if (kinds[i] == DofKind::kAlgebraic) {
            y[i] = y_nm1[i];
            continue;
        }
        const double ypi = v_nm1[i];
        Complex acc = s.b0 * ypi + s.bm1 * v_nm1[i];
        for (int q = 0; q < N - 1; ++q) acc += s.bI[q] * w_new_[q][i];
        y[i] = y_nm1[i] + h * acc.real();  // eq. (4)
        yp[i] = ypi;
    }
    p.SetTime(t + h);
    p.AfterPredict();

    // Corrector: Newton on y' with dy = Re(b0) h dy' (5).
    const NewtonResult r = SolvePoint(s.b0.real() * h);
    StepStats stats = MakeStats(r, t + h);
    if (!r.converged) {
        // Back to the last solved point; W's and history were not touched.
        y = y_nm1;
        yp = v_nm1;
        p.SetTime(t);
        p.RestoreLastSolved();
        return stats;
    }
    p.AfterConvergence();
    std::swap(w_, w_new_);
    v_nm2_ = v_nm1;
    rho_nm1_ = rho;
    aux_started_ = true;
    y_hist_[0] = y;
    yp_hist_[0] = yp;
    return stats;
}

}  // namespace mbstep
