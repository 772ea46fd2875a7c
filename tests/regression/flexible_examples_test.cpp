// The flexible benchmarks of Bauchau et al. (2016) (examples/four-bar-flexible,
// lateral-buckling, rotating-shaft): the four-bar's lumped bodies carry the published inertia
// (the rigid mechanism's momentum at t0); every deck starts with its own method. (That the
// checked-in decks are examples/flexible/generate.py's output:
// flexible_examples_generator_test.cpp.) The method sweeps and the convergence study are
// tools/flexible/sweep.py's (the examples' READMEs).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
const char* const kDecks[] = {"four-bar-flexible", "lateral-buckling", "rotating-shaft"};

/// Runs the example deck `name` with its own method for `steps` steps from its initial time;
/// on_step sees every converged step.
RunSummary RunSteps(const std::string& name, int steps,
                    std::function<void(double, const Formulation&)> on_step = nullptr) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(SourcePath("examples/" + name + "/deck.mbd"), reg);
    deck.settings.final_time = deck.settings.initial_time + steps * deck.settings.time_step;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    opt.on_step = std::move(on_step);
    return Run(deck, opt, reg);
}
}  // namespace

TEST_CASE("flexible four-bar: the lumped bodies carry the published inertia") {
    // At t0 every node moves with the rigid mechanism: bars A-B and C-D turn at OMEGA = 0.6
    // rad/s about their ground hinges, B-C translates at OMEGA L1. The linear momentum of the
    // lumped bodies is sum m_i v_cm,i = OMEGA (m1 L1 L1/2 + m2 L2 L1 + m3 L3 L3/2) along x with
    // the published masses per length (Table 3): 0.045287424 kg m/s. MBDyn's own deck of the
    // benchmark lumps a third of it (examples/four-bar-flexible/README.md).
    const double omega = 0.6, L1 = 0.12, L2 = 0.24, L3 = 0.12;
    const double m12 = 1.9968, m3 = 0.4992;
    const double px = omega * (m12 * L1 * L1 / 2 + m12 * L2 * L1 + m3 * L3 * L3 / 2);
    Vec3 p = Vec3::Zero();
    int calls = 0;
    const RunSummary s = RunSteps("four-bar-flexible", 1, [&](double, const Formulation& f) {
        if (calls++ == 0) p = f.ComputeInvariants().momentum;
    });
    REQUIRE(s.completed);
    // After one step of h = 8e-3 s the momentum has changed by the impulse of the reactions at
    // A and D: measured 5e-16 relative (round-off); bound 1e-4 (a lumping error of one node's
    // first moment would exceed it).
    MESSAGE("momentum after one step: ", p.transpose(), ", relative difference ",
            (p.x() - px) / px);
    CHECK(std::abs(p.x() - px) < 1e-4 * px);
    CHECK(std::abs(p.y()) < 1e-4 * px);
    CHECK(std::abs(p.z()) < 1e-4 * px);
}

TEST_CASE("flexible examples: every deck starts with its own method") {
    // 25 steps each: the four-bar's settling phase, the lateral buckling's loading (the beam
    // buckles at t = 0.14 s), the rotating shaft's gravity ramp. The whole runs and the method
    // sweeps are in the READMEs (tools/flexible/sweep.py).
    for (const char* name : kDecks) {
        INFO(name);
        const RunSummary s = RunSteps(name, 25);
        CHECK(s.completed);
        CHECK(s.steps == 25);
    }
}
