// Registry-driven checks of every registered StageN method (STYLE.md §8): tableau structure,
// row sums, the order conditions of all Butcher trees up to the declared order (and that the
// next order fails), the declared stage order, R(-inf) = rho_inf, A-stability on the imaginary
// axis, agreement with the tabulated MBDyn tableaus, and the stage predictors of
// core/include/mbstep/integrator/stage_n.hpp against the paper's eqs. (14) and (17).
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "mbstep/integrator/order_conditions.hpp"
#include "mbstep/integrator/stage_n.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

using order_conditions::RootedTree;

// Largest |Phi(t) - 1/gamma(t)| over the trees of order q (b = last row of A).
double OrderDefect(const EsdirkTableau& t, const std::vector<std::vector<RootedTree>>& trees,
                   int q) {
    return order_conditions::OrderDefect(t.a, t.a.row(t.a.rows() - 1).transpose(), trees[q]);
}

// Largest |A c^(k-1) - c^k / k| over the stages.
double StageOrderDefect(const EsdirkTableau& t, int k) {
    const Eigen::VectorXd ck1 = t.c.array().pow(k - 1), ck = t.c.array().pow(k);
    return (t.a * ck1 - ck / k).cwiseAbs().maxCoeff();
}

// R(-inf) from the stage recursion Y_0 = 1, Y_i = -(sum_{j<i} a_ij Y_j) / gamma.
double RInfinity(const EsdirkTableau& t) {
    const int n = static_cast<int>(t.c.size());
    Eigen::VectorXd Y(n);
    Y[0] = 1.0;
    for (int i = 1; i < n; ++i) Y[i] = -t.a.row(i).head(i).dot(Y.head(i)) / t.a(i, i);
    return Y[n - 1];
}

struct Method {
    std::string name;
    bool tunable;
    std::vector<double> rhos;  // values to test
};

// Every registered StageN method with the rho_inf values it accepts.
std::vector<Method> StageMethods() {
    const Registry& reg = GlobalRegistry();
    std::vector<Method> out;
    for (const auto& d : reg.integrators()) {
        auto integ = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<StageNBase*>(integ.get())) continue;
        Method m{d.name, dynamic_cast<FirstOrderIntegrator*>(integ.get())->tunable(), {}};
        if (!m.tunable) {
            m.rhos = {0.0};
        } else {
            for (int k = 0; k <= 10; ++k) {
                try {
                    MakeIntegrator(d.name + ", " + std::to_string(k / 10.0), reg);
                    m.rhos.push_back(k / 10.0);
                } catch (const DeckError&) {
                }
            }
        }
        out.push_back(m);
    }
    return out;
}

const StageNBase& AsStage(const std::unique_ptr<Integrator>& p) {
    return dynamic_cast<const StageNBase&>(*p);
}

}  // namespace

TEST_CASE("every StageN method: structure, row sums, order and stage order, R(-inf), A-stability") {
    const Registry& reg = GlobalRegistry();
    const auto trees = order_conditions::RootedTrees(7);
    const auto methods = StageMethods();
    CHECK(methods.size() >= 10);
    for (const Method& m : methods) {
        for (double rho : m.rhos) {
            auto integ =
                MakeIntegrator(m.tunable ? m.name + ", " + std::to_string(rho) : m.name, reg);
            const StageNBase& s = AsStage(integ);
            const EsdirkTableau t = s.Tableau(rho);
            const int S = t.implicit_stages();
            const double g = t.gamma();
            INFO(m.name, " rho_inf = ", rho, " gamma = ", g);
            CHECK(s.implicit_stages() == S);
            // Structure: explicit first stage, trapezoidal stage 1, diagonal gamma > 0 (the
            // poles 1/gamma of R lie in the right half plane), stiffly accurate (c_S = 1).
            CHECK(g > 0.0);
            CHECK(t.a.row(0).cwiseAbs().maxCoeff() == 0.0);
            CHECK(t.a(1, 0) == doctest::Approx(g).epsilon(1e-15));
            for (int i = 1; i <= S; ++i) {
                CHECK(t.a(i, i) == g);
                for (int j = i + 1; j <= S; ++j) CHECK(t.a(i, j) == 0.0);
            }
            CHECK(t.c[0] == 0.0);
            CHECK(t.c[S] == 1.0);
            // Row sums c_i = sum_j a_ij.
            CHECK((t.a.rowwise().sum() - t.c).cwiseAbs().maxCoeff() < 1e-13);
            // Order conditions of every tree up to the declared order p; some tree of order
            // p + 1 fails. Tolerance: round-off of entries up to ~25 (mssth5) in sums of
            // products of up to 5 factors, and 13-digit rationals (DIRK54): 1e-11.
            const int p = integ->order();
            for (int q = 1; q <= p; ++q) {
                INFO("trees of order ", q);
                CHECK(OrderDefect(t, trees, q) < 1e-11);
            }
            CHECK(OrderDefect(t, trees, p + 1) > 1e-6);
            // Stage order: every stage satisfies A c^(k-1) = c^k / k for k <= declared, and
            // some stage fails k = declared + 1.
            for (int k = 1; k <= s.stage_order(); ++k) CHECK(StageOrderDefect(t, k) < 1e-12);
            CHECK(StageOrderDefect(t, s.stage_order() + 1) > 1e-6);
            // |R(-inf)| = rho_inf (0 for the L-stable DIRKs), from the stage recursion and
            // from the template's R(z) at large |z|.
            const double expected = m.tunable ? rho : 0.0;
            CHECK(std::abs(std::abs(RInfinity(t)) - expected) < 1e-12);
            CHECK(std::abs(std::abs(StageNBase::StabilityFunction(t, -1e9)) - expected) < 1e-7);
            CHECK(std::abs(StageNBase::StabilityFunction(t, 0.0) - 1.0) < 1e-15);
            const Eigen::MatrixXcd A1 = s.AmplificationMatrix(-0.3, rho);
            CHECK(A1.rows() == 1);
            CHECK(std::abs(A1(0, 0) - StageNBase::StabilityFunction(t, -0.3)) < 1e-15);
            // A-stability: |R(i y)| <= 1 on a logarithmic grid of the imaginary axis (the
            // poles are in the right half plane, so the maximum principle gives the rest).
            double worst = 0.0;
            for (double e = -3.0; e <= 5.0; e += 0.01)
                worst = std::max(
                    worst, std::abs(StageNBase::StabilityFunction(t, {0.0, std::pow(10.0, e)})));
            CHECK(worst <= 1.0 + 1e-12);
        }
    }
}

TEST_CASE("MSSTC: the amplitude of the undamped oscillator is exact to theta^(2n-1)") {
    // The defining equations of msstc.cpp (5): |R(i theta)|^2 = 1 + O(theta^2n). Checked on
    // the Taylor coefficients r_k = b^T A^(k-1) 1 of R: a_2m = (-1)^m sum (-1)^l r_k r_l.
    const Registry& reg = GlobalRegistry();
    for (int n : {3, 4, 5}) {
        for (int k = 0; k <= 10; ++k) {
            const double rho = k / 10.0;
            auto integ =
                MakeIntegrator("msstc" + std::to_string(n) + ", " + std::to_string(rho), reg);
            const EsdirkTableau t = AsStage(integ).Tableau(rho);
            std::vector<double> r(2 * n + 1);
            Eigen::VectorXd v = Eigen::VectorXd::Ones(t.c.size());
            r[0] = 1.0;
            for (int q = 1; q <= 2 * n; ++q) {
                r[q] = t.a.row(t.a.rows() - 1).dot(v);
                v = t.a * v;
            }
            INFO("msstc", n, " rho_inf ", rho);
            for (int m = 2; m <= n; ++m) {
                double a = 0.0;
                for (int q = 0; q <= 2 * m; ++q)
                    a += ((2 * m - q) % 2 ? -1.0 : 1.0) * r[q] * r[2 * m - q];
                if (m < n) {
                    CHECK(std::abs(a) < 1e-13);
                } else if (k < 10) {
                    CHECK(std::abs(a) > 1e-12);  // exactly that far
                }
            }
            // R(-inf) = (-1)^n rho_inf.
            CHECK(RInfinity(t) == doctest::Approx((n % 2 ? -1.0 : 1.0) * rho).epsilon(1e-12));
        }
    }
}

TEST_CASE("tableaus at rho_inf 0 and 0.6 match MBDyn's (tests/data/mbdyn-multistage-tableaus.md)") {
    // MBDyn's multistagestepsol_impl.cc evaluated at rho_inf 0 and 0.6 (origin: the file's header).
    const std::string path = MBSTEP_SOURCE_DIR "/tests/data/mbdyn-multistage-tableaus.md";
    std::ifstream f(path);
    REQUIRE_MESSAGE(f.good(), "cannot read " << path);
    const std::map<std::string, std::string> names = {
        {"TunableBatheSolver", "Bathe"}, {"Msstc3Solver", "msstc3"}, {"Msstc4Solver", "msstc4"},
        {"Msstc5Solver", "msstc5"},      {"Mssth3Solver", "mssth3"}, {"Mssth4Solver", "mssth4"},
        {"Mssth5Solver", "mssth5"},      {"DIRK33Solver", "DIRK33"}, {"DIRK43Solver", "DIRK43"},
        {"DIRK54Solver", "DIRK54"}};
    const std::regex head(R"(\*\*(\w+), rho_inf = ([0-9.]+)\*\*)");
    const Registry& reg = GlobalRegistry();
    std::string line, method;
    double rho = 0.0;
    EsdirkTableau t;
    int compared = 0;
    while (std::getline(f, line)) {
        std::smatch mm;
        if (std::regex_search(line, mm, head)) {
            method = names.at(mm[1]);
            rho = std::stod(mm[2]);
            const bool tunable = method.rfind("DIRK", 0) != 0;
            auto integ =
                MakeIntegrator(tunable ? method + ", " + std::to_string(rho) : method, reg);
            t = AsStage(integ).Tableau(rho);
            continue;
        }
        if (line.rfind("| ", 0) != 0 || line.rfind("| stage", 0) == 0 || method.empty()) continue;
        // | stage | c_s | a_s0 | a_s1 | ...
        std::vector<double> v;
        std::stringstream ss(line);
        std::string cell;
        std::getline(ss, cell, '|');
        while (std::getline(ss, cell, '|')) {
            if (cell.find_first_not_of(" ") == std::string::npos) continue;
            v.push_back(std::stod(cell));
        }
        const int i = static_cast<int>(v[0]);
        INFO(method, " rho_inf ", rho, " stage ", i);
        // 15 significant digits printed; MBDyn evaluates its closed forms, we solve the defining
        // conditions: agreement to 1e-12 relative to the entry (entries reach 25 for mssth5).
        CHECK(std::abs(t.c[i] - v[1]) < 1e-12 * std::max(1.0, std::abs(v[1])));
        for (size_t j = 2; j < v.size(); ++j)
            CHECK(std::abs(t.a(i, j - 2) - v[j]) < 1e-12 * std::max(1.0, std::abs(v[j])));
        ++compared;
    }
    CHECK(compared == 64);  // sum over the 20 tables of their implicit stages
}

TEST_CASE("stage predictors: Hermite extrapolation equals eqs. (14) and (17) and is exact") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(0.3, 3.0), C(-1.0, 1.0);
    for (int trial = 0; trial < 20; ++trial) {
        const double a1 = U(rng), a2 = U(rng);
        // Eq. (14), two points at tau = -1, -1 - 1/alpha (units of t_N - t_{N-1}).
        Eigen::VectorXd tau2(2);
        tau2 << -1.0, -1.0 - 1.0 / a1;
        const Eigen::VectorXd w2 = HermiteExtrapolation(tau2);
        const double m0 = -6.0 * a1 * a1 * (1.0 + a1);
        CHECK(w2[0] == doctest::Approx(m0).epsilon(1e-10));
        CHECK(w2[1] == doctest::Approx(-m0).epsilon(1e-10));
        CHECK(w2[2] == doctest::Approx((1.0 + a1) * (1.0 + 3.0 * a1)).epsilon(1e-10));
        CHECK(w2[3] == doctest::Approx(a1 * (2.0 + 3.0 * a1)).epsilon(1e-10));
        // Eq. (17), three points.
        Eigen::VectorXd tau3(3);
        tau3 << -1.0, -1.0 - 1.0 / a1, -1.0 - 1.0 / a1 - 1.0 / a2;
        const Eigen::VectorXd w3 = HermiteExtrapolation(tau3);
        const double s = a1 + a2, A1 = a1, A2 = a2;
        const double e0 =
            -2.0 * A1 * A1 * (1 + A1) / (s * s * s) *
            (5 * A1 * A1 * A1 * A2 * A2 + 8 * A1 * A1 * A1 * A2 + 10 * A1 * A1 * A2 * A2 * A2 +
             3 * A1 * A1 * A1 + 25 * A1 * A1 * A2 * A2 + 13 * A1 * A1 * A2 +
             20 * A1 * A2 * A2 * A2 + 20 * A1 * A2 * A2 + 10 * A2 * A2 * A2);
        const double e1 = 2.0 * (1 + A1) / A1 *
                          (5 * A1 * A1 * A1 * A2 * A2 + 8 * A1 * A1 * A1 * A2 + 3 * A1 * A1 * A1 -
                           5 * A1 * A1 * A2 * A2 * A2 + A1 * A1 * A2 * A2 + 4 * A1 * A1 * A2 -
                           7 * A1 * A2 * A2 * A2 - A1 * A2 * A2 - 2 * A2 * A2 * A2);
        const double f0 = (1 + A1) / (s * s) *
                          (5 * A1 * A1 * A1 * A2 * A2 + 8 * A1 * A1 * A1 * A2 + 3 * A1 * A1 * A1 +
                           11 * A1 * A1 * A2 * A2 + 10 * A1 * A1 * A2 + A1 * A1 + 7 * A1 * A2 * A2 +
                           2 * A1 * A2 + A2 * A2);
        const double f1 = 1.0 / A1 *
                          (5 * A1 * A1 * A1 * A2 * A2 + 8 * A1 * A1 * A1 * A2 + 3 * A1 * A1 * A1 +
                           12 * A1 * A1 * A2 * A2 + 12 * A1 * A1 * A2 + 2 * A1 * A1 +
                           9 * A1 * A2 * A2 + 4 * A1 * A2 + 2 * A2 * A2);
        const double f2 = A2 * A2 * A2 * (1 + A1) / (A1 * s * s) *
                          (2 * A1 + 2 * A2 + 7 * A1 * A2 + 5 * A1 * A1 * A2 + 4 * A1 * A1);
        INFO("alpha1 ", a1, " alpha2 ", a2);
        CHECK(w3[0] == doctest::Approx(e0).epsilon(1e-9));
        CHECK(w3[1] == doctest::Approx(e1).epsilon(1e-9));
        CHECK(w3[2] == doctest::Approx(-e0 - e1).epsilon(1e-9));
        CHECK(w3[3] == doctest::Approx(f0).epsilon(1e-9));
        CHECK(w3[4] == doctest::Approx(f1).epsilon(1e-9));
        CHECK(w3[5] == doctest::Approx(f2).epsilon(1e-9));
        // Exactness: the fourth-order predictor on a random quartic (and quintic), the second
        // order one on a random cubic, with a physical step dt.
        const double dt = 0.37, tN = 1.3;
        for (int deg : {3, 4, 5}) {
            std::vector<double> cf(deg + 1);
            for (double& x : cf) x = C(rng);
            auto y = [&](double t) {
                double v = 0.0;
                for (int k = deg; k >= 0; --k) v = v * t + cf[k];
                return v;
            };
            auto yp = [&](double t) {
                double v = 0.0;
                for (int k = deg; k >= 1; --k) v = v * t + k * cf[k];
                return v;
            };
            auto apply = [&](const Eigen::VectorXd& tau, const Eigen::VectorXd& w) {
                const int np = static_cast<int>(tau.size());
                double v = 0.0;
                for (int j = 0; j < np; ++j) {
                    const double tj = tN + tau[j] * dt;
                    v += w[j] * y(tj) / dt + w[np + j] * yp(tj);
                }
                return v;
            };
            const double scale = 1.0 + std::abs(yp(tN));
            if (deg <= 3) CHECK(std::abs(apply(tau2, w2) - yp(tN)) < 1e-10 * scale);
            CHECK(std::abs(apply(tau3, w3) - yp(tN)) < 1e-9 * scale);
        }
    }
}

TEST_CASE("esdirk: bad rho_inf is rejected with the accepted values, names are case-insensitive") {
    const Registry& reg = GlobalRegistry();
    CHECK_THROWS_WITH_AS(MakeIntegrator("Bathe, 1.5", reg), doctest::Contains("[0, 1]"), DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("msstc3, -0.1", reg), doctest::Contains("[0, 1]"),
                         DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("msstc4, 0.55", reg), doctest::Contains("0, 0.1, 0.2"),
                         DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("mssth3, 0.25", reg), doctest::Contains("0, 0.1, 0.2"),
                         DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("mssth4, 0.3", reg), doctest::Contains("0, 0.6, 1"),
                         DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("mssth5, 0.7", reg), doctest::Contains("0, 0.6, 1"),
                         DeckError);
    CHECK_NOTHROW(MakeIntegrator("bathe, 0.55", reg));
    CHECK_NOTHROW(MakeIntegrator("dirk54", reg));
    CHECK_NOTHROW(MakeIntegrator("MSSTC5, 0.3", reg));
    // The tableau function itself refuses off-grid values (a drive may produce them).
    auto integ = MakeIntegrator("msstc3, 0.3", reg);
    CHECK_THROWS_WITH_AS(AsStage(integ).Tableau(0.35), doctest::Contains("accepted values"),
                         RunError);
}
