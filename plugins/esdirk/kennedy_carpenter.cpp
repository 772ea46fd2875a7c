// mbstep — the L-stable ESDIRKs of Kennedy & Carpenter used by MBDyn as DIRK33, DIRK43 and
// DIRK54 [Zhang, Masarati et al., section 2.3, ref. 21: C. A. Kennedy, M. H. Carpenter,
// "Diagonally implicit Runge-Kutta methods for ordinary differential equations. A review",
// NASA/TM-2016-219173, 2016]. Stiffly accurate, explicit first stage, stage order 2 ("[2]"),
// L-stable (R(-inf) = 0); no parameter.
//
//   DIRK33 = ESDIRK3(2)4L[2]SA, S = 3, order 3:
//     (1) gamma: the root in (0.4, 0.5) of 6 gamma^3 - 18 gamma^2 + 9 gamma - 1 = 0
//         (R(-inf) = 0 for this structure; gamma = 0.43586652150845899941...)
//     (2) c_2 = 3/5; row 2 from stage order 2, the last row from the quadrature of order 3
//         (tableau_tools.hpp (T1), (T2)), which are the closed forms of the reference:
//         a_21 = c_2 (c_2 - 2 gamma) / (4 gamma), b_2 = (1 - 6 gamma + 6 gamma^2) / (3 c_2 (c_2 - 2
//         gamma)), ...
//   DIRK43 = ESDIRK3(2)5L[2]SA, S = 4, order 3, gamma = 9/40, exact in sqrt(2):
//     (3) c = (0, 9/20, 9 (2 + sqrt2) / 40, 3/5, 1)
//         a_20 = a_21 = 9 (1 + sqrt2) / 80
//         a_30 = a_31 = (22 + 15 sqrt2) / (80 (1 + sqrt2)),  a_32 = -7 / (40 (1 + sqrt2))
//         b_0 = b_1 = (2398 + 1205 sqrt2) / (2835 (4 + 3 sqrt2)),
//         b_2 = -2374 (1 + 2 sqrt2) / (2835 (5 + 3 sqrt2)),  b_3 = 5827/7560,  b_4 = gamma
//   DIRK54 = ESDIRK4(3)6L[2]SA2, S = 5, order 4, gamma = 31/125, rationals as published:
//     (4) c = (0, 62/125, 486119545908/3346201505189, 1043/1706, 1361/1300, 1)
//         a_21 = -360286518617/7014585480527
//         a_31 = -506388693497/5937754990171,  a_32 = 7149918333491/13390931526268
//         a_41 = -7628305438933/11061539393788, a_42 = 21592626537567/14352247503901,
//         a_43 = 11630056083252/17263101053231
//         b_1 = -12917657251/5222094901039,    b_2 = 5602338284630/15643096342197,
//         b_3 = 9002339615474/18125249312447,  b_4 = -2420307481369/24731958684496
//         a_i0 = c_i - gamma - sum_{0<j<i} a_ij (and b_0 likewise): the first column repeats
//         a_i1 (a_i0 = a_i1, stage order 2 with a trapezoidal first implicit stage)
//   (numbers as MBDyn's constants in mbdyn/base/multistagestepsol_impl.cc, DIRK33Solver,
//   DIRK43Solver, DIRK54Solver; stage index 1 = the first implicit stage, as in stage_n.hpp)
#include <cmath>

#include "esdirk_methods.hpp"
#include "tableau_tools.hpp"

namespace mbstep::esdirk {

EsdirkTableau Dirk33Tableau(double /*rho*/) {
    // (1): bisection on the cubic, then Newton to round-off.
    auto p = [](double g) { return ((6.0 * g - 18.0) * g + 9.0) * g - 1.0; };
    double lo = 0.4, hi = 0.5;
    for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        (p(lo) < 0.0) == (p(mid) < 0.0) ? lo = mid : hi = mid;
    }
    double g = 0.5 * (lo + hi);
    for (int it = 0; it < 3; ++it) g -= p(g) / ((18.0 * g - 36.0) * g + 9.0);
    EsdirkTableau t = TrapezoidalStart(3, g, {3.0 / 5.0});  // (2)
    SolveStageOrderTwoRows(t, 2, 2, {});
    QuadratureWeights(t);
    return t;
}

EsdirkTableau Dirk43Tableau(double /*rho*/) {
    const double s2 = std::sqrt(2.0);
    const double g = 9.0 / 40.0;
    EsdirkTableau t = TrapezoidalStart(4, g, {9.0 * (2.0 + s2) / 40.0, 3.0 / 5.0});  // (3)
    t.a(2, 0) = t.a(2, 1) = 9.0 * (1.0 + s2) / 80.0;
    t.a(3, 0) = t.a(3, 1) = (22.0 + 15.0 * s2) / (80.0 * (1.0 + s2));
    t.a(3, 2) = -7.0 / (40.0 * (1.0 + s2));
    t.a(4, 0) = t.a(4, 1) = (2398.0 + 1205.0 * s2) / (2835.0 * (4.0 + 3.0 * s2));
    t.a(4, 2) = -2374.0 * (1.0 + 2.0 * s2) / (2835.0 * (5.0 + 3.0 * s2));
    t.a(4, 3) = 5827.0 / 7560.0;
    return t;
}

EsdirkTableau Dirk54Tableau(double /*rho*/) {
    const double g = 31.0 / 125.0;
    EsdirkTableau t = TrapezoidalStart(
        5, g, {486119545908.0 / 3346201505189.0, 1043.0 / 1706.0, 1361.0 / 1300.0});  // (4)
    t.a(2, 1) = -360286518617.0 / 7014585480527.0;
    t.a(3, 1) = -506388693497.0 / 5937754990171.0;
    t.a(3, 2) = 7149918333491.0 / 13390931526268.0;
    t.a(4, 1) = -7628305438933.0 / 11061539393788.0;
    t.a(4, 2) = 21592626537567.0 / 14352247503901.0;
    t.a(4, 3) = 11630056083252.0 / 17263101053231.0;
    t.a(5, 1) = -12917657251.0 / 5222094901039.0;
    t.a(5, 2) = 5602338284630.0 / 15643096342197.0;
    t.a(5, 3) = 9002339615474.0 / 18125249312447.0;
    t.a(5, 4) = -2420307481369.0 / 24731958684496.0;
    for (int i = 2; i <= 5; ++i) t.a(i, 0) = t.c[i] - g - t.a.row(i).segment(1, i - 1).sum();
    return t;
}

}  // namespace mbstep::esdirk
