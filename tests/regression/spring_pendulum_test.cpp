// Nonlinear spring pendulum in spherical coordinates (examples/spring-pendulum; P.L. Kinon,
// P. Betsch, Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9, sect. 5.2): a
// configuration-dependent mass matrix through the `lagrangian` genel on the `cgr` family's
// momentum form. Checks: the declared order of first-order methods against an independent
// reference, the conservation of the cyclic momentum p_phi, the energy error.
//
// Reference: the Lagrange equations solved for the accelerations (M = diag(m, m l^2,
// m l^2 sin^2 theta) is invertible along the motion), integrated here by the classical
// Runge-Kutta method with 100000 steps over [0, 1] — no mbstep code involved. It agrees with a
// DOP853 solution (rtol 1e-13) of the same equations to 1e-13 at t = 1.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <string>

#include "support/livens_references.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

const std::string kDeck = test::SourcePath("examples/spring-pendulum/deck.mbd");

using State = std::array<double, 6>;  // l, theta, phi and their rates

/// The state at t = 1: m = 1, EA = 300, l0 = 1, g = 0 (support/livens_references.hpp).
State Reference() { return test::SpringPendulumReference(); }

struct Result {
    double error{0.0};         ///< max over the state at t = 1
    double p_phi_error{0.0};   ///< max |m l^2 sin^2(theta) phi' - 1.1025| over the steps
    double energy_error{0.0};  ///< max |T + V - 1.496484375| over the steps
};

Result RunMethod(const std::string& method, double h) {
    static const State ref = Reference();
    Result r;
    State last{};
    const test::RunResult run =
        test::RunDeck(kDeck, method, h, 0.0, [&](double, const Formulation& f) {
            const auto& s = f.abstract_states();
            const double st = std::sin(s[1].x);
            r.p_phi_error =
                std::max(r.p_phi_error, std::abs(s[0].x * s[0].x * st * st * s[2].xp - 1.1025));
            const Invariants inv = f.ComputeInvariants();
            r.energy_error =
                std::max(r.energy_error, std::abs(inv.kinetic + inv.potential - 1.496484375));
            last = {s[0].x, s[1].x, s[2].x, s[0].xp, s[1].xp, s[2].xp};
        });
    REQUIRE(run.summary.completed);
    for (int j = 0; j < 6; ++j) r.error = std::max(r.error, std::abs(last[j] - ref[j]));
    return r;
}

}  // namespace

TEST_CASE("spring pendulum: the reference agrees with the published DOP853 values") {
    const State ref = Reference();
    CHECK(ref[0] == doctest::Approx(1.0239908361878183).epsilon(1e-12));
    CHECK(ref[1] == doctest::Approx(2.355977500928156).epsilon(1e-12));
    CHECK(ref[2] == doctest::Approx(1.541337346279512).epsilon(1e-12));
    CHECK(ref[3] == doctest::Approx(0.7054769363623348).epsilon(1e-11));
    CHECK(ref[5] == doctest::Approx(2.1019772921890385).epsilon(1e-12));
}

TEST_CASE("spring pendulum: declared order, cyclic momentum and energy of first-order methods") {
    struct Case {
        const char* method;
        double h;             // the order is measured between h and h/2
        double energy_bound;  // of the energy error at h/2 (measured, rounded up)
    };
    for (const Case& c : {Case{"ms, 0.6", 0.005, 2e-5}, Case{"Bathe", 0.005, 1e-5},
                          Case{"DIRK33", 0.01, 2e-4}, Case{"DIRK54", 0.02, 1e-7}}) {
        const double declared = test::DeclaredOrder(c.method);
        const Result coarse = RunMethod(c.method, c.h);
        const Result fine = RunMethod(c.method, c.h / 2);
        const double order = std::log2(coarse.error / fine.error);
        INFO(std::string(c.method)
             << ": errors " << coarse.error << ", " << fine.error << "; order " << order
             << " (declared " << declared << "); p_phi " << fine.p_phi_error << "; energy error "
             << coarse.energy_error << ", " << fine.energy_error);
        CHECK(std::abs(order - declared) <= 0.2);
        CHECK(fine.p_phi_error <= 1e-9);
        CHECK(fine.energy_error < coarse.energy_error);
        CHECK(fine.energy_error <= c.energy_bound);
    }
}
