// mbstep — MSSTH(n), n = 3, 4, 5: the higher-order multi-sub-step methods as (n + 1)-stage
// ESDIRKs (S = n), with the parameters modified to satisfy the overall- and stage-order
// conditions [Zhang, Masarati et al., section 2.3 and Appendix; ref. 35 of the paper]; MBDyn's
// Mssth3/4/5Solver. Order n, stage order 2, A-stable; R(-inf) = +rho_inf (n = 3, 4),
// -rho_inf (n = 5).
//
//   (1) stage 1 trapezoidal (c_1 = 2 gamma); stages 2..n-1 at the abscissae c_2..c_{n-1}
//   (2) every row has stage order 2 (tableau_tools.hpp (T1))          [paper: "each stage,
//       from the second one, has at least second-order accuracy"]
//   (3) the last row b is the quadrature of order n, (T2): sum_j b_j c_j^(q-1) = 1/q, q = 1..n
//   (4) the remaining free entries (stage 3 for n = 4; stages 3, 4 for n = 5) from the
//       order conditions left by (2)-(3):
//         n = 4: b^T A c^2 = 1/12
//         n = 5: b^T A c^2 = 1/12, (b c)^T A c^2 = 1/15, b^T A c^3 = 1/20
//       (with stage order 2 every other Butcher tree up to order n reduces to these and (3);
//       n = 5 also needs b^T A A c^2 = 1/60, which the tabulated abscissae satisfy — tested)
//   Parameters (gamma and the abscissae; the rest follows from (1)-(4)):
//   (5) MSSTH3: c_2 = (24 gamma^2 - 20 gamma + 3) / (24 gamma^2 - 24 gamma + 4), which makes (3)
//       hold for q = 4 as well; gamma solves R(-inf) = rho_inf, refined by secant steps from
//       MBDyn's value for rho_inf = 0, 0.1, ..., 1 (multistagestepsol_impl.cc,
//       Mssth3Solver::SetCoefForStageS, which stores 2 gamma)
//   (6) MSSTH4: (gamma, c_2, c_3) and MSSTH5: (gamma, c_3, c_4), c_2 = 0.1, from the
//       optimisation of the paper's Appendix: MBDyn's values for rho_inf = 0, 0.6, 1
//       (mbdyn/base/multistagestepsol_impl.cc, Mssth4Solver / Mssth5Solver, MBDyn develop
//       9f75c76); MBDyn tabulates 0, 0.1, ..., 1, but only these three are in our sources, so
//       only they are accepted.
#include <array>
#include <cmath>

#include "esdirk_methods.hpp"
#include "tableau_tools.hpp"

namespace mbstep::esdirk {

namespace {

constexpr std::array<double, 11> kTwoGamma3 = {
    0.871733043016920, 0.842973630818818, 0.817001579025844, 0.793294418242268,
    0.771462000921670, 0.751204450030570, 0.732285620206694, 0.714515623934468,
    0.697738906149738, 0.681825845543858, 2.0 / 3.0};

struct Params {
    double gamma;
    std::array<double, 3> c;  // abscissae of stages 2..n-1
};
// (6), rho_inf = 0, 0.6, 1.
constexpr std::array<Params, 3> kMssth4 = {
    Params{0.5728160624821350, {0.5590985754229417, 0.7414011664833654, 0.0}},
    Params{0.4541307850365287, {0.7884370115210036, 0.8139662529419135, 0.0}},
    Params{0.3943375672974065, {1.0534803411702867, 0.7689305362617053, 0.0}}};
constexpr std::array<Params, 3> kMssth5 = {
    Params{0.2780538411364499, {0.1, 0.9673258605571696, 1.1401342632441456}},
    Params{0.2574960298566747, {0.1, 0.6379972790560723, 1.1704702995628087}},
    Params{0.2465051931428202, {0.1, 0.4536172576687555, 1.1779077366134449}}};

EsdirkTableau Build(int n, double gamma, const std::vector<double>& c_inner) {
    EsdirkTableau t = TrapezoidalStart(n, gamma, c_inner);  // (1)
    QuadratureWeights(t);                                   // (3)
    const Eigen::VectorXd b = t.a.row(n).transpose();
    std::vector<double> w(b.data(), b.data() + b.size()), bc(n + 1), c2(n + 1), c3(n + 1);
    for (int j = 0; j <= n; ++j) {
        bc[j] = b[j] * t.c[j];
        c2[j] = t.c[j] * t.c[j];
        c3[j] = c2[j] * t.c[j];
    }
    std::vector<WeightedCondition> extra;  // (4)
    if (n >= 4) extra.push_back({w, c2, 1.0 / 12.0});
    if (n >= 5) {
        extra.push_back({bc, c2, 1.0 / 15.0});
        extra.push_back({w, c3, 1.0 / 20.0});
    }
    SolveStageOrderTwoRows(t, 2, n - 1, extra);  // (2)
    return t;
}

int ZeroSixOneIndex(const std::string& method, double rho) {
    const int k = TenthsIndex(rho);
    if (k == 0) return 0;
    if (k == 6) return 1;
    if (k == 10) return 2;
    RejectRho(method, rho, "0, 0.6, 1");
}

}  // namespace

EsdirkTableau Mssth3Tableau(double rho) {
    const int k = TenthsIndex(rho);
    if (k < 0) RejectRho("mssth3", rho, "0, 0.1, 0.2, ..., 0.9, 1");
    auto build = [](double g) {
        const double c2 = (24.0 * g * g - 20.0 * g + 3.0) / (24.0 * g * g - 24.0 * g + 4.0);  // (5)
        return Build(3, g, {c2});
    };
    // (5): R(-inf)(gamma) = rho_inf by secant steps from the tabulated gamma.
    auto f = [&](double g) { return StabilityAtInfinity(build(g)) - rho; };
    double g0 = 0.5 * kTwoGamma3[k], g1 = g0 * (1.0 + 1e-7);
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
    return build(g1);
}

EsdirkTableau Mssth4Tableau(double rho) {
    const Params& p = kMssth4[ZeroSixOneIndex("mssth4", rho)];
    return Build(4, p.gamma, {p.c[0], p.c[1]});
}

EsdirkTableau Mssth5Tableau(double rho) {
    const Params& p = kMssth5[ZeroSixOneIndex("mssth5", rho)];
    return Build(5, p.gamma, {p.c[0], p.c[1], p.c[2]});
}

}  // namespace mbstep::esdirk
