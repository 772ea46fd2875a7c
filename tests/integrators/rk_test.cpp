// The `rk` family: every registered Butcher tableau satisfies the order conditions
// of its declared order (rooted trees up to order 7, mbstep/integrator/order_conditions.hpp) and
// violates one of the next order; embedded weights likewise for the embedded order; deck arguments;
// explicit methods refuse models with constraints before the first step, naming the first
// constraint element.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "mbstep/integrator/butcher_tableau.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/integrator/order_conditions.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {

using order_conditions::RootedTree;

// The tableau's A as a matrix.
Eigen::MatrixXd Matrix(const ButcherTableau& m) {
    const int s = m.stages();
    Eigen::MatrixXd A(s, s);
    for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j) A(i, j) = m.a[i][j];
    return A;
}

// max over trees of order n of |b . g(t) - 1/gamma(t)|.
double Residual(const std::vector<RootedTree>& trees, const ButcherTableau& m,
                const std::vector<double>& b) {
    return order_conditions::OrderDefect(
        Matrix(m), Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size())),
        trees);
}

}  // namespace

TEST_CASE("rooted trees: 1, 1, 2, 4, 9, 20, 48 trees of order 1..7") {
    const auto trees = order_conditions::RootedTrees(7);
    const std::vector<size_t> counts = {0, 1, 1, 2, 4, 9, 20, 48};
    for (int n = 1; n <= 7; ++n) CHECK(trees[n].size() == counts[n]);
}

TEST_CASE("every registered Butcher tableau: order conditions of its declared orders") {
    const Registry& reg = GlobalRegistry();
    const auto trees = order_conditions::RootedTrees(7);
    std::set<std::string> seen;
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        auto integ = MakeIntegrator(d.name, reg);
        const ButcherTableau* m = ButcherTableauOf(*integ);
        if (!m) continue;
        if (!seen.insert(m->name).second) continue;  // `rk` builds dopri5 by default
        INFO(m->name);
        ++tested;
        const int s = m->stages();
        REQUIRE(static_cast<int>(m->a.size()) == s);
        REQUIRE(static_cast<int>(m->c.size()) == s);
        CHECK(integ->order() == m->order);
        // Explicit, c = A 1.
        for (int i = 0; i < s; ++i) {
            REQUIRE(static_cast<int>(m->a[i].size()) == s);
            double row = 0.0;
            for (int j = 0; j < s; ++j) {
                if (j >= i) CHECK(m->a[i][j] == 0.0);
                row += m->a[i][j];
            }
            CHECK(std::abs(row - m->c[i]) < 1e-15);
        }
        for (int n = 1; n <= m->order; ++n) {
            INFO("order ", n);
            CHECK(Residual(trees[n], *m, m->b) < 1e-14);
        }
        if (m->order < 7) CHECK(Residual(trees[m->order + 1], *m, m->b) > 1e-4);
        if (m->embedded()) {
            REQUIRE(static_cast<int>(m->b_hat.size()) == s);
            for (int n = 1; n <= m->embedded_order; ++n) {
                INFO("embedded order ", n);
                CHECK(Residual(trees[n], *m, m->b_hat) < 1e-14);
            }
            CHECK(Residual(trees[m->embedded_order + 1], *m, m->b_hat) > 1e-4);
        }
        if (m->fsal) {
            CHECK(m->c[s - 1] == 1.0);
            for (int j = 0; j < s; ++j) CHECK(m->a[s - 1][j] == m->b[j]);
        }
    }
    // explicit euler, explicit midpoint, rk33, rk44, rk67, ode23, dopri5.
    CHECK(tested == 7);
    CHECK(seen.count("dopri5") == 1);
    CHECK(seen.count("ode23") == 1);
    CHECK(seen.count("rk67") == 1);
}

TEST_CASE("rk deck arguments") {
    const Registry& reg = GlobalRegistry();
    auto m = MakeIntegrator("rk, rk44", reg);
    CHECK(m->name() == "rk44");
    CHECK(!m->adaptive());
    CHECK(m->order() == 4);
    m = MakeIntegrator("rk, dopri5, 1e-8, 1e-10", reg);
    CHECK(m->name() == "dopri5");
    CHECK(m->adaptive());
    CHECK(m->order() == 5);
    m = MakeIntegrator("ode23, 1e-5", reg);
    CHECK(m->adaptive());
    m = MakeIntegrator("dopri5, fixed", reg);
    CHECK(!m->adaptive());
    m = MakeIntegrator("rk", reg);
    CHECK(m->name() == "dopri5");
    CHECK(m->adaptive());
    // A tableau without an embedded pair refuses tolerances; unknown tableaus list the known.
    CHECK_THROWS_WITH_AS(MakeIntegrator("rk, rk44, 1e-6", reg),
                         doctest::Contains("no embedded error estimate"), DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("rk, rk99", reg), doctest::Contains("dopri5"), DeckError);
    CHECK_THROWS_AS(MakeIntegrator("dopri5, -1e-6", reg), DeckError);
}

TEST_CASE("rk refuses constrained models before the first step, naming the first constraint") {
    const Registry& reg = GlobalRegistry();
    struct Case {
        std::string deck, first;
    };
    const std::vector<Case> cases = {
        {"examples/heavy-top-constrained/deck.mbd", "joint 1 (clamp)"},
        {"examples/double-pendulum/double-pendulum.mbd", "joint 1 (revolute pin)"},
    };
    for (const Case& c : cases)
        for (const char* formulation : {"lie group", "euler parameters"})
            for (const char* method : {"rk, rk44", "dopri5, 1e-6"}) {
                INFO(c.deck, " ", formulation, " ", method);
                Deck deck = ReadDeck(std::string(MBSTEP_SOURCE_DIR) + "/" + c.deck, reg);
                std::string name;
                deck.integrator = MakeIntegrator(method, reg, &name);
                deck.method_name = name;
                deck.settings.formulation = formulation;
                RunOptions opt;
                opt.write_output = false;
                opt.progress = false;
                int steps = 0;
                opt.on_step = [&](double, const Formulation&) { ++steps; };
                std::string msg;
                try {
                    Run(deck, opt, reg);
                } catch (const RunError& e) {
                    msg = e.what();
                }
                INFO(msg);
                CHECK(msg.find(c.first) != std::string::npos);
                CHECK(msg.find("cannot integrate models with constraints") != std::string::npos);
                CHECK(steps == 0);  // not even the initial output row
            }
}
