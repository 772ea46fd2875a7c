// mbstep tests — registry-driven finite-difference check of every element's derivatives
// (STYLE.md §8: registering a plugin is what brings it under test).
//
// For each ElementDescriptor of the global registry (plugins loaded from build/lib/mbstep)
// and each of its test snippets, the element is read in a model with dynamic nodes 1, 2 and
// static node 3, then evaluated at random states (positions, rotations over all of SO(3),
// twists, multipliers, time, gravity). K, C, L, phi_q and phi_v are compared with central
// differences of f and phi (fd_check.cpp states the step and the tolerance).
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "element_builder.hpp"
#include "fd_check.hpp"
#include "mbstep/formulation/formulation.hpp"
#include "mbstep/model/lagrangian_contract.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/iteration_matrix_check.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {

/// An element on abstract nodes (the Lagrangian contract, model/lagrangian_contract.hpp): T_q,
/// T_v, V_q, G against central differences of T, V, g, and every second derivative against
/// central differences of the first ones, at random coordinates q and rates v (n each). Returns
/// the worst |analytic - fd| / (1e-6 max(1, |fd|)).
/// With structural nodes (`positions`), also at random positions x (3 per node): V_qx, G_x,
/// g_qx and g_xx against central differences in x, and T independent of x.
double CheckLagrangianContract(const Element& el, std::mt19937& rng) {
    const int n = static_cast<int>(el.abstract_nodes().size());
    const int nx = 3 * static_cast<int>(el.nodes().size());
    REQUIRE(el.lagrangian() != nullptr);
    const LagrangianContract& e = *el.lagrangian();
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::VectorXd q(n), v(n), x(nx);
    for (int i = 0; i < n; ++i) {
        q[i] = u(rng);
        v[i] = u(rng);
    }
    for (int j = 0; j < nx; ++j) x[j] = u(rng);
    const double* xs = nx > 0 ? x.data() : nullptr;
    LagrangianBlock b, bp, bm;
    e.EvaluateLagrangian(0.0, q.data(), v.data(), b, xs);
    const double h = 1e-6;
    double worst = 0.0;
    auto compare = [&](double analytic, double fd) {
        worst = std::max(worst, std::abs(analytic - fd) / (1e-6 * std::max(1.0, std::abs(fd))));
    };
    for (int j = 0; j < 2 * n; ++j) {
        Eigen::VectorXd qp = q, qm = q, vp = v, vm = v;
        (j < n ? qp[j] : vp[j - n]) += h;
        (j < n ? qm[j] : vm[j - n]) -= h;
        e.EvaluateLagrangian(0.0, qp.data(), vp.data(), bp, xs);
        e.EvaluateLagrangian(0.0, qm.data(), vm.data(), bm, xs);
        compare(j < n ? b.T_q[j] : b.T_v[j - n], (bp.T - bm.T) / (2 * h));
        for (int i = 0; i < n; ++i) {
            compare(j < n ? b.T_qq(i, j) : b.T_qv(i, j - n), (bp.T_q[i] - bm.T_q[i]) / (2 * h));
            compare(j < n ? b.T_qv(j, i) : b.T_vv(i, j - n), (bp.T_v[i] - bm.T_v[i]) / (2 * h));
        }
        if (j >= n) {  // V and g are functions of q alone
            compare(0.0, bp.V - bm.V);
            for (int k = 0; k < b.g.size(); ++k) compare(0.0, bp.g[k] - bm.g[k]);
            continue;
        }
        compare(b.V_q[j], (bp.V - bm.V) / (2 * h));
        for (int i = 0; i < n; ++i) compare(b.V_qq(i, j), (bp.V_q[i] - bm.V_q[i]) / (2 * h));
        for (int k = 0; k < b.g.size(); ++k) {
            compare(b.G(k, j), (bp.g[k] - bm.g[k]) / (2 * h));
            for (int i = 0; i < n; ++i)
                compare(b.g_qq[k](i, j), (bp.G(k, i) - bm.G(k, i)) / (2 * h));
            for (int l = 0; l < nx; ++l)
                compare(b.g_qx[k](j, l), (bp.G_x(k, l) - bm.G_x(k, l)) / (2 * h));
        }
    }
    for (int j = 0; j < nx; ++j) {
        Eigen::VectorXd xp = x, xm = x;
        xp[j] += h;
        xm[j] -= h;
        e.EvaluateLagrangian(0.0, q.data(), v.data(), bp, xp.data());
        e.EvaluateLagrangian(0.0, q.data(), v.data(), bm, xm.data());
        compare(0.0, bp.T - bm.T);
        for (int i = 0; i < n; ++i) compare(b.V_qx(i, j), (bp.V_q[i] - bm.V_q[i]) / (2 * h));
        for (int k = 0; k < b.g.size(); ++k) {
            compare(b.G_x(k, j), (bp.g[k] - bm.g[k]) / (2 * h));
            for (int i = 0; i < n; ++i)
                compare(b.g_qx[k](i, j), (bp.G(k, i) - bm.G(k, i)) / (2 * h));
            for (int l = 0; l < nx; ++l)
                compare(b.g_xx[k](l, j), (bp.G_x(k, l) - bm.G_x(k, l)) / (2 * h));
        }
    }
    return worst;
}
constexpr int kTrials = 5;
}  // namespace

TEST_CASE("registered element families are present") {
    const Registry& reg = GlobalRegistry();
    for (const auto& [statement, name] :
         std::vector<std::pair<std::string, std::string>>{{"body", ""},
                                                          {"gravity", "uniform"},
                                                          {"force", "absolute"},
                                                          {"force", "follower"},
                                                          {"couple", "absolute"},
                                                          {"couple", "follower"},
                                                          {"joint", "clamp"},
                                                          {"joint", "spherical hinge"},
                                                          {"joint", "spherical pin"},
                                                          {"joint", "revolute hinge"},
                                                          {"joint", "revolute pin"},
                                                          {"joint", "cardano hinge"},
                                                          {"joint", "cardano pin"},
                                                          {"joint", "cardano rotation"},
                                                          {"joint", "universal hinge"},
                                                          {"joint", "universal pin"},
                                                          {"joint", "universal rotation"},
                                                          {"joint", "gimbal rotation"},
                                                          {"joint", "prismatic"},
                                                          {"joint", "drive hinge"},
                                                          {"joint", "in line"},
                                                          {"joint", "in plane"},
                                                          {"joint", "distance"},
                                                          {"joint", "total joint"},
                                                          {"joint", "total pin joint"},
                                                          {"joint", "axial rotation"},
                                                          {"joint", "angular velocity"},
                                                          {"joint", "rod"},
                                                          {"joint", "deformable hinge"},
                                                          {"beam3", ""},
                                                          {"beam2", ""}}) {
        INFO(statement, ": ", name);
        const ElementDescriptor* d = reg.FindElement(statement, name);
        REQUIRE(d != nullptr);
        CHECK(static_cast<bool>(d->read));
        CHECK_FALSE(d->description.empty());
        CHECK_FALSE(d->test_snippets.empty());
    }
}

TEST_CASE("every registered element matches finite differences of f and phi") {
    const Registry& reg = GlobalRegistry();
    int checked = 0;
    for (const ElementDescriptor& d : reg.elements()) {
        INFO("element '", d.statement, ": ", d.name, "' from ", d.library);
        CHECK_FALSE(d.test_snippets.empty());
        for (const std::string& snippet : d.test_snippets) {
            INFO("snippet: ", snippet);
            BuiltElement b;
            try {
                b = BuildFromSnippet(d, snippet, reg);
            } catch (const DeckError& err) {
                FAIL_CHECK("cannot read the snippet: ", std::string(err.what()));
                continue;
            }
            if (!b.element) continue;  // e.g. gravity: sets a field, adds no element
            const Element& e = *b.element;
            if (!e.abstract_nodes().empty()) {
                // Elements on abstract nodes write the Lagrangian contract, not twist-space
                // blocks: their derivatives against differences, then the iteration matrix of
                // the formulation that runs them (`cgr`'s momentum form) against differences of
                // its residual.
                REQUIRE(b.model != nullptr);
                std::uint32_t seed = 2166136261u;
                for (unsigned char ch : snippet) seed = (seed ^ ch) * 16777619u;
                std::mt19937 rng(seed);
                for (int trial = 0; trial < kTrials; ++trial) {
                    INFO("trial ", trial);
                    CHECK(CheckLagrangianContract(e, rng) <= 1.0);
                }
                if (!e.nodes().empty()) {
                    // With positions of structural nodes: also a force element in twist space
                    // (at the abstract nodes' initial values, ElementContext::abstract_q null):
                    // K, L, phi_q against differences of f and phi like any element. (Its
                    // expression jets allocate: no allocation check.) The iteration matrix of
                    // the mixed formulation: tests/regression/mixed_nodes_test.cpp (this model's
                    // dynamic nodes have no body).
                    for (int trial = 0; trial < kTrials; ++trial) {
                        INFO("trial ", trial);
                        RandomPoint p = MakeRandomPoint(rng);
                        const BlockError w = CheckJacobians(e, p);
                        INFO("worst block ", std::string(w.block),
                             ": max |analytic - fd| = ", w.error, ", tolerance ", w.tolerance);
                        CHECK(w.ratio() <= 1.0);
                    }
                    ++checked;
                    continue;
                }
                const FormulationDescriptor* cgr = reg.FindFormulation("cgr");
                REQUIRE(cgr != nullptr);
                auto f = cgr->make(*b.model);
                REQUIRE(f->first_order() != nullptr);
                test::CheckIterationMatrixAtRandomStates(*f->first_order(), 0.0, 0.01);
                ++checked;
                continue;
            }
            REQUIRE(e.nodes().size() <= static_cast<size_t>(ElementBlock::kMaxNodes));
            REQUIRE(e.num_multipliers() <= ElementBlock::kMaxMultipliers);
            for (int idx : e.nodes()) REQUIRE((idx >= 0 && idx < static_cast<int>(b.nodes.size())));
            CHECK((e.num_multipliers() == 0) == (e.constraint_level() == ConstraintLevel::kNone));

            double worst_ratio = 0.0;
            // Seeded by the snippet's text, so that adding snippets elsewhere leaves every other
            // snippet's random points unchanged (FNV-1a, deterministic on every platform).
            std::uint32_t seed = 2166136261u;
            for (unsigned char ch : snippet) seed = (seed ^ ch) * 16777619u;
            std::mt19937 rng(seed);
            for (int trial = 0; trial < kTrials; ++trial) {
                INFO("trial ", trial);
                RandomPoint p = MakeRandomPoint(rng);
                // No heap allocation in Evaluate (STYLE.md §6).
                ElementBlock block;
                block.Reset(static_cast<int>(e.nodes().size()), e.num_multipliers(), true);
                const ElementContext ctx = p.Context();
                const long before = AllocationCount();
                e.Evaluate(ctx, block);
                CHECK(AllocationCount() == before);

                const BlockError w = CheckJacobians(e, p);
                INFO("worst block ", std::string(w.block), ": max |analytic - fd| = ", w.error,
                     ", tolerance ", w.tolerance);
                CHECK(w.ratio() <= 1.0);
                worst_ratio = std::max(worst_ratio, w.ratio());
            }
            if (std::getenv("MBSTEP_TEST_VERBOSE"))
                MESSAGE(std::string(d.statement + ": " + d.name +
                                    ", worst |analytic - fd| / "
                                    "tolerance = " +
                                    std::to_string(worst_ratio)));
            ++checked;
        }
    }
    MESSAGE(std::string(std::to_string(checked) + " element snippets checked"));
    CHECK(checked > 0);
}

TEST_CASE("invalid element input stops with the location of the offending argument") {
    const Registry& reg = GlobalRegistry();
    struct Bad {
        const char* statement;
        const char* name;
        const char* snippet;
        const char* message;
        int column;  // of the offending argument in the snippet line
    };
    const Bad cases[] = {
        {"body", "", "body: 1, 1, -2.5, null, eye;", "mass must be positive", 13},
        {"body", "", "body: 1, 2, 1., null, diag, 1., -1., 1.;",
         "inertia matrix is not symmetric positive definite", 23},
        {"body", "", "body: 1, 1, 1., null, matr, 1., 0.5, 0., 0., 1., 0., 0., 0., 1.;",
         "inertia matrix is not symmetric positive definite", 23},
        {"joint", "clamp", "joint: 1, clamp, 1, node, matr, 1., 0., 0., 0., 2., 0., 0., 0., 1.;",
         "ortho", 27},  // the deck reader or the joint rejects it
        {"joint", "spherical hinge", "joint: 1, spherical hinge, 2, null, 2, null;",
         "a spherical hinge needs two different nodes", 37},
        {"joint", "cardano hinge", "joint: 1, cardano hinge, 2, null, 2, null;",
         "a cardano hinge needs two different nodes", 35},
        {"joint", "in plane", "joint: 1, in plane, 1, null, 0., 0., 0., 2;",
         "the plane normal must be a non-zero vector", 30},
        {"joint", "axial rotation", "joint: 1, axial rotation, 1, null, 2, null;",
         "missing the angular velocity drive", 43},
        {"joint", "rod", "joint: 1, rod, 1, 2, from nodes, linear elastic, -5.;",
         "stiffness must be non-negative", 50},
        {"joint", "total joint",
         "joint: 1, total joint, 1, 2, position constraint, velocity, 1, 1, null;",
         "velocity-level position constraints in total joints are not supported", 51},
        {"joint", "angular velocity", "joint: 1, angular velocity, 2, 0., 0., 0., 1.;",
         "the direction must be non-zero", 32},
        {"joint", "distance", "joint: 1, distance, 1, 2;", "missing the distance drive", 25},
    };
    for (const Bad& b : cases) {
        INFO(std::string(b.snippet));
        const ElementDescriptor* d = reg.FindElement(b.statement, b.name);
        REQUIRE(d != nullptr);
        bool thrown = false;
        try {
            BuildFromSnippet(*d, b.snippet, reg);
        } catch (const DeckError& e) {
            thrown = true;
            INFO(std::string(e.what()));
            CHECK(e.message().find(b.message) != std::string::npos);
            CHECK(e.where().column == b.column);
        }
        CHECK(thrown);
    }
}

TEST_CASE("gravity snippets set the model's gravity field") {
    const Registry& reg = GlobalRegistry();
    const ElementDescriptor* d = reg.FindElement("gravity", "uniform");
    REQUIRE(d != nullptr);
    const BuiltElement a = BuildFromSnippet(*d, "gravity: uniform, 0., 0., -1., 9.81;", reg);
    REQUIRE(a.gravity.has_value());
    CHECK((a.gravity->At(0.5) - Vec3(0.0, 0.0, -9.81)).norm() < 1e-14);
    const BuiltElement b = BuildFromSnippet(*d, "gravity: 0., -2., 0., 1.5;", reg);
    REQUIRE(b.gravity.has_value());
    CHECK((b.gravity->At(0.5) - Vec3(0.0, -3.0, 0.0)).norm() < 1e-14);
}
