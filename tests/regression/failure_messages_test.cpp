// Failure messages that name their cause: redundant constraints by element label (a rank-
// revealing QR of the constraint rows, formulation.hpp), and the Newton non-convergence hint
// (round-off level or time step, newton.cpp).
#include <doctest/doctest.h>

#include <string>

#include "mbstep/common.hpp"
#include "mbstep/formulation/formulation.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

/// A body on node 2 hinged to the clamped node 1 (a body too: the second-order formulations
/// take dynamic nodes only) by joint 2 and, again, by joint 3 (the same
/// revolute hinge): joint 3's five rows repeat joint 2's. `offset` moves node 2 off the hinge
/// (the initial assembly must then iterate).
std::string TwoHinges(double offset, const std::string& method = "ms, 0.6") {
    return "begin: data;\n    problem: initial value;\nend: data;\n"
           "begin: initial value;\n    initial time: 0.;\n    final time: 0.01;\n"
           "    time step: 1e-3;\n    method: " +
           method +
           ";\n    tolerance: 1e-8;\n    max iterations: 20;\nend: initial value;\n"
           "begin: control data;\n    structural nodes: 2;\n    rigid bodies: 2;\n"
           "    joints: 3;\n    gravity;\n    max iterations: 10;\nend: control data;\n"
           "begin: nodes;\n    structural: 1, dynamic, null, eye, null, null;\n"
           "    structural: 2, dynamic, 1., " +
           std::to_string(offset) +
           ", 0., eye, null, null;\nend: nodes;\n"
           "begin: elements;\n    body: 1, 2, 1., null, diag, 0.1, 0.1, 0.1;\n"
           "    body: 2, 1, 1., null, diag, 0.1, 0.1, 0.1;\n"
           "    joint: 1, clamp, 1, node, node;\n"
           "    joint: 2, revolute hinge, 1, position, null, 2, position, -1., 0., 0.;\n"
           "    joint: 3, revolute hinge, 1, position, null, 2, position, -1., 0., 0.;\n"
           "    gravity: uniform, 0., 0., -1., const, 9.81;\nend: elements;\n";
}

std::string RunMessage(const std::string& text) {
    Deck deck = ReadDeckText(text, "two-hinges.mbd", GlobalRegistry());
    return test::RunErrorMessage(deck);
}

const char* kRedundant =
    "redundant constraints (linearly dependent on the constraints before them): joint 3 "
    "(revolute hinge), constraint equations 1, 2, 3, 4, 5. Remove them, or the joints they "
    "repeat, or replace a joint by one that constrains fewer directions";

}  // namespace

TEST_CASE("a duplicated joint is named as redundant by the singular initial system") {
    // Consistent positions: the assembly has nothing to do, the initial derivatives are singular.
    const std::string m = RunMessage(TwoHinges(0.0));
    INFO(m);
    CHECK(m == std::string("initial derivatives: singular system at t = 0.000000: ") + kRedundant);
}

TEST_CASE("a duplicated joint is named as redundant by the initial joint assembly") {
    const std::string m = RunMessage(TwoHinges(0.01));
    INFO(m);
    CHECK(m == std::string("initial joint assembly: singular system: ") + kRedundant);
}

TEST_CASE("a duplicated joint is named as redundant by a second-order formulation") {
    const std::string m = RunMessage(TwoHinges(0.0, "hht"));  // on `euler parameters`
    INFO(m);
    CHECK(m.find("singular initial acceleration system at t = 0.000000: " +
                 std::string(kRedundant)) != std::string::npos);
}

TEST_CASE("DependentConstraintRows: the later of equal or combined rows, in order") {
    Eigen::SparseMatrix<double> G(4, 3);
    G.insert(0, 0) = 1.0;
    G.insert(1, 1) = 2.0;
    G.insert(2, 0) = 3.0;   // 3 row 0
    G.insert(2, 1) = -1.5;  // - 0.75 row 1
    G.insert(3, 2) = 1.0;
    G.makeCompressed();
    CHECK(DependentConstraintRows(G) == std::vector<int>{2});
    Eigen::SparseMatrix<double> I(3, 3);
    I.setIdentity();
    CHECK(DependentConstraintRows(I).empty());
    const std::string d = DescribeRedundantRows({0, 1, 4},
                                                [](int r) {
                                                    return r < 2 ? ConstraintRowOwner{"joint 7 (clamp)", r + 1}
                     : ConstraintRowOwner{"structural node 3, unit length", 0};
                                                });
    CHECK(d == "joint 7 (clamp), constraint equations 1, 2; structural node 3, unit length");
}

namespace {
/// examples/pendulum (crank nicolson on cgr, 20 iterations) with another step, tolerance and
/// final time; the message of the run's RunError.
std::string PendulumMessage(double h, double tolerance, double final_time,
                            bool every_iteration = false) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(test::SourcePath("examples/pendulum/pendulum.mbd"), reg);
    deck.settings.formulation = "cgr";  // the equation names below are cgr's rows
    deck.settings.time_step = h;
    deck.settings.solver.residual_tolerance = tolerance;
    deck.settings.final_time = final_time;
    deck.settings.solver.jacobian_every_iteration = every_iteration;
    return test::RunErrorMessage(deck);
}
}  // namespace

TEST_CASE("Newton failure at a far too large time step: the step hint, not the round-off one") {
    // h = 0.5 (the period is ~2 s): the iterates of the first step run away.
    const std::string diverged = PendulumMessage(0.5, 1e-10, 10.0);
    INFO(diverged);
    CHECK(diverged.rfind("Newton failed at step 1 (time step 0.5), at t = 0.5: non-finite "
                         "residual in structural node 1, moment x after ",
                         0) == 0);
    CHECK(diverged.find(" iterations: the iterates diverged; the time step may be too large for "
                        "this motion: try a smaller time step") != std::string::npos);
    // h = 0.1, full Newton (`newton raphson, true`): a step late in the run stalls with
    // residuals ~10, far above the round-off estimate (~1e-13). (The default's chord
    // iterations reach another state by then, where that step's iterates diverge.)
    const std::string stalled = PendulumMessage(0.1, 1e-10, 10.0, true);
    INFO(stalled);
    CHECK(stalled.find(" (time step 0.1), at t = ") != std::string::npos);
    CHECK(stalled.find(": no convergence after 20 iterations: residual ") != std::string::npos);
    CHECK(stalled.find(", far above its round-off level (~") != std::string::npos);
    CHECK(stalled.find("): the time step may be too large for this motion: try a smaller time "
                       "step (the fastest-changing equation: structural node 1, ") !=
          std::string::npos);
    CHECK(stalled.find("loosen") == std::string::npos);
}

TEST_CASE("Newton at a tolerance below round-off: met at the round-off level, no failure") {
    // Each equation counts only above its round-off bound (newton.hpp): a tolerance of 1e-17
    // is met once Newton has brought every equation to round-off.
    const std::string m = PendulumMessage(1e-3, 1e-17, 0.01);
    CHECK(m == "no error");
}

TEST_CASE("eml: a Newton failure names the worst equation by node and component") {
    // eml has its own Newton iteration (plugins/eml): its failures name the equation too.
    const Registry& reg = GlobalRegistry();
    auto message = [&](const char* deck_path, const char* method, double h) {
        Deck deck = ReadDeck(test::SourcePath(deck_path), reg);
        std::string name;
        deck.integrator = MakeIntegrator(method, reg, &name);
        deck.method_name = name;
        deck.settings.formulation.clear();  // eml's own (euler parameters)
        deck.settings.time_step = h;
        return test::RunErrorMessage(deck);
    };
    // Pendulum, h = 0.5 (period ~2 s): the Euler parameters leave the unit sphere first.
    const std::string pendulum = message("examples/pendulum/pendulum.mbd", "eml", 0.5);
    INFO(pendulum);
    CHECK(pendulum.find("eml: Newton did not converge at t = 0.5 (h = 0.5), residual ") !=
          std::string::npos);
    CHECK(pendulum.find(", worst equation structural node 1, unit length of the Euler "
                        "parameters") != std::string::npos);
    // Heavy top, h = 0.3 (precession period ~1 s): a momentum balance row.
    const std::string top = message("examples/heavy-top/heavy-top.mbd", "eml", 0.3);
    INFO(top);
    CHECK(top.find(", worst equation structural node 1, momentum balance ") != std::string::npos);
}
