// The Newton residual test on a model far from the origin: a position constraint's residual
// -phi/(b0 h) cannot go below ~eps |x| / (b0 h) (the positions are stored to eps |x|), which
// grows with the model's extent (the 100000-link chain reaches |x| = 2e5 m). A 20-link chain
// hung 1e6 m from the origin has that floor (~4e-7) far above the deck's tolerance 1e-8: the
// run completes with about two Newton iterations per step, as the same chain at the origin
// does, because once the residual stalls each equation counts only with what exceeds its
// round-off bound (newton.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {

RunResult RunText(const std::string& text, const std::string& name) {
    const std::filesystem::path p = std::filesystem::temp_directory_path() / name;
    {
        std::ofstream f(p);
        f << text;
    }
    RunResult r = RunDeck(p.string(), "", 0.0, 0.0);
    std::filesystem::remove(p);
    return r;
}

}  // namespace

TEST_CASE("Newton: a tolerance below the round-off floor of far-off constraints is met") {
    // ChainDeckText's chain with every position shifted by y0 along y, the direction in which
    // gravity moves it (so that the positions' rounding enters the constraints from the first
    // step).
    RunResult at_origin, far;
    REQUIRE_NOTHROW(at_origin =
                        RunText(ChainDeckText(20, "", 0.02, 0.0), "mbstep_roundoff_origin.mbd"));
    REQUIRE(at_origin.summary.completed);
    // Before: "no convergence after 20 iterations: residual ~1e-6 (tolerance 1e-08) ... near
    // its round-off level".
    REQUIRE_NOTHROW(far = RunText(ChainDeckText(20, "", 0.02, 1e6), "mbstep_roundoff_far.mbd"));
    REQUIRE(far.summary.completed);
    CHECK(far.summary.steps == 20);
    // Not by many extra iterations: the test waits for the residual to stall before it grants
    // the round-off, at most one iteration per step more than at the origin (2 per step there;
    // measured 41 against 40 over the 20 steps).
    CHECK(far.summary.iterations <= at_origin.summary.iterations + far.summary.steps);
    CHECK(far.summary.iterations >= at_origin.summary.iterations);
    // The same motion: node 20's displacement agrees to the positions' resolution.
    const Vec3 d0 = at_origin.final_states[19].x - Vec3(0.0, 0.0, -39.0);
    const Vec3 d1 = far.final_states[19].x - Vec3(0.0, 1e6, -39.0);
    CHECK((d0 - d1).norm() < 1e-8);
}
