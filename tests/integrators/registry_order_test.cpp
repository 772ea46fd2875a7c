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
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/linear_problem.hpp"

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
