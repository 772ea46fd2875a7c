// Models with structural and abstract nodes both (plugins/formulation_cgr/mixed_formulation.hpp):
// the `lagrangian` genel reading structural node positions in V and g on the `cgr` family.
//
// Checks: the iteration matrix of every `cgr` formulation against central differences of its
// residual on a model where every coupling block is non-zero (V(q, x) and a constraint
// g(q, x) over two nodes, beside a joint of the structural part), the consistency of the
// initial derivatives; examples/pendulum-abstract-spring: the same physical system written
// with the sliding mass as an abstract node (deck.mbd) and as a structural node on the x axis
// with a rod (deck-structural.mbd) gives the same motion; the total energy under the
// trapezoidal rule; the refusals of the methods and formulations that do not run such models.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/iteration_matrix_check.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

const std::string kMixed = test::SourcePath("examples/pendulum-abstract-spring/deck.mbd");
const std::string kStructural =
    test::SourcePath("examples/pendulum-abstract-spring/deck-structural.mbd");

/// Two bodies (node 1 pinned at the origin by a spherical pin, node 2 free), two abstract
/// nodes, and a `lagrangian` genel whose V and constraint read q and both nodes' positions.
std::string CouplingDeck(const std::string& model = "") {
    return "begin: data;\n    problem: initial value;\nend: data;\n"
           "begin: initial value;\n    initial time: 0.;\n    final time: 0.01;\n"
           "    time step: 1.e-3;\n    method: ms, 0.6;\n    tolerance: 1e-10;\n"
           "end: initial value;\n"
           "begin: control data;\n    structural nodes: 2;\n    abstract nodes: 2;\n"
           "    rigid bodies: 2;\n    joints: 1;\n    genels: 1;\n    gravity;\n" +
           model +
           "    skip initial joint assembly;\nend: control data;\n"
           "begin: nodes;\n"
           "    structural: 1, dynamic, 0., 0., -1., eye, 1., 0.5, 0., 0.5, -1., 0.;\n"
           "    structural: 2, dynamic, 1., 0.5, 0.2, eye, 0.1, 0.867, -0.3, 0.3, 0.1, 0.2;\n"
           "    abstract: 1, differential, value, 0.7, derivative, 0.3;\n"
           "    abstract: 2, differential, value, 0.4, derivative, -0.2;\n"
           "end: nodes;\n"
           "begin: elements;\n"
           "    body: 1, 1, 1., null, diag, 0.01, 0.02, 0.03;\n"
           "    body: 2, 2, 2., 0.1, 0., 0., diag, 0.02, 0.01, 0.03;\n"
           "    joint: 1, spherical pin, 1, position, 0., 0., 1., position, null;\n"
           "    genel: 1, lagrangian, coordinates, 2, 1, \"a\", \"ua\", 2, \"b\", \"ub\",\n"
           "        positions, 2, 1, \"x1\", \"y1\", \"z1\", 2, \"x2\", \"y2\", \"z2\",\n"
           "        kinetic energy, \"0.5*(1 + 0.2*b^2)*ua^2 + 0.5*ub^2 + 0.1*ua*ub*cos(a)\",\n"
           "        potential energy, \"1.5*(a - x1)^2 + b*y1*z2 + 0.1*(x2 - x1)^2*a + "
           "cos(b + y2)\",\n"
           // g = 0 and dg/dt = 0 at t0 (a = 0.7, b = 0.4, x1 = 0, z1 = -1, y2 = 0.5, x2 = 1;
           // node 2's y velocity 0.867).
           "        constraints, 1, \"a*x1 + b^2*z1 - y2 + 0.66 + 0.1*(x2 - 1)*a\";\n"
           "    gravity: uniform, 0., 0., -1., const, 9.81;\n"
           "end: elements;\n";
}

const char* const kCgrFamily[] = {"cgr", "mbdyn cgr", "cgr rotation vector", "cgr velocity",
                                  "cgr velocity unscaled"};

/// Node 1's position and the sliding mass's x (the abstract coordinate, or node 2's x) after
/// every step.
using Point = std::array<double, 4>;

std::vector<Point> Trajectory(const std::string& deck, const std::string& method, double h,
                              double tf, const std::string& formulation,
                              std::vector<double>* energy = nullptr) {
    std::vector<Point> out;
    test::RunOverrides over;
    over.formulation = formulation;
    over.tolerance = 1e-12;
    const test::RunResult run = test::RunDeck(
        deck, method, h, tf,
        [&](double, const Formulation& f) {
            const auto& n = f.node_states();
            const double s = f.abstract_states().empty() ? n[1].x[0] : f.abstract_states()[0].x;
            out.push_back({n[0].x[0], n[0].x[1], n[0].x[2], s});
            if (energy) {
                const Invariants inv = f.ComputeInvariants();
                energy->push_back(inv.kinetic + inv.potential);
            }
        },
        over);
    REQUIRE(run.summary.completed);
    return out;
}

double MaxDifference(const std::vector<Point>& a, const std::vector<Point>& b) {
    REQUIRE(a.size() == b.size());
    double d = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        for (int j = 0; j < 4; ++j) d = std::max(d, std::abs(a[i][j] - b[i][j]));
    return d;
}

}  // namespace

TEST_CASE("mixed nodes: the iteration matrix of every cgr formulation against differences") {
    const Registry& reg = GlobalRegistry();
    for (const char* name : kCgrFamily) {
        INFO("formulation ", name);
        Deck deck = ReadDeckText(CouplingDeck(), "deck.mbd", reg);
        const FormulationDescriptor* d = reg.FindFormulation(name);
        REQUIRE(d != nullptr);
        auto f = d->make(deck.model);
        REQUIRE(f->first_order() != nullptr);
        CHECK(f->name() == name);
        test::CheckIterationMatrixAtRandomStates(*f->first_order(), 0.0, 0.01);
    }
}

TEST_CASE("mixed nodes: the initial derivatives satisfy every differential row") {
    const Registry& reg = GlobalRegistry();
    for (const char* name : kCgrFamily) {
        INFO("formulation ", name);
        Deck deck = ReadDeckText(CouplingDeck(), "deck.mbd", reg);
        auto f = reg.FindFormulation(name)->make(deck.model);
        FirstOrderProblem& p = *f->first_order();
        p.SetTime(0.0);
        p.SolveInitialDerivatives(deck.settings.solver, 1e-3);
        // The constraint (the genel's and the pin's) holds at t0.
        CHECK(f->ComputeInvariants().constraint_violation <= 1e-14);
        Eigen::VectorXd r;
        p.Residual(1e-3, r);
        double worst = 0.0;
        for (int k = 0; k < r.size(); ++k)
            if (p.DescribeEquation(k).find("constraint") == std::string::npos)
                worst = std::max(worst, std::abs(r[k]));
        INFO("worst differential row ", worst);
        CHECK(worst <= 1e-10);
    }
}

TEST_CASE("mixed nodes: the coupling constraint g(q, x) holds along a run of every cgr variant") {
    const std::string path =
        (std::filesystem::temp_directory_path() / "mbstep_mixed_nodes_coupling.mbd").string();
    {
        std::ofstream os(path);
        os << CouplingDeck();
    }
    for (const char* name : kCgrFamily) {
        for (const char* method : {"ms, 0.6", "DIRK33"}) {
            double worst = 0.0;
            int steps = 0;
            test::RunOverrides over;
            over.formulation = name;
            const test::RunResult run = test::RunDeck(
                path, method, 1e-3, 0.2,
                [&](double, const Formulation& f) {
                    worst = std::max(worst, f.ComputeInvariants().constraint_violation);
                    ++steps;
                },
                over);
            std::ostringstream os;
            os << name << ", " << method << ": " << steps << " steps, max |g| " << worst;
            INFO(os.str());
            CHECK(run.summary.completed);
            CHECK(steps == 201);    // the initial point and 200 steps
            CHECK(worst <= 1e-12);  // measured: <= 3.4e-16
        }
    }
    std::filesystem::remove(path);
}

TEST_CASE("mixed nodes: an abstract sliding mass moves as a structural one") {
    // examples/pendulum-abstract-spring: the two decks' equations of motion coincide; every
    // first-order method solves them to the same points (Newton tolerance 1e-12).
    struct Case {
        const char* method;
        const char* formulation;
    };
    for (const Case& c :
         {Case{"ms, 0.6", "cgr"}, Case{"ms, 0.6", "cgr velocity"}, Case{"Bathe", "cgr"},
          Case{"DIRK33", "cgr velocity unscaled"}, Case{"crank nicolson", "cgr"}}) {
        const auto a = Trajectory(kMixed, c.method, 1e-3, 1.0, c.formulation);
        const auto b = Trajectory(kStructural, c.method, 1e-3, 1.0, c.formulation);
        const double d = MaxDifference(a, b);
        std::ostringstream os;
        os << c.method << " on " << c.formulation << ": max difference " << d;
        INFO(os.str());
        MESSAGE(os.str());
        CHECK(d <= 1e-12);  // measured: 4e-15 ... 1.3e-14
    }
}

TEST_CASE("mixed nodes: the total energy under the trapezoidal rule") {
    // Bodies, gravity, T and V of the genel: conserved to O(h^2) by the trapezoidal rule.
    std::vector<double> e1, e2;
    Trajectory(kMixed, "crank nicolson", 2e-3, 2.0, "cgr", &e1);
    Trajectory(kMixed, "crank nicolson", 1e-3, 2.0, "cgr", &e2);
    auto drift = [](const std::vector<double>& e) {
        double d = 0.0;
        for (double x : e) d = std::max(d, std::abs(x - e.front()));
        return d;
    };
    const double d1 = drift(e1), d2 = drift(e2);
    std::ostringstream os;
    os << "energy drift over [0, 2]: " << d1 << " (h = 2e-3), " << d2 << " (h = 1e-3)";
    MESSAGE(os.str());
    CHECK(d2 <= 2e-5);  // measured: 1.5e-5
    CHECK(std::log2(d1 / d2) == doctest::Approx(2.0).epsilon(0.1));
}

TEST_CASE("mixed nodes: methods and formulations that do not run them say so") {
    const std::string text = CouplingDeck();
    struct Case {
        const char* method;
        const char* message;
    };
    for (const Case& c :
         {Case{"eml", "abstract nodes together with structural nodes are not supported here"},
          Case{"rk44", "abstract nodes together with structural nodes are not supported here"},
          Case{"hht, -0.1", "abstract nodes together with structural nodes are not supported here"},
          Case{"generalized alpha, 0.8",
               "abstract nodes together with structural nodes are not supported here"},
          Case{"half implicit",
               "abstract nodes together with structural nodes are not supported here"}}) {
        const std::string m = test::RunErrorMessage(text, c.method);
        const std::string what = std::string(c.method) + ": " + m;
        INFO(what);
        CHECK(m.find(c.message) != std::string::npos);
    }
    // The refusal names what runs them.
    CHECK(test::RunErrorMessage(text, "eml").find("cgr velocity") != std::string::npos);
    // A static model.
    const std::string s = test::RunErrorMessage(CouplingDeck("    model: static;\n"), "ms, 0.6");
    INFO(s);
    CHECK(s.find("`model: static;` is not supported") != std::string::npos);
}
