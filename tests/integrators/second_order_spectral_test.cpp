// The linear analysis of the second-order methods and of the explicit Runge-Kutta tableaus
// behind `mbstep analyze` (mbstep/analysis/linear_analysis.hpp (8), (9)), against closed forms:
//
//   (a) the amplification matrix identified by stepping a method on the linear oscillator has
//       the eigenvalues of the matrix of the generalized-alpha recurrence written out by hand
//       [Chung & Hulbert 1993, eqs. (2)-(5) with the undamped single-dof model]:
//         (1 - am) a1 + am a0 + w^2 ((1 - af) x1 + af x0) = 0,
//         x1 = x0 + h v0 + h^2 ((1/2 - beta) a0 + beta a1),  v1 = v0 + h ((1 - gamma) a0 +
//         gamma a1);
//       HHT-alpha [Hilber, Hughes, Taylor 1977, eqs. (5), (6)] is am = 0, af = -alpha,
//       beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha.
//   (b) the trapezoidal rule (Newmark beta = 1/4, gamma = 1/2: `hht, 0`, `generalized alpha, 1`)
//       conserves the amplitude, rho = 1, and its period error is PE = Omega / (2 atan(Omega /
//       2)) - 1 [Hilber, Hughes, Taylor 1977, section 3], Omega = w h.
//   (c) generalized alpha: rho(Omega -> inf) = rho_inf as requested, rho(Omega -> 0) = 1, period
//       error ~ Omega^2 and damping ratio ~ Omega^3 (second order) [Chung & Hulbert 1993,
//       eqs. (17), (20), (25)]; HHT: rho_inf = (1 + alpha) / (1 - alpha) [Hilber, Hughes,
//       Taylor 1977, section 3].
//   (d) explicit RK: R(z) of rk44 is the degree-4 Taylor polynomial of exp(z); explicit Euler's
//       stability interval on the negative real axis ends at -2; stepping rk44 on the oscillator
//       gives the eigenvalues R(+-i Omega).
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>

#include "mbstep/analysis/linear_analysis.hpp"
#include "mbstep/integrator/butcher_tableau.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::unique_ptr<Integrator> Make(const std::string& text) {
    return MakeIntegrator(text, GlobalRegistry());
}

std::vector<std::complex<double>> Sorted(const Eigen::VectorXcd& v) {
    std::vector<std::complex<double>> out(v.data(), v.data() + v.size());
    std::sort(out.begin(), out.end(), [](auto a, auto b) {
        return std::abs(a) != std::abs(b) ? std::abs(a) < std::abs(b) : a.imag() < b.imag();
    });
    return out;
}

// (a): the generalized-alpha matrix over (x, h v, h^2 a), written out with h = 1.
Eigen::Matrix3d GeneralizedAlphaMatrix(double am, double af, double beta, double gamma, double w) {
    // Unknown a1 from the equilibrium with x1 = x0 + v0 + (1/2 - beta) a0 + beta a1.
    const double w2 = w * w;
    const double den = (1.0 - am) + w2 * (1.0 - af) * beta;
    Eigen::RowVector3d a1;  // a1 as a function of (x0, v0, a0)
    a1 << -w2 / den, -w2 * (1.0 - af) / den, -(am + w2 * (1.0 - af) * (0.5 - beta)) / den;
    Eigen::Matrix3d A;
    A.row(0) << 1.0, 1.0, 0.5 - beta;
    A.row(0) += beta * a1;
    A.row(1) << 0.0, 1.0, 1.0 - gamma;
    A.row(1) += gamma * a1;
    A.row(2) = a1;
    return A;
}

std::vector<std::complex<double>> StepRoots(const std::string& method, double omega) {
    const auto integ = Make(method);
    const Eigen::MatrixXd A = analysis::SecondOrderAmplification(*integ, omega);
    return Sorted(Eigen::EigenSolver<Eigen::MatrixXd>(A, false).eigenvalues());
}

double StepRadius(const std::string& method, double omega) {
    double r = 0.0;
    for (const auto& mu : StepRoots(method, omega)) r = std::max(r, std::abs(mu));
    return r;
}

analysis::OscillatorCurve Curve(const std::string& method, const std::vector<double>& x) {
    const auto integ = Make(method);
    analysis::OscillatorCurve c;
    c.method = method;
    Integrator& m = *integ;
    return analysis::AnalyzeOscillator(
        [&m](std::complex<double> z) {
            return Eigen::MatrixXcd(
                analysis::SecondOrderAmplification(m, std::abs(z)).cast<std::complex<double>>());
        },
        c, x);
}

}  // namespace

TEST_CASE("stepped amplification matrices: the roots of the hand-written recurrence") {
    struct Case {
        std::string method;
        double am, af, beta, gamma;
    };
    std::vector<Case> cases;
    for (double rho : {0.0, 0.5, 0.9, 1.0}) {
        // [Chung & Hulbert 1993, eqs. (25), (17), (20)]
        const double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1);
        const double gamma = 0.5 - am + af;
        cases.push_back({"generalized alpha, " + std::to_string(rho), am, af,
                         0.25 * (gamma + 0.5) * (gamma + 0.5), gamma});
    }
    for (double alpha : {0.0, -0.1, -0.3}) {
        const double beta = 0.25 * (1 - alpha) * (1 - alpha), gamma = 0.5 - alpha;
        cases.push_back({"hht, " + std::to_string(alpha), 0.0, -alpha, beta, gamma});
        cases.push_back(
            {"hht, " + std::to_string(alpha) + ", arnold bruls", 0.0, -alpha, beta, gamma});
    }
    for (const auto& c : cases)
        for (double w : {1e-3, 0.1, 1.0, 3.0, 30.0, 1e3}) {
            INFO(c.method << " at Omega = " << w);
            const auto want =
                Sorted(Eigen::EigenSolver<Eigen::Matrix3d>(
                           GeneralizedAlphaMatrix(c.am, c.af, c.beta, c.gamma, w), false)
                           .eigenvalues());
            const auto got = StepRoots(c.method, w);
            // Every identified root is a root of the recurrence; the roots the outputs see
            // include the principal pair (the two largest for these methods).
            REQUIRE(got.size() >= 2);
            for (const auto& mu : got) {
                double d = 1e300;
                for (const auto& nu : want) d = std::min(d, std::abs(mu - nu));
                CHECK(d < 1e-7);
            }
            CHECK(std::abs(std::abs(got.back()) - std::abs(want.back())) < 1e-9);
        }
}

TEST_CASE("trapezoidal rule (Newmark 1/4, 1/2): rho = 1 and the closed-form period error") {
    const std::vector<double> x = analysis::LogGrid({1e-3, 1e2, 51});
    for (const std::string method : {"hht, 0", "generalized alpha, 1"}) {
        INFO(method);
        const auto c = Curve(method, x);
        REQUIRE(c.points.size() == x.size());
        for (const auto& p : c.points) {
            const double w = 2 * kPi * p.h_over_nT;
            INFO("Omega = " << w);
            CHECK(std::abs(p.spectral_radius - 1.0) < 1e-9);
            CHECK(std::abs(p.ad_percent) < 1e-6);
            const double pe = 100.0 * (w / (2.0 * std::atan(w / 2.0)) - 1.0);
            CHECK(std::abs(p.pe_percent - pe) < 1e-6 * std::max(1.0, pe));
        }
    }
}

TEST_CASE("generalized alpha: rho(inf) = rho_inf, rho(0) = 1, second-order errors") {
    const std::vector<double> x = analysis::LogGrid({1e-3, 1e-1, 21});
    for (double rho : {0.0, 0.3, 0.6, 0.9}) {
        const std::string method = "generalized alpha, " + std::to_string(rho);
        INFO(method);
        // The triple root -rho_inf at infinity [Chung & Hulbert 1993, section 3: the principal
        // pair and the spurious root alpha_f / (alpha_f - 1) = -rho_inf meet there] is
        // perturbed by (1 / Omega^2)^(1/3) (at rho_inf = 0 the roots 0 move faster).
        const double d6 = std::abs(StepRadius(method, 1e6) - rho);
        const double d7 = std::abs(StepRadius(method, 1e7) - rho);
        CHECK(d6 < 3e-4);
        if (rho > 0)
            CHECK(d7 / d6 == doctest::Approx(std::pow(10.0, -2.0 / 3.0)).epsilon(0.1));
        else
            CHECK(d7 < d6 * std::pow(10.0, -2.0 / 3.0));
        CHECK(std::abs(StepRadius(method, 1e-4) - 1.0) < 1e-8);
        const auto c = Curve(method, x);
        std::vector<double> pe, ad;
        for (const auto& p : c.points) {
            pe.push_back(p.pe_percent);
            ad.push_back(p.ad_percent);
        }
        CHECK(analysis::LogLogSlope(x, pe, 1e-3, 1e-2) == doctest::Approx(2.0).epsilon(0.03));
        if (rho < 1.0)
            CHECK(analysis::LogLogSlope(x, ad, 1e-3, 1e-2) == doctest::Approx(3.0).epsilon(0.03));
    }
}

TEST_CASE("HHT: rho_inf = (1 + alpha) / (1 - alpha)") {
    for (double alpha : {-0.05, -0.1, -0.2, -1.0 / 3.0})
        for (const std::string variant : {"", ", arnold bruls"}) {
            const std::string method = "hht, " + std::to_string(alpha) + variant;
            INFO(method);
            // A double root at infinity, perturbed by O(1 / Omega); at alpha = -1/3 the spurious
            // root meets it there (a triple root, perturbed by O(Omega^(-2/3))).
            const double expected = (1 + alpha) / (1 - alpha);
            // (Between 1e5 and 1e6: HHT's round-off, ~1e-12 Omega, is below the deviation.)
            const double d5 = std::abs(StepRadius(method, 1e5) - expected);
            const double d6 = std::abs(StepRadius(method, 1e6) - expected);
            const double rate = alpha > -0.3 ? -1.0 : -2.0 / 3.0;
            CHECK(d6 < (alpha > -0.3 ? 1e-5 : 3e-4));
            CHECK(d6 / d5 == doctest::Approx(std::pow(10.0, rate)).epsilon(0.15));
        }
}

TEST_CASE("explicit Runge-Kutta: stability functions") {
    const auto rk4 = Make("rk44");
    const ButcherTableau* t = ButcherTableauOf(*rk4);
    REQUIRE(t != nullptr);
    for (std::complex<double> z :
         {std::complex<double>(-1.0, 0.0), {0.3, 2.0}, {-2.5, 1.0}, {0.0, 2.8}, {1e-3, -1e-3}}) {
        INFO(z);
        const std::complex<double> taylor =
            1.0 + z + z * z / 2.0 + z * z * z / 6.0 + z * z * z * z / 24.0;
        CHECK(std::abs(analysis::StabilityFunction(*t, z) - taylor) < 1e-14 * std::abs(taylor));
    }
    const auto euler = Make("explicit euler");
    const ButcherTableau* te = ButcherTableauOf(*euler);
    REQUIRE(te != nullptr);
    CHECK(std::abs(std::abs(analysis::StabilityFunction(*te, -2.0)) - 1.0) < 1e-15);
    CHECK(std::abs(analysis::StabilityFunction(*te, -2.0 + 1e-6)) < 1.0);
    CHECK(std::abs(analysis::StabilityFunction(*te, -2.0 - 1e-6)) > 1.0);
    // Stepping rk44 on the oscillator: the eigenvalues R(+-i Omega).
    for (double w : {0.1, 1.0, 2.5}) {
        INFO("Omega = " << w);
        const auto roots = StepRoots("rk44", w);
        REQUIRE(roots.size() == 2);
        const std::complex<double> r = analysis::StabilityFunction(*t, {0.0, w});
        for (const auto& mu : roots)
            CHECK(std::min(std::abs(mu - r), std::abs(mu - std::conj(r))) < 1e-12);
    }
}

TEST_CASE("second-order analysis: a method that refuses the oscillator is named") {
    const auto integ = Make("hht, -0.1, modified");  // needs Euler parameters
    CHECK_THROWS_WITH_AS(analysis::SecondOrderAmplification(*integ, 1.0),
                         doctest::Contains("Euler parameters"), RunError);
}

namespace {

std::vector<std::complex<double>> NodeRoots(const std::string& method,
                                            const std::string& formulation, double omega) {
    const Eigen::MatrixXd A =
        analysis::SecondOrderAmplificationOnNodes(method, formulation, GlobalRegistry(), omega);
    if (!A.allFinite()) return {};
    return Sorted(Eigen::EigenSolver<Eigen::MatrixXd>(A, false).eigenvalues());
}

double Distance(const std::vector<std::complex<double>>& got,
                const std::vector<std::complex<double>>& want) {
    double worst = 0.0;
    for (const auto& mu : got) {
        double d = 1e300;
        for (const auto& nu : want) d = std::min(d, std::abs(mu - nu));
        worst = std::max(worst, d);
    }
    return worst;
}

}  // namespace

// (8') Methods that need structural nodes, identified on two bodies joined by a rod:
//   the modified HHT on `euler parameters` has the roots of HHT (a)-(b) (its velocity update
//   differs only for rotations); `eml` on a quadratic potential is the trapezoidal (midpoint)
//   rule: mu = (1 + i Omega / 2) / (1 - i Omega / 2) and conjugate [Kinon & Betsch 2024, the
//   scheme (72) with constant mass]; `half implicit` is the symplectic Euler method on
//   x'' + w^2 x = 0, mu^2 - (2 - Omega^2) mu + 1 = 0 [Fang, Kissel, Zhang, Negrut 2023, eqs.
//   (4a)-(4d) without constraints], stable up to Omega = 2; `generalized alpha` on `lie group`
//   has the roots it has on the oscillator.
TEST_CASE("second-order analysis on structural nodes: closed-form roots") {
    for (double w : {1e-3, 0.1, 1.0, 3.0, 30.0, 1e3}) {
        INFO("Omega = " << w);
        const double am = 0.0, af = 0.1, beta = 0.25 * 1.1 * 1.1, gamma = 0.6;
        const auto want = Sorted(Eigen::EigenSolver<Eigen::Matrix3d>(
                                     GeneralizedAlphaMatrix(am, af, beta, gamma, w), false)
                                     .eigenvalues());
        const auto got = NodeRoots("hht, -0.1, modified", "euler parameters", w);
        REQUIRE(got.size() >= 2);
        CHECK(Distance(got, want) < 1e-7);
        CHECK(std::abs(std::abs(got.back()) - std::abs(want.back())) < 1e-9);
        const auto ga = NodeRoots("generalized alpha, 0.6", "lie group", w);
        REQUIRE(ga.size() >= 2);
        CHECK(Distance(ga, StepRoots("generalized alpha, 0.6", w)) < 1e-7);
    }
    for (double w : {1e-3, 0.1, 1.0, 5.0}) {
        INFO("eml, Omega = " << w);
        const std::complex<double> mu =
            std::complex<double>(1.0, 0.5 * w) / std::complex<double>(1.0, -0.5 * w);
        const auto got = NodeRoots("eml", "euler parameters", w);
        REQUIRE(got.size() == 2);
        CHECK(Distance(got, {mu, std::conj(mu)}) < 1e-8);
    }
    for (double w : {1e-3, 0.1, 1.0, 1.9}) {
        INFO("half implicit, Omega = " << w);
        const double b = 2.0 - w * w;  // mu = (b +- i sqrt(4 - b^2)) / 2
        const std::complex<double> mu(0.5 * b, 0.5 * std::sqrt(4.0 - b * b));
        const auto got = NodeRoots("half implicit", "lie group", w);
        REQUIRE(got.size() == 2);
        CHECK(Distance(got, {mu, std::conj(mu)}) < 1e-8);
    }
    // Beyond its stability limit the explicit method's growth cannot be identified: NaN.
    CHECK(NodeRoots("half implicit", "lie group", 20.0).empty());
    // A method the model's formulation cannot run is named, not reported as NaN.
    CHECK_THROWS_AS(NodeRoots("eml", "lie group", 1.0), RunError);
}
