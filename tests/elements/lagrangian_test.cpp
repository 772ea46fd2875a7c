// mbstep tests — the `lagrangian` genel (elements/lagrangian/): its Lagrangian contract (first
// and second derivatives of T, V, g from the expressions' forward-mode evaluation) against
// central differences of its own T, V, g; and the iteration matrix of the `cgr` family's
// momentum form (plugins/formulation_cgr/lagrangian_formulation.hpp) against central
// differences of its residual, with a configuration-dependent and with a singular mass matrix.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "mbstep/io/deck_reader.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/lagrangian_contract.hpp"
#include "support/iteration_matrix_check.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

/// A spring pendulum in spherical coordinates with an extra velocity coupling (T_qv != 0) and a
/// nonlinear constraint: every block of the contract is non-zero.
const char* kCoupled = R"DECK(begin: data; problem: initial value; end: data;
set: const real m = 1.3;
begin: initial value; initial time: 0.; final time: 0.01; time step: 0.01; method: ms, 0.6;
end: initial value;
begin: control data; abstract nodes: 3; genels: 1; end: control data;
begin: nodes;
    abstract: 1, differential, value, 1.05, derivative, 0.2;
    abstract: 2, differential, value, 1.2, derivative, 1.;
    abstract: 3, differential, value, 0.3, derivative, -0.4;
end: nodes;
begin: elements;
    genel: 1, lagrangian, coordinates, 3, 1, "l", "ul", 2, "th", "uth", 3, "ph", "uph",
        kinetic energy,
            "0.5*m*(ul^2 + l^2*uth^2 + l^2*sin(th)^2*uph^2) + 0.1*l*ul*uth*cos(ph)",
        potential energy, "37.5*(l^2 - 1)^2 - m*9.81*l*cos(th) + exp(0.1*ph)",
        constraints, 2, "l*cos(th) + 0.3*ph^2 - 0.2", "sqrt(l)*ph - th/4";
end: elements;
)DECK";

Deck ReadText(const std::string& text) {
    return ReadDeckText(text, "lagrangian.mbd", GlobalRegistry());
}

/// Central differences of T, V, g (values) and of their gradients against the contract.
void CheckContract(const LagrangianContract& e, const Eigen::VectorXd& q,
                   const Eigen::VectorXd& v) {
    const int n = static_cast<int>(q.size());
    LagrangianBlock b, bp, bm;
    e.EvaluateLagrangian(0.0, q.data(), v.data(), b);
    const double h = 1e-6;
    auto close = [](double a, double fd, double scale) {
        return std::abs(a - fd) <= 1e-6 * std::max(1.0, scale);
    };
    for (int j = 0; j < 2 * n; ++j) {
        Eigen::VectorXd qp = q, qm = q, vp = v, vm = v;
        if (j < n) {
            qp[j] += h;
            qm[j] -= h;
        } else {
            vp[j - n] += h;
            vm[j - n] -= h;
        }
        e.EvaluateLagrangian(0.0, qp.data(), vp.data(), bp);
        e.EvaluateLagrangian(0.0, qm.data(), vm.data(), bm);
        INFO("variable " << j);
        const double dT = (bp.T - bm.T) / (2 * h);
        CHECK(close(j < n ? b.T_q[j] : b.T_v[j - n], dT, std::abs(dT)));
        for (int i = 0; i < n; ++i) {
            // second derivatives from differences of the gradients
            const double dTq = (bp.T_q[i] - bm.T_q[i]) / (2 * h);
            const double dTv = (bp.T_v[i] - bm.T_v[i]) / (2 * h);
            CHECK(close(j < n ? b.T_qq(i, j) : b.T_qv(i, j - n), dTq, std::abs(dTq)));
            CHECK(close(j < n ? b.T_qv(j, i) : b.T_vv(i, j - n), dTv, std::abs(dTv)));
        }
        if (j >= n) {  // V and g do not depend on the rates
            CHECK(bp.V == bm.V);
            for (int k = 0; k < b.g.size(); ++k) CHECK(bp.g[k] == bm.g[k]);
            continue;
        }
        const double dV = (bp.V - bm.V) / (2 * h);
        CHECK(close(b.V_q[j], dV, std::abs(dV)));
        for (int i = 0; i < n; ++i) {
            const double dVq = (bp.V_q[i] - bm.V_q[i]) / (2 * h);
            CHECK(close(b.V_qq(i, j), dVq, std::abs(dVq)));
        }
        for (int k = 0; k < b.g.size(); ++k) {
            const double dg = (bp.g[k] - bm.g[k]) / (2 * h);
            CHECK(close(b.G(k, j), dg, std::abs(dg)));
            for (int i = 0; i < n; ++i) {
                const double dG = (bp.G(k, i) - bm.G(k, i)) / (2 * h);
                CHECK(close(b.g_qq[k](i, j), dG, std::abs(dG)));
            }
        }
    }
}

}  // namespace

TEST_CASE("lagrangian genel: derivatives of T, V, g against central differences") {
    const Deck deck = ReadText(kCoupled);
    REQUIRE(deck.model.elements().size() == 1);
    const Element& el = *deck.model.elements()[0];
    CHECK(el.abstract_nodes() == std::vector<int>{0, 1, 2});
    CHECK(el.num_multipliers() == 2);
    REQUIRE(el.lagrangian() != nullptr);
    REQUIRE(el.output() != nullptr);
    const LagrangianContract& e = *el.lagrangian();
    LagrangianBlock b;
    const Eigen::Vector3d q(1.05, 1.2, 0.3), v(0.2, 1.0, -0.4);
    e.EvaluateLagrangian(0.0, q.data(), v.data(), b);
    // M = T_vv: diag(m, m l^2, m l^2 sin^2 th) plus the coupling 0.1 l cos(ph) in (1, 2).
    const double m = 1.3, l = 1.05, th = 1.2, ph = 0.3;
    CHECK(b.T_vv(0, 0) == doctest::Approx(m).epsilon(1e-15));
    CHECK(b.T_vv(1, 1) == doctest::Approx(m * l * l).epsilon(1e-15));
    CHECK(b.T_vv(2, 2) == doctest::Approx(m * l * l * std::sin(th) * std::sin(th)).epsilon(1e-15));
    CHECK(b.T_vv(0, 1) == doctest::Approx(0.1 * l * std::cos(ph)).epsilon(1e-15));
    CHECK(b.T_vv(1, 0) == b.T_vv(0, 1));
    CHECK(b.g[0] == doctest::Approx(l * std::cos(th) + 0.3 * ph * ph - 0.2).epsilon(1e-15));
    CHECK(b.G(1, 0) == doctest::Approx(0.5 / std::sqrt(l) * ph).epsilon(1e-15));
    CheckContract(e, q, v);
    CheckContract(e, Eigen::Vector3d(0.8, -0.4, 2.0), Eigen::Vector3d(-1.0, 0.3, 0.7));
    CHECK(el.output()->LogDescription().find("3 coordinates (l, th, ph), 2 constraints") !=
          std::string::npos);
}

TEST_CASE("lagrangian genel: the cgr family's iteration matrix against differences") {
    for (const char* path : {"", "examples/mass-spring-singular/deck.mbd"}) {
        const Deck deck =
            *path ? ReadDeck(test::SourcePath(path), GlobalRegistry()) : ReadText(kCoupled);
        for (const char* name : {"cgr", "cgr velocity", "cgr velocity unscaled", "mbdyn cgr"}) {
            INFO(name << " on " << (*path ? path : "the coupled pendulum"));
            const FormulationDescriptor* d = GlobalRegistry().FindFormulation(name);
            REQUIRE(d != nullptr);
            CHECK(d->supports_abstract_nodes);
            auto f = d->make(deck.model);
            CHECK(f->name() == name);
            FirstOrderProblem* p = f->first_order();
            REQUIRE(p != nullptr);
            const int nodes = static_cast<int>(deck.model.abstract_nodes().size());
            CHECK(p->num_dofs() == 2 * nodes + deck.model.elements()[0]->num_multipliers());
            // y = (q, p = T_v(q0, v0)) per node, y' = (v0, .)
            CHECK(p->y()[0] == deck.model.abstract_nodes()[0].x0);
            CHECK(p->yp()[0] == deck.model.abstract_nodes()[0].v0);
            test::CheckIterationMatrixAtRandomStates(*p, 0.0, 0.01);
        }
    }
}

TEST_CASE("lagrangian genel: formulations without abstract-node equations refuse the model") {
    for (const FormulationDescriptor& d : GlobalRegistry().formulations()) {
        const bool cgr_family = d.name.find("cgr") != std::string::npos;
        INFO(d.name);
        // `lagrangian`: the state of abstract-node systems for `eml` (plugins/eml).
        CHECK(d.supports_abstract_nodes == (cgr_family || d.name == "lagrangian"));
    }
    const Deck deck = ReadText(kCoupled);
    // With structural nodes too: the formulation `lagrangian` refuses, naming the reason and
    // what runs the model; the `cgr` family runs it (tests/regression/mixed_nodes_test.cpp).
    Deck mixed = ReadText(kCoupled);
    StructuralNode n;
    n.label = 1;
    n.kind = NodeKind::kStatic;
    mixed.model.AddNode(n);
    try {
        GlobalRegistry().FindFormulation("lagrangian")->make(mixed.model);
        FAIL("no error");
    } catch (const RunError& e) {
        CHECK(std::string(e.what()).find("together with structural nodes are not supported") !=
              std::string::npos);
        CHECK(std::string(e.what()).find("`cgr` family") != std::string::npos);
    }
    auto f = GlobalRegistry().FindFormulation("cgr")->make(mixed.model);
    CHECK(f->node_states().size() == 1);
    CHECK(f->abstract_states().size() == deck.model.abstract_nodes().size());
}

TEST_CASE("lagrangian genel: a kink met during the run is an error at its deck location") {
    // Line 9 of the deck holds the potential; min( starts at its column 41.
    const Deck deck = ReadText(
        "begin: data; problem: initial value; end: data;\n"                          // 1
        "begin: initial value; initial time: 0.; final time: 1.; time step: 0.1;\n"  // 2
        "method: ms, 0.6; end: initial value;\n"                                     // 3
        "begin: control data; abstract nodes: 2; genels: 1; end: control data;\n"    // 4
        "begin: nodes; abstract: 1, differential, value, 0.5;\n"                     // 5
        "abstract: 2, differential; end: nodes;\n"                                   // 6
        "begin: elements;\n"                                                         // 7
        "genel: 1, lagrangian, coordinates, 2, 1, \"x\", \"u\", 2, \"y\", \"w\", kinetic energy,\n"
        "    \"(u^2 + w^2)/2\", potential energy, \"min(x, y)^2\";\n"  // 9
        "end: elements;\n");
    REQUIRE(deck.model.elements()[0]->lagrangian() != nullptr);
    const LagrangianContract& e = *deck.model.elements()[0]->lagrangian();
    LagrangianBlock b;
    const double v[2] = {0.0, 0.0};
    const double apart[2] = {0.5, 0.0}, equal[2] = {0.25, 0.25};
    e.EvaluateLagrangian(0.0, apart, v, b);
    CHECK(b.V_q[1] == 0.0);  // min = y = 0: d(y^2)/dy = 0
    try {
        e.EvaluateLagrangian(0.0, equal, v, b);
        FAIL("no error");
    } catch (const RunError& err) {
        const std::string what = err.what();
        INFO(what);
        CHECK(what.rfind("lagrangian.mbd:9:41: ", 0) == 0);
        CHECK(what.find("genel 1 (lagrangian), potential energy: 'min' is not differentiable") !=
              std::string::npos);
    }
}
