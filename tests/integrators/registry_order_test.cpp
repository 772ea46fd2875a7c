// Registry-driven convergence order of every first-order method on the linear oscillator
// (STYLE.md §8): x'' + w^2 x = 0 as y' = A y (tests/support/linear_problem.hpp), one period,
// error of y(T) against the exact solution, p = log2(e(h) / e(h/2)).
//
// Declared order = Integrator::order(): 1 for implicit Euler, 2 for the LMS/SS/Bathe/MSSTC
// families, 3/4/5 for MSSTH3/4/5, 3 for DIRK33/DIRK43, 4 for DIRK54. Tolerance +-0.2 on the
// two finest halvings of the asymptotic range, where the next term of the error expansion is
// O(h) relative: with at least 64 steps per period (w h <= 0.1) the observed order of a
// one-sided expansion e = C h^p (1 + D h) deviates by ~log2(1 + D h / 2) < 0.1 for |D| < 1.5.
// Steps stop halving before the error reaches 1e-11 (round-off of y is ~1e-15 per step).
//
// Second test case: every Newmark-type method (a SecondOrderStep: hht and its variants,
// generalized alpha, any method added to the family), on the one-dof oscillator
// x'' + w^2 x = 0 and on every registered second-order formulation that accepts it (the rod
// model of mbstep/analysis/linear_analysis.hpp (8): two bodies on structural nodes whose
// stretch obeys the same equation). A(Omega) is identified from the method's own steps (8);
// its principal root mu_1 = exp(i Omega) (1 + C (i Omega)^(p+1) + ...) gives the error of one
// step, e_1 = |log mu_1 - i Omega|, and the error over a fixed time n e_1 ~ e_1 / Omega ~ Omega^p:
// p = log2(e(Omega) / e(Omega / 2)) with e = e_1 / Omega, at 64 .. 1024 steps per period (as
// above), the two finest halvings within +-0.2 of the declared order. The variants of a
// method are generated from its descriptor: the default, rho_inf in {0, 0.6, 1} if tunable,
// and each alternative of a keyword parameter (`hht, -0.1, modified`, `hht, -0.1, arnold
// bruls`). Constant mass matrix here: the first-order error of the paper form of `hht` with a
// q-dependent mass (hht.hpp) is tested in hht_test.cpp.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <complex>
#include <sstream>

#include "mbstep/analysis/linear_analysis.hpp"
#include "mbstep/common.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/second_order_step.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/linear_problem.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

TEST_CASE("every first-order method: measured order on the linear oscillator = declared +-0.2") {
    const Registry& reg = GlobalRegistry();
    const double w = 2.0 * kPi, tf = 1.0;  // one period
    const Eigen::Vector2d y0(1.0, 0.5);
    const Eigen::Vector2d exact = test::OscillatorExact(w, y0, tf);
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<FirstOrderIntegrator*>(probe.get())) continue;
        std::vector<std::string> texts;
        if (d.tunable)
            for (const char* rho : {"0", "0.6", "1"}) texts.push_back(d.name + ", " + rho);
        else
            texts.push_back(d.name);
        for (const std::string& text : texts) {
            INFO(text);
            auto integ = MakeIntegrator(text, reg);
            const int p = integ->order();
            // Errors at 64, 128, ... steps per period, down to 1e-11 or 4096 steps.
            std::vector<double> err;
            for (int n = 64; n <= 4096; n *= 2) {
                auto fresh = MakeIntegrator(text, reg);
                const Eigen::Vector2d y = test::IntegrateOscillator(*fresh, w, y0, tf, n);
                err.push_back((y - exact).norm());
                if (err.back() < 1e-11 || err.size() >= 5) break;
            }
            std::vector<double> orders;
            for (size_t i = 0; i + 1 < err.size(); ++i)
                orders.push_back(std::log2(err[i] / err[i + 1]));
            std::ostringstream os;
            for (size_t i = 0; i < err.size(); ++i)
                os << err[i] << (i < orders.size() ? " (" + std::to_string(orders[i]) + ") " : "");
            INFO("errors (orders): ", os.str());
            MESSAGE("linear oscillator ", text, ": declared ", p, ", measured ",
                    orders.empty() ? 0.0 : orders.back());
            REQUIRE(orders.size() >= 2);
            CHECK(std::abs(orders[orders.size() - 1] - p) <= 0.2);
            CHECK(std::abs(orders[orders.size() - 2] - p) <= 0.2);
            ++tested;
        }
    }
    CHECK(tested >= 13);
}

namespace {

// e(Omega) = |log mu_1 - i Omega| / Omega, mu_1 the eigenvalue of A nearest exp(i Omega).
double PrincipalRootError(const Eigen::MatrixXd& A, double omega) {
    const std::complex<double> exact = std::polar(1.0, omega);
    const Eigen::VectorXcd mu = Eigen::EigenSolver<Eigen::MatrixXd>(A).eigenvalues();
    std::complex<double> best = mu[0];
    for (int i = 1; i < mu.size(); ++i)
        if (std::abs(mu[i] - exact) < std::abs(best - exact)) best = mu[i];
    return std::abs(std::log(best) - std::complex<double>(0.0, omega)) / omega;
}

}  // namespace

TEST_CASE("every Newmark-type method, on every formulation: order on the oscillator +-0.2") {
    const Registry& reg = GlobalRegistry();
    std::vector<std::string> formulations{""};  // "": the one-dof model
    for (const auto& f : reg.formulations())
        if (f.provides == ProblemInterface::kSecondOrderDae) formulations.push_back(f.name);
    int tested = 0, methods = 0;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<SecondOrderStep*>(probe.get())) continue;
        ++methods;
        for (const std::string& text : test::MethodVariants(d, {"0", "0.6", "1"})) {
            for (const std::string& formulation : formulations) {
                const std::string where = formulation.empty() ? "oscillator" : formulation;
                INFO(text, " on ", where);
                std::vector<double> err;
                int p = 0;
                try {
                    for (int n = 64; n <= 1024; n *= 2) {
                        const double omega = 2.0 * kPi / n;
                        auto m = MakeIntegrator(text, reg);
                        p = m->order();
                        const Eigen::MatrixXd A =
                            formulation.empty() ? analysis::SecondOrderAmplification(*m, omega)
                                                : analysis::SecondOrderAmplificationOnNodes(
                                                      text, formulation, reg, omega);
                        err.push_back(PrincipalRootError(A, omega));
                    }
                } catch (const RunError&) {
                    CHECK(err.empty());  // the method or formulation refuses the model
                    continue;
                }
                std::vector<double> orders;
                for (size_t i = 0; i + 1 < err.size(); ++i)
                    orders.push_back(std::log2(err[i] / err[i + 1]));
                std::ostringstream os;
                for (size_t i = 0; i < err.size(); ++i)
                    os << err[i]
                       << (i < orders.size() ? " (" + std::to_string(orders[i]) + ") " : "");
                INFO("errors (orders): ", os.str());
                MESSAGE(text, " on ", where, ": declared ", p, ", measured ", orders.back());
                REQUIRE(orders.size() >= 2);
                CHECK(std::abs(orders[orders.size() - 1] - p) <= 0.2);
                CHECK(std::abs(orders[orders.size() - 2] - p) <= 0.2);
                ++tested;
            }
        }
    }
    CHECK(methods >= 2);
    CHECK(tested >= 15);
}
