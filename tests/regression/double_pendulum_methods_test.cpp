// The half-implicit paper's double pendulum (examples/double-pendulum; its ms test against
// the independent planar reference is in stepn_physics_test.cpp) with ms, ms3 and Bathe: the
// CoM positions at t = 1 against the same reference, and the position-level constraint
// residual at every step.
#include <doctest/doctest.h>

#include <cmath>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

TEST_CASE("double pendulum with ms, ms3 and Bathe: reference at t = 1, no constraint drift") {
    const std::string deck = SourcePath("examples/double-pendulum/double-pendulum.mbd");
    // Independent planar reference (examples/double-pendulum/README.md: the compound double
    // pendulum with the 3-D bar inertia, DOP853 at rtol 1e-13), t = 1: CoM (y, z) of both bars.
    const Vec3 c1(0.0, 0.16807258586696044, -1.992925388939584);
    const Vec3 c2(0.0, 1.3129965652368978, -4.19976981632898);
    for (const std::string m : {"ms, 0.6", "ms3, 0.6", "Bathe, 0.6"}) {
        INFO(m);
        std::vector<double> err;
        double drift = 0.0;
        for (double h : {4e-4, 2e-4}) {
            const RunResult r = RunDeck(deck, m, h, 1.0, [&](double, const Formulation& f) {
                drift = std::max(drift, f.ComputeInvariants().constraint_violation);
            });
            REQUIRE(r.summary.completed);
            const auto& s = r.final_states;
            err.push_back(std::max((s[0].x - c1).norm(), (s[1].x - c2).norm()));
            MESSAGE(m, " h = ", h, ": CoM error ", err.back(), ", constraint residual ", drift);
        }
        const auto p = Orders(err);
        MESSAGE(m, ": order ", Join(p));
        // Measured at h = 2e-4: 4.7e-7 (ms), 4.2e-7 (ms3), 2.1e-7 m (Bathe), 4x less than at
        // 4e-4 (orders 2.000, 2.000, 2.009); the reference is good to 1e-10.
        CHECK(err.back() < 1e-6);
        CHECK(std::abs(p.back() - 2.0) <= 0.1);
        // The deck's Newton tolerance is 1e-8 on rows scaled by 1/(b0 h): largest residual over
        // every step 8.9e-13 m (LMS) and 5.6e-14 m (Bathe), no growth.
        CHECK(drift < 1e-11);
    }
}
