// mbstep — MSSTC(n), n = 3, 4, 5: the n-sub-step composite methods as (n + 1)-stage ESDIRKs
// (S = n) [Zhang, Masarati et al., section 2.3; Zhang, Zhang, Xing, Masarati, ref. 35 of the
// paper]; MBDyn's Msstc3/4/5Solver. Order 2, A-stable, rho_inf in {0, 0.1, ..., 1},
// R(-inf) = (-1)^n rho_inf.
//
//   (1) stages 1..n-1: n - 1 trapezoidal sub-steps of length 2 gamma h,
//       c_i = 2 i gamma, a_i0 = gamma, a_ij = 2 gamma (0 < j < i), a_ii = gamma
//   (2) last stage: y_n = y_{n-1} + h (b_0 y'_{n-1} + sum_{0<j<n} b_j Y'_j + gamma y'_n)
//   Defining equations of (gamma, b_0..b_{n-1}) (tableau_tools.hpp (T3)-(T5)):
//   (3) r_1 = 1, r_2 = 1/2                                       (order 2)
//   (4) R(-inf) = (-1)^n rho_inf                                 (dissipation)
//   (5) a_4 = a_6 = ... = a_{2n-2} = 0: the amplitude of the undamped oscillator is exact up
//       to theta^(2n-1), |R(i theta)|^2 = 1 + O(theta^2n) ("preserving low-frequency
//       dynamics"; the reference tableaus satisfy (5) to round-off, checked in the tests)
//   Given gamma, (3), (4) and a_4 = 0 are linear in b (a_4 = 2 (r_4 - r_3) + 1/4 once (3)
//   holds); for n = 5, a_6 = 0 is quadratic along the remaining line of solutions and the
//   root that also makes a_8 smaller is taken. gamma itself solves the last equation of (5)
//   (a_{2n-2} = 0): it is refined by secant iterations from MBDyn's tabulated value
//   (multistagestepsol_impl.cc, Msstc*Solver::SetCoefForStageS: 2 gamma for rho_inf =
//   0, 0.1, ..., 1; MBDyn develop, commit 9f75c76), which selects the root.
#include <Eigen/LU>
#include <array>
#include <cmath>

#include "esdirk_methods.hpp"
#include "tableau_tools.hpp"

namespace mbstep::esdirk {

namespace {

// MBDyn's 2 gamma (the sub-step length over h) for rho_inf = k / 10, k = 0..10.
constexpr std::array<double, 11> kTwoGamma3 = {
    0.360850612858796, 0.357238916409316, 0.353891613236448, 0.350771031685692,
    0.347847215754394, 0.345095922844178, 0.342497237181382, 0.340034583544952,
    0.337694009358336, 0.335463651513774, 1.0 / 3.0};
constexpr std::array<double, 11> kTwoGamma4 = {
    0.262757473460932, 0.261097241892944, 0.259555167637696, 0.258114414514710,
    0.256761609839890, 0.255485941113696, 0.254278531804168, 0.253131998166274,
    0.252040127172992, 0.250997637660844, 1.0 / 4.0};
constexpr std::array<double, 11> kTwoGamma5 = {
    0.207114217840430, 0.206191263023350, 0.205333350050186, 0.204531188984370,
    0.203777407759764, 0.203066050295748, 0.202392230146362, 0.201751884891614,
    0.201141597837490, 0.200558465909484, 1.0 / 5.0};

// The tableau of gamma: (1), then the last row from (3)-(5) without a_{2n-2}.
EsdirkTableau Build(int n, double gamma, double rho) {
    EsdirkTableau t = TrapezoidalStart(n, gamma, {});
    for (int i = 2; i < n; ++i) {  // (1)
        t.c[i] = 2.0 * i * gamma;
        t.a(i, 0) = gamma;
        for (int j = 1; j < i; ++j) t.a(i, j) = 2.0 * gamma;
    }
    const int K = 2 * n - 1;  // r_0..r_{2n-2}
    auto series = [&](const Eigen::VectorXd& q) {
        t.a.row(n).head(n) = q.transpose();
        return StabilitySeries(t, K);
    };
    // r_k is affine in b: r_k(b) = base_k + sum_j b_j unit_jk.
    const std::vector<double> base = series(Eigen::VectorXd::Zero(n));
    Eigen::MatrixXd unit(n, K);
    for (int j = 0; j < n; ++j) {
        const std::vector<double> r = series(Eigen::VectorXd::Unit(n, j));
        for (int k = 0; k < K; ++k) unit(j, k) = r[k] - base[k];
    }
    // Stages at z -> -inf, (T5), for (4).
    Eigen::VectorXd Y(n);
    Y[0] = 1.0;
    for (int i = 1; i < n; ++i) Y[i] = -t.a.row(i).head(i).dot(Y.head(i)) / gamma;

    const int rows = n >= 4 ? 4 : 3;
    Eigen::MatrixXd M(rows, n);
    Eigen::VectorXd rhs(rows);
    M.row(0) = unit.col(1).transpose();  // (3)
    rhs[0] = 1.0 - base[1];
    M.row(1) = unit.col(2).transpose();
    rhs[1] = 0.5 - base[2];
    M.row(2) = -Y.transpose() / gamma;  // (4)
    rhs[2] = (n % 2 ? -1.0 : 1.0) * rho;
    if (rows == 4) {  // (5): a_4 = 2 (r_4 - r_3) + 1/4
        M.row(3) = 2.0 * (unit.col(4) - unit.col(3)).transpose();
        rhs[3] = -0.25 - 2.0 * (base[4] - base[3]);
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
    Eigen::VectorXd q = lu.solve(rhs);
    if (rows < n) {
        // n = 5: q = q_p + s v; a_6(s) is quadratic (5).
        const Eigen::VectorXd v = lu.kernel().col(0);
        auto amplitude = [&](double s, int m) { return AmplitudeSeries(series(q + s * v))[m]; };
        const double fm = amplitude(-1.0, 3), f0 = amplitude(0.0, 3), fp = amplitude(1.0, 3);
        const double A = 0.5 * (fp + fm) - f0, B = 0.5 * (fp - fm), C = f0;
        const double disc = std::sqrt(std::max(0.0, B * B - 4.0 * A * C));
        const double s1 = (-B + disc) / (2.0 * A), s2 = (-B - disc) / (2.0 * A);
        const double s = std::abs(amplitude(s1, 4)) <= std::abs(amplitude(s2, 4)) ? s1 : s2;
        q += s * v;
    }
    t.a.row(n).head(n) = q.transpose();
    return t;
}

EsdirkTableau Msstc(int n, const std::array<double, 11>& two_gamma, double rho) {
    const int k = TenthsIndex(rho);
    if (k < 0) RejectRho("msstc" + std::to_string(n), rho, "0, 0.1, 0.2, ..., 0.9, 1");
    // gamma from the last equation of (5), f(gamma) = a_{2n-2} = 0, by secant steps from the
    // tabulated value; a step that does not reduce |f| ends the iteration (at rho_inf = 1 the
    // table holds the exact 1 / (2n)).
    auto f = [&](double g) {
        return AmplitudeSeries(StabilitySeries(Build(n, g, rho), 2 * n - 1))[n - 1];
    };
    double g0 = 0.5 * two_gamma[k], g1 = g0 * (1.0 + 1e-7);
    double f0 = f(g0), f1 = f(g1);
    if (std::abs(f1) > std::abs(f0)) {
        std::swap(g0, g1);
        std::swap(f0, f1);
    }
    for (int it = 0; it < 20 && f1 != 0.0 && f1 != f0; ++it) {
        const double g2 = g1 - f1 * (g1 - g0) / (f1 - f0);
        const double f2 = f(g2);
        if (!(std::abs(f2) < std::abs(f1))) break;
        g0 = g1;
        f0 = f1;
        g1 = g2;
        f1 = f2;
    }
    return Build(n, g1, rho);
}

}  // namespace

EsdirkTableau Msstc3Tableau(double rho) { return Msstc(3, kTwoGamma3, rho); }
EsdirkTableau Msstc4Tableau(double rho) { return Msstc(4, kTwoGamma4, rho); }
EsdirkTableau Msstc5Tableau(double rho) { return Msstc(5, kTwoGamma5, rho); }

}  // namespace mbstep::esdirk
