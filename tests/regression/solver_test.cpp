// Solver services on a real deck: modified Newton (Jacobian reuse), Eigen SparseLU vs KLU,
// and the solution-increment convergence test.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
struct Outcome {
    Vec3 x;
    RunSummary s;
};
Outcome RunTop(const std::function<void(SolverSettings&)>& edit) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(SourcePath("examples/heavy-top/heavy-top.mbd"), reg);
    deck.settings.final_time = 0.5;
    edit(deck.settings.solver);
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    Outcome o;
    opt.on_step = [&](double, const Formulation& f) { o.x = f.node_states()[0].x; };
    o.s = Run(deck, opt, reg);
    return o;
}
}  // namespace

TEST_CASE("modified Newton reuses factorizations and converges to the same solution") {
    const Outcome full = RunTop([](SolverSettings&) {});
    const Outcome mod = RunTop([](SolverSettings& s) {
        s.modified_newton = true;
        s.modified_newton_iterations = 10;
    });
    INFO("full: ", full.s.iterations, " it, ", full.s.factorizations,
         " fact; modified: ", mod.s.iterations, " it, ", mod.s.factorizations, " fact");
    CHECK(full.s.factorizations == full.s.iterations);
    CHECK(mod.s.factorizations < mod.s.iterations / 2);
    // Both stop at residual 1e-8: the positions agree to the Newton tolerance's effect.
    CHECK((full.x - mod.x).norm() < 1e-7);
}

TEST_CASE("Eigen SparseLU gives the KLU solution") {
    const Outcome klu = RunTop([](SolverSettings&) {});
    const Outcome slu = RunTop([](SolverSettings& s) { s.linear_solver = "sparselu"; });
    CHECK((klu.x - slu.x).norm() < 1e-10);
    CHECK(klu.s.iterations == slu.s.iterations);
}

TEST_CASE("convergence on the solution increment alone") {
    const Outcome ref = RunTop([](SolverSettings&) {});
    const Outcome sol = RunTop([](SolverSettings& s) {
        s.residual_test = ResidualTest::kNone;
        s.solution_tolerance = 1e-7;  // increments of y' (momentum rates ~1e4) and multipliers
    });
    CHECK(sol.s.completed);
    CHECK((ref.x - sol.x).norm() < 1e-7);
}
