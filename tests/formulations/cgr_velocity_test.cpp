// `cgr velocity` integrates the equations of `cgr` with the momenta eliminated from Newton, so
// both converge to the same discrete solution: on the heavy top, the double pendulum and the
// N = 10 chain, with `ms, 0.6`, `implicit euler` and `Bathe` (ESDIRK) at h = 1e-3 and Newton
// tolerance 1e-9, node positions, orientations and twists after 0.3 s agree
// - under `cgr velocity unscaled` (cgr's force rows; a stricter test than cgr's) to 1e-9
//   (measured 1e-15 .. 4e-11: the runs differ only by the per-step Newton residual);
// - under `cgr velocity` (impulse rows c (f - p'), as loose as cgr's momentum rows, fewer
//   iterations) to 100 x the tolerance (measured up to 2e-9 in R, 1.6e-7 in w of the top,
//   |w| ~ 100 rad/s).
// The Newton system is 6 per node + multipliers instead of cgr's 12 per dynamic node.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

// Newton residual tolerance (2-norm). `cgr velocity unscaled` computes beta' = (p(u) - history)
// / c, so its force and moment rows carry round-off eps |p| / c (c = b0 h): ~1.3e-10 on the
// heavy top with Bathe at h = 1e-3, where cgr's rows stay ~eps |p|; its residual test accepts a
// residual within that bound (CgrFormulation::ResidualNoise), see the last test case.
constexpr double kTolerance = 1e-9;

struct Result {
    std::vector<FrameState> states;
    RunSummary summary;
};

Result RunWith(const std::string& deck_rel, const std::string& formulation,
               const std::string& method, double tolerance = kTolerance) {
    test::RunOverrides over;
    over.formulation = formulation;
    over.tolerance = tolerance;
    const test::RunResult r =
        test::RunDeck(test::SourcePath(deck_rel), method, 1e-3, 0.3, nullptr, over);
    REQUIRE(r.summary.completed);
    REQUIRE(r.summary.formulation == formulation);
    return Result{r.final_states, r.summary};
}

}  // namespace

TEST_CASE("cgr velocity agrees with cgr to the Newton tolerance") {
    const char* decks[] = {"examples/heavy-top/heavy-top.mbd",
                           "examples/double-pendulum/double-pendulum.mbd",
                           "examples/n-link-chain/deck.mbd"};
    const char* methods[] = {"ms, 0.6", "implicit euler", "Bathe"};
    const std::pair<const char*, double> variants[] = {{"cgr velocity unscaled", 1e-9},
                                                       {"cgr velocity", 100 * kTolerance}};
    for (const auto& [variant, bound] : variants)
        for (const char* deck : decks)
            for (const char* method : methods) {
                INFO(std::string(variant), ": ", std::string(deck), " with ", std::string(method));
                const Result a = RunWith(deck, "cgr", method);
                const Result b = RunWith(deck, variant, method);
                REQUIRE(a.states.size() == b.states.size());
                REQUIRE(a.summary.steps == b.summary.steps);
                double dx = 0.0, dR = 0.0, dv = 0.0, dw = 0.0, scale = 1.0;
                for (size_t i = 0; i < a.states.size(); ++i) {
                    dx = std::max(dx, (a.states[i].x - b.states[i].x).norm());
                    dR = std::max(dR, (a.states[i].R - b.states[i].R).norm());
                    dv = std::max(dv, (a.states[i].v - b.states[i].v).norm());
                    dw = std::max(dw, (a.states[i].w - b.states[i].w).norm());
                    scale = std::max({scale, a.states[i].v.norm(), a.states[i].w.norm()});
                }
                MESSAGE(std::string(variant), ": ", std::string(deck), " ", std::string(method),
                        ": |dx| ", dx, ", |dR| ", dR, ", |dv| ", dv, ", |dw| ", dw,
                        "; Newton iterations ", a.summary.iterations, " (cgr), ",
                        b.summary.iterations, " (", std::string(variant), ")");
                CHECK(dx < bound);
                CHECK(dR < bound);
                CHECK(dv < bound * scale);
                CHECK(dw < bound * scale);
            }
}

TEST_CASE("cgr velocity unscaled: cgr's test and iterations, met at the rows' round-off") {
    // Tolerance 1e-10 on the heavy top with Bathe at h = 1e-3 is below the round-off of the
    // eliminated rows (~1.3e-10): the test accepts a residual within the bound 4 eps (|beta| +
    // |history|) / c per row, so the run completes, at cgr's solution.
    const Result a = RunWith("examples/heavy-top/heavy-top.mbd", "cgr", "Bathe", 1e-10);
    const Result b =
        RunWith("examples/heavy-top/heavy-top.mbd", "cgr velocity unscaled", "Bathe", 1e-10);
    double dw = 0.0, dR = 0.0;
    for (size_t i = 0; i < a.states.size(); ++i) {
        dw = std::max(dw, (a.states[i].w - b.states[i].w).norm());
        dR = std::max(dR, (a.states[i].R - b.states[i].R).norm());
    }
    MESSAGE("heavy top, Bathe, tolerance 1e-10: |dR| ", dR, ", |dw| ", dw, "; iterations ",
            a.summary.iterations, " (cgr), ", b.summary.iterations, " (cgr velocity unscaled)");
    CHECK(dR < 1e-10);
    CHECK(dw < 1e-8);  // |w| ~ 100 rad/s
    // Same residual test as cgr's (force rows in force units): the same Newton iterations
    // within a few per cent on the chain, where `cgr velocity` (impulse rows) needs fewer.
    for (const char* method : {"ms, 0.6", "Bathe"}) {
        INFO(std::string(method));
        const Result c = RunWith("examples/n-link-chain/deck.mbd", "cgr", method);
        const Result u = RunWith("examples/n-link-chain/deck.mbd", "cgr velocity unscaled", method);
        MESSAGE("chain, ", std::string(method), ": iterations ", c.summary.iterations, " (cgr), ",
                u.summary.iterations, " (cgr velocity unscaled)");
        CHECK(std::abs(u.summary.iterations - c.summary.iterations) <= 0.05 * c.summary.iterations);
    }
}

TEST_CASE("first-order methods run on cgr velocity unscaled unless the deck says otherwise") {
    const test::RunResult r =
        test::RunDeck(test::SourcePath("examples/heavy-top/heavy-top.mbd"), "ms, 0.6", 1e-3, 0.01);
    REQUIRE(r.summary.completed);
    CHECK(r.summary.formulation == "cgr velocity unscaled");
}
