// `strategy: factor, f, n_red, f_up, n_up, it_min [, it_max]` changes the step as MBDyn's
// Solver::NewTimeStep does (MBDyn input manual, "Strategy"): the step sequences below follow
// from its counters alone, whatever the model.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {
// A spherical pendulum (1 m, 1 kg) released horizontally: nonlinear, a few Newton iterations
// per step.
std::string Pendulum(const std::string& initial_value) {
    return "begin: data; problem: initial value; end: data;\n"
           "begin: initial value; initial time: 0.; method: ms, 0.6;\n" +
           initial_value +
           "end: initial value;\n"
           "begin: control data; structural nodes: 2; rigid bodies: 1; joints: 2; gravity;\n"
           "end: control data;\nbegin: nodes;\n"
           "structural: 1, static, null, eye, null, null;\n"
           "structural: 2, dynamic, 1., 0., 0., eye, null, null;\nend: nodes;\n"
           "begin: elements;\nbody: 1, 2, 1., null, diag, 0.01, 0.01, 0.01;\n"
           "joint: 1, clamp, 1, node, node;\n"
           "joint: 2, spherical hinge, 1, null, 2, reference, node, -1., 0., 0.;\n"
           "gravity: uniform, 0., 0., -1., const, 9.81;\nend: elements;\n";
}

struct Steps {
    std::vector<double> times;
    RunSummary summary;
};

Steps RunSteps(const std::string& initial_value) {
    Deck deck = ReadDeckText(Pendulum(initial_value), "strategy.mbd", GlobalRegistry());
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    Steps s;
    opt.on_step = [&](double t, const Formulation&) { s.times.push_back(t); };
    s.summary = Run(deck, opt, GlobalRegistry());
    return s;
}
}  // namespace

TEST_CASE("strategy factor raises the step after quiet steps, up to max time step") {
    // it_min = 100: every step is quiet. n_red = 1, n_up = 2: the first raise after step 3
    // (steps since reduction 3 > 1, since raise 3 > 2), the next 3 steps later; max 4e-3.
    const Steps s = RunSteps(
        "final time: 0.025; time step: 1e-3; max time step: 4e-3; tolerance: 1e-9;\n"
        "strategy: factor, 0.5, 1, 2., 2, 100;\n");
    const std::vector<double> expected = {0.,   1e-3,  2e-3,  3e-3,  5e-3, 7e-3,
                                          9e-3, 13e-3, 17e-3, 21e-3, 25e-3};
    REQUIRE(s.times.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        CHECK(s.times[i] == doctest::Approx(expected[i]).epsilon(1e-12));
    CHECK(s.summary.failed_steps == 0);
}

TEST_CASE("strategy factor shrinks the step after a step that took more than it_max iterations") {
    // it_max = 0: every converged step is "slow", the next one is halved down to min time step.
    const Steps s = RunSteps(
        "final time: 2.4e-3; time step: 1e-3; min time step: 2e-4; tolerance: 1e-9;\n"
        "strategy: factor, 0.5, 1, 2., 2, 1, 0;\n");
    // it_max = 0 means "no limit" in MBDyn (iMaxIters = 0 is never exceeded by the test
    // `iterations > iMaxIters` only when it_max > 0): the step stays.
    const std::vector<double> nominal = {0., 1e-3, 2e-3, 3e-3};
    REQUIRE(s.times.size() == nominal.size());
    const Steps t = RunSteps(
        "final time: 0.024; time step: 1e-2; min time step: 2e-3; tolerance: 1e-12;\n"
        "strategy: factor, 0.5, 1, 2., 2, 0, 1;\n");
    // it_max = 1 with a 1e-12 tolerance: the first steps take 2+ iterations, so h halves after
    // each down to min time step: 1e-2, 5e-3, 2.5e-3, then 2e-3 (the floor).
    const std::vector<double> expected = {0.,      1e-2,    1.5e-2,  1.75e-2,
                                          1.95e-2, 2.15e-2, 2.35e-2, 2.55e-2};
    INFO(t.times.size() << " steps, t2 = " << (t.times.size() > 2 ? t.times[2] : 0.)
                        << ", t3 = " << (t.times.size() > 3 ? t.times[3] : 0.));
    REQUIRE(t.times.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        CHECK(t.times[i] == doctest::Approx(expected[i]).epsilon(1e-12));
}

TEST_CASE("strategy factor retries a failed step with smaller ones") {
    // One Newton iteration cannot meet 1e-10 at h = 0.05 on the released pendulum; smaller
    // steps can. Without the strategy the same deck stops at step 1.
    const std::string deck =
        "final time: 0.05; time step: 0.05; tolerance: 1e-10; max iterations: 1;\n";
    CHECK_THROWS_AS(RunSteps(deck), RunError);
    const Steps s = RunSteps(deck + "strategy: factor, 0.5, 1, 1., 1, 1;\n");
    CHECK(s.summary.failed_steps > 0);
    REQUIRE(s.times.size() >= 2);
    CHECK(s.times[1] < 0.05);
    CHECK(s.times.back() >= 0.05 - 1e-12);
}
