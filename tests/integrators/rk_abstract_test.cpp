// The `rk` family on abstract nodes (plugins/rk/explicit_rk.hpp, eq. (4)): the spring pendulum
// of P.L. Kinon, P. Betsch, Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9,
// sect. 5.2 (examples/spring-pendulum), whose mass matrix depends on q and is invertible along
// the motion. Checks: the declared order of the fixed-step tableaus against the independent
// RK4 reference (support/livens_references.hpp), step-size control, and the refusals of
// constraints and of a singular mass matrix (the paper's mass-spring system, sect. 5.1).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "mbstep/io/deck_reader.hpp"
#include "support/livens_references.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

const std::string kPendulum = test::SourcePath("examples/spring-pendulum/deck.mbd");
const std::string kMassSpring = test::SourcePath("examples/mass-spring-singular/deck.mbd");

/// Max error of (l, theta, phi, l', theta', phi') at t = 1; steps counted.
double PendulumError(const std::string& method, double h, int* steps = nullptr,
                     std::string* formulation = nullptr) {
    static const std::array<double, 6> ref = test::SpringPendulumReference();
    std::array<double, 6> last{};
    int n = 0;
    const test::RunResult run =
        test::RunDeck(kPendulum, method, h, 0.0, [&](double, const Formulation& f) {
            const auto& s = f.abstract_states();
            last = {s[0].x, s[1].x, s[2].x, s[0].xp, s[1].xp, s[2].xp};
            ++n;
        });
    REQUIRE_MESSAGE(run.summary.completed, run.summary.failure);
    if (steps) *steps = n - 1;
    if (formulation) *formulation = run.summary.formulation;
    double e = 0.0;
    for (int j = 0; j < 6; ++j) e = std::max(e, std::abs(last[j] - ref[j]));
    return e;
}

std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("rk, abstract nodes: declared order on the spring pendulum") {
    // Fixed-step tableaus at h = 0.005, 0.0025, 0.00125 over [0, 1] (the paper's h = 0.01 is
    // not yet asymptotic for rk44: 3.6 between 0.01 and 0.005); the reference's own error is
    // ~1e-13, far below rk44's ~1e-8 at the finest step.
    for (const char* method : {"rk44", "rk33", "explicit midpoint"}) {
        std::vector<double> e;
        std::string formulation;
        for (double h : {0.005, 0.0025, 0.00125})
            e.push_back(PendulumError(method, h, nullptr, &formulation));
        const std::vector<double> p = test::Orders(e);
        const double declared = test::DeclaredOrder(method);
        INFO(std::string(method) << ": errors " << test::Join(e) << "orders " << test::Join(p));
        CHECK(formulation == "lagrangian");  // the deck names none: the abstract-node one
        for (double order : p) CHECK(std::abs(order - declared) <= 0.2);
    }
}

TEST_CASE("rk, abstract nodes: step-size control (dopri5) reaches its tolerance") {
    int steps = 0;
    const double e = PendulumError("dopri5, 1e-8, 1e-10", 0.01, &steps);
    INFO("error " << e << " after " << steps << " steps");
    CHECK(e <= 1e-6);  // global error: a few hundred local 1e-8 errors
    CHECK(steps > 0);
}

TEST_CASE("rk, abstract nodes: constraints and a singular mass matrix are refused") {
    const std::string deck = Read(kMassSpring);
    {  // the mass-spring system: one holonomic constraint
        const std::string what = test::RunErrorMessage(deck, "rk44");
        INFO(what);
        CHECK(what.find("cannot integrate models with constraints: genel 1 (lagrangian)") !=
              std::string::npos);
        CHECK(what.find("e.g. eml, or ms on a cgr formulation, for abstract nodes") !=
              std::string::npos);
    }
    {  // without the constraint its constant mass matrix is singular (rank 2 of 3)
        const std::string cut = "\",\n        constraints, 1, \"0.5*((q2 - q1)^2 - (L10 + W)^2)\";";
        std::string free = deck;
        const size_t at = free.find(cut);
        REQUIRE(at != std::string::npos);
        free.replace(at, cut.size(), "\";");
        const std::string what = test::RunErrorMessage(free, "rk44");
        INFO(what);
        CHECK(what.find("the mass matrix T_vv of the abstract nodes is singular at t = 0 (rank 2 "
                        "of 3)") != std::string::npos);
    }
}
