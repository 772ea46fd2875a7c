// Every second-order formulation of the registry (formulation/second_order.hpp): its Jacobian
// pieces M, Kq_inertia, C, K, L, B against central differences of its own Evaluate (along the
// retraction for q), at random states with non-unit Euler parameters where they apply, with
// inertia, a spring-damper, a follower moment and a spherical constraint (test elements); and
// again with centres of mass off the nodes, in the formulations that accept them.
#include <doctest/doctest.h>

#include <random>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/test_elements.hpp"
#include "support/test_models.hpp"

using namespace mbstep;
using test::FunctionElement;
using test::Rand3;

namespace {

// Three dynamic nodes (bodies at the nodes); a spring-damper between points of nodes 0 and 1,
// a follower moment and a time-dependent force on node 2, a spherical constraint between
// points of nodes 1 and 2.
Model MakeModel(std::mt19937& rng, bool offset) {
    Model m;
    for (int i = 0; i < 3; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = NodeKind::kDynamic;
        n.initial.x = Rand3(rng, 1.0);
        n.initial.R = so3::Exp(Rand3(rng, 1.0));
        n.initial.v = Rand3(rng, 1.0);
        n.initial.w = Rand3(rng, 2.0);
        m.AddNode(n);
        NodeInertia in;
        in.m = 2.0 + i;
        const Mat3 A = Mat3::Random();
        in.J = A * A.transpose() + Mat3::Identity();
        if (offset) in.s = in.m * Rand3(rng, 0.5);  // J stays positive: A A^T + I dominates
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    const Vec3 oa = Rand3(rng, 0.5), ob = Rand3(rng, 0.5), M0 = Rand3(rng, 1.0);
    m.AddElement(test::SpringDamper(20, 0, 1, oa, ob));
    m.AddElement(std::make_unique<FunctionElement>(
        21, std::vector<int>{2}, [=](const FunctionElement::States& s, double t) {
            Eigen::VectorXd f(6);
            f << -5.0 * s[0].x + Vec3(t, 0, 0), s[0].R * M0 - 0.5 * s[0].w;
            return f;
        }));
    m.AddElement(test::SphericalConstraint(22, 1, 2, ob));
    return m;
}

// Column k of `analytic` against (g(+e) - g(-e)) / 2e; step 1e-6: the test elements' own FD
// derivatives (~1e-8 relative) dominate the error; tolerance 1e-6 relative to the column.
template <class G>
void CheckColumns(const char* what, const Eigen::MatrixXd& analytic, int n, G&& g) {
    const double e = 1e-6;
    for (int k = 0; k < n; ++k) {
        const Eigen::VectorXd fd = (g(k, e) - g(k, -e)) / (2 * e);
        INFO(what, " column ", k);
        CHECK((fd - analytic.col(k)).norm() <= 1e-6 * (1.0 + fd.norm()));
    }
}

}  // namespace

TEST_CASE("second-order formulations: Jacobians match finite differences of Evaluate") {
    const Registry& reg = GlobalRegistry();
    int tested = 0;
    int tested_offset = 0;
    for (const FormulationDescriptor& d : reg.formulations())
        for (bool offset : {false, true}) {
            if (d.provides != ProblemInterface::kSecondOrderDae) continue;
            // `lagrangian` holds abstract-node systems for `eml` and has no equations of its
            // own (tests/integrators/eml_abstract_test.cpp checks its scheme's matrix).
            if (d.supports_abstract_nodes) continue;
            INFO("formulation ", d.name, offset ? " (centres of mass off the nodes)" : "");
            std::mt19937 rng(11);
            const Model model = MakeModel(rng, offset);
            std::unique_ptr<Formulation> form;
            try {
                form = d.make(model);
            } catch (const RunError& err) {
                // A formulation without the coupling terms would have to refuse such a model by
                // name (none does today; counted below).
                REQUIRE(offset);
                CHECK(std::string(err.what()).find("off the node") != std::string::npos);
                continue;
            }
            tested_offset += offset ? 1 : 0;
            SecondOrderProblem* p = form->second_order();
            REQUIRE(p != nullptr);
            ++tested;
            const int nv = p->num_velocities(), nc = p->num_constraints();
            const int nq = static_cast<int>(p->q().size());
            for (int trial = 0; trial < 2; ++trial) {
                p->SetTime(0.3 + trial);
                // Move q off the constraint manifold (non-unit Euler parameters).
                Eigen::VectorXd q0;
                p->Retract(p->q(), Eigen::VectorXd::Random(nv) * 0.2, q0);
                if (p->vector_space()) q0 += Eigen::VectorXd::Random(nq) * 0.1;
                p->set_q(q0);
                const Eigen::VectorXd v = Eigen::VectorXd::Random(nv),
                                      a = Eigen::VectorXd::Random(nv) * 3.0,
                                      lam = Eigen::VectorXd::Random(nc);
                SecondOrderProblem::Jacobians J;
                p->Evaluate(v, a, lam, J);
                const Eigen::MatrixXd M(J.M), Kq(J.Kq_inertia), C(J.C), K(J.K), L(J.L), B(J.B);
                Eigen::VectorXd Ma, f, phi;
                auto eval = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& vv,
                                const Eigen::VectorXd& aa, const Eigen::VectorXd& ll) {
                    p->set_q(q);
                    p->Evaluate(vv, aa, ll, Ma, f, phi);
                };
                auto unit = [&](int k, double s, int n) {
                    Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
                    u[k] = s;
                    return u;
                };
                auto along_q = [&](int k, double s) {
                    Eigen::VectorXd q1;
                    p->Retract(q0, unit(k, s, nv), q1);
                    return q1;
                };
                CheckColumns("M", M, nv, [&](int k, double s) {
                    eval(q0, v, a + unit(k, s, nv), lam);
                    return Eigen::VectorXd(Ma);
                });
                CheckColumns("Kq_inertia", Kq, nv, [&](int k, double s) {
                    eval(along_q(k, s), v, a, lam);
                    return Eigen::VectorXd(Ma);
                });
                CheckColumns("C", C, nv, [&](int k, double s) {
                    eval(q0, v + unit(k, s, nv), a, lam);
                    return Eigen::VectorXd(f);
                });
                CheckColumns("K", K, nv, [&](int k, double s) {
                    eval(along_q(k, s), v, a, lam);
                    return Eigen::VectorXd(f);
                });
                CheckColumns("L", L, nc, [&](int k, double s) {
                    eval(q0, v, a, lam + unit(k, s, nc));
                    return Eigen::VectorXd(f);
                });
                CheckColumns("B", B, nv, [&](int k, double s) {
                    eval(along_q(k, s), v, a, lam);
                    return Eigen::VectorXd(phi);
                });
                p->set_q(q0);
            }
        }
    CHECK(tested >= 1);
    // Every second-order formulation carries the coupling terms (euler parameters, lie group,
    // euler angles): each is tested with and without offsets.
    CHECK(tested_offset * 2 == tested);
    CHECK(tested_offset >= 3);
}
