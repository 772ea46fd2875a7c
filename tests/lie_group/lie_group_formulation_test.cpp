// The `lie group` formulation: every Jacobian piece (M, Kq_inertia, C, K, L, B) against central
// differences of its own Evaluate (q perturbed along the retraction (4)), with centre-of-mass
// offsets, a static node, a spring-damper, a follower moment and a spherical constraint; the
// retraction keeps orientations orthonormal; the consistent initial conditions satisfy the
// equations of motion and the acceleration-level constraint.
#include <doctest/doctest.h>

#include <random>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/test_elements.hpp"
#include "support/test_models.hpp"

using namespace mbstep;
using test::FunctionElement;
using test::Rand3;

namespace {

Model MakeModel(std::mt19937& rng) {
    Model m;
    for (int i = 0; i < 3; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = i < 2 ? NodeKind::kDynamic : NodeKind::kStatic;
        n.initial.x = Rand3(rng, 1.0);
        n.initial.R = so3::Exp(Rand3(rng, 1.0));
        n.initial.v = Rand3(rng, 1.0);
        n.initial.w = Rand3(rng, 2.0);
        m.AddNode(n);
    }
    for (int i = 0; i < 2; ++i) {
        NodeInertia in;
        in.m = 2.0 + i;
        in.s = Rand3(rng, 0.5) * in.m;  // the node is not at the centre of mass
        const Mat3 A = Mat3::Random();
        in.J = A * A.transpose() + Mat3::Identity();
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    const Vec3 oa = Rand3(rng, 0.5), ob = Rand3(rng, 0.5), M0 = Rand3(rng, 1.0);
    m.AddElement(test::SpringDamper(20, 0, 1, oa, ob));
    m.AddElement(std::make_unique<FunctionElement>(
        21, std::vector<int>{2}, [=](const FunctionElement::States& s, double) {
            Eigen::VectorXd f(6);
            f << -5.0 * s[0].x, s[0].R * M0 - 0.5 * s[0].w;
            return f;
        }));
    m.AddElement(test::SphericalConstraint(22, 1, 2, ob));
    return m;
}

double MaxDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("lie group: Jacobian pieces match finite differences of Evaluate") {
    const Registry& reg = GlobalRegistry();
    const FormulationDescriptor* d = reg.FindFormulation("lie group");
    REQUIRE(d != nullptr);
    std::mt19937 rng(3);
    const Model model = MakeModel(rng);
    auto form = d->make(model);
    SecondOrderProblem& p = *form->second_order();
    const int nv = p.num_velocities(), nc = p.num_constraints();
    CHECK(nv == 18);
    CHECK(nc == 3);
    CHECK_FALSE(p.vector_space());

    for (int trial = 0; trial < 3; ++trial) {
        Eigen::VectorXd q0;
        p.Retract(p.q(), Eigen::VectorXd::Random(nv), q0);
        p.set_q(q0);
        p.SetTime(0.3 + trial);
        const Eigen::VectorXd v = Eigen::VectorXd::Random(nv) * 2.0;
        const Eigen::VectorXd a = Eigen::VectorXd::Random(nv) * 3.0;
        const Eigen::VectorXd lam = Eigen::VectorXd::Random(nc) * 4.0;
        SecondOrderProblem::Jacobians J;
        p.Evaluate(v, a, lam, J);
        const Eigen::MatrixXd M(J.M), Kq(J.Kq_inertia), C(J.C), K(J.K), L(J.L), B(J.B);

        // Central differences, step 1e-6: truncation ~1e-12, the test elements' own FD
        // derivatives ~1e-8 relative; tolerance 1e-6 absolute on entries of size ~10.
        const double e = 1e-6;
        Eigen::MatrixXd fM(nv, nv), fKq(nv, nv), fC(nv, nv), fK(nv, nv), fL(nv, nc), fB(nc, nv);
        Eigen::VectorXd Map, fp, pp, Mam, fm, pm;
        for (int k = 0; k < nv; ++k) {
            const Eigen::VectorXd ek = Eigen::VectorXd::Unit(nv, k) * e;
            p.Evaluate(v, a + ek, lam, Map, fp, pp);
            p.Evaluate(v, a - ek, lam, Mam, fm, pm);
            fM.col(k) = (Map - Mam) / (2 * e);
            p.Evaluate(v + ek, a, lam, Map, fp, pp);
            p.Evaluate(v - ek, a, lam, Mam, fm, pm);
            fC.col(k) = (fp - fm) / (2 * e);
            Eigen::VectorXd qp, qm;
            p.Retract(q0, ek, qp);
            p.Retract(q0, -ek, qm);
            p.set_q(qp);
            p.Evaluate(v, a, lam, Map, fp, pp);
            p.set_q(qm);
            p.Evaluate(v, a, lam, Mam, fm, pm);
            p.set_q(q0);
            fKq.col(k) = (Map - Mam) / (2 * e);
            fK.col(k) = (fp - fm) / (2 * e);
            fB.col(k) = (pp - pm) / (2 * e);
        }
        for (int k = 0; k < nc; ++k) {
            const Eigen::VectorXd ek = Eigen::VectorXd::Unit(nc, k) * e;
            p.Evaluate(v, a, lam + ek, Map, fp, pp);
            p.Evaluate(v, a, lam - ek, Mam, fm, pm);
            fL.col(k) = (fp - fm) / (2 * e);
        }
        INFO("trial ", trial);
        CHECK(MaxDiff(M, fM) <= 1e-6);
        CHECK(MaxDiff(Kq, fKq) <= 1e-6);
        CHECK(MaxDiff(C, fC) <= 1e-6);
        CHECK(MaxDiff(K, fK) <= 1e-6);
        CHECK(MaxDiff(L, fL) <= 1e-6);
        CHECK(MaxDiff(B, fB) <= 1e-6);
        CHECK(MaxDiff(M, M.transpose()) <= 1e-14);
        // Tangent operator: blockdiag(I, T_exp).
        Eigen::SparseMatrix<double> T;
        const Eigen::VectorXd dq = Eigen::VectorXd::Random(nv);
        p.TangentOperator(dq, T);
        const Eigen::MatrixXd Td(T);
        CHECK(MaxDiff(Td.block<3, 3>(6, 6), Mat3::Identity()) == 0.0);
        CHECK(MaxDiff(Td.block<3, 3>(9, 9), so3::Texp(dq.segment<3>(9))) == 0.0);
    }
}

TEST_CASE("lie group: repeated retractions keep orientations orthonormal to 1e-13") {
    std::mt19937 rng(5);
    const Model model = MakeModel(rng);
    auto form = GlobalRegistry().FindFormulation("lie group")->make(model);
    SecondOrderProblem& p = *form->second_order();
    Eigen::VectorXd q = p.q(), q1;
    double worst = 0.0;
    for (int k = 0; k < 100000; ++k) {
        p.Retract(q, Eigen::VectorXd::Random(p.num_velocities()) * 0.05, q1);
        q.swap(q1);
        for (int i = 0; i < 3; ++i) {
            const Mat3 R = Eigen::Map<const Mat3>(q.data() + 12 * i + 3);
            worst = std::max(worst, (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff());
        }
    }
    CHECK(worst <= 1e-13);
}

TEST_CASE("lie group: consistent initial conditions") {
    // A rigid body with its node off the centre of mass, hanging from the origin by a spherical
    // constraint, spinning, under a constant force and moment.
    Model model;
    StructuralNode n;
    n.label = 1;
    n.initial.x = Vec3(0.2, 0.1, -0.9);
    n.initial.R = so3::Exp(Vec3(0.3, -0.2, 0.5));
    const Vec3 o = n.initial.R.transpose() * (-n.initial.x);
    n.initial.w = Vec3(1.0, -2.0, 7.0);
    n.initial.v = n.initial.w.cross(n.initial.x);
    model.AddNode(n);
    NodeInertia in;
    in.m = 3.0;
    in.s = in.m * Vec3(0.05, -0.1, 0.02);
    in.J = Vec3(0.2, 0.3, 0.4).asDiagonal();
    model.AddElement(std::make_unique<test::InertiaElement>(1, 0, in));
    model.AddElement(std::make_unique<FunctionElement>(2, std::vector<int>{0},
                                                       [](const FunctionElement::States&, double) {
                                                           Eigen::VectorXd f(6);
                                                           f << 0.0, 0.0, -29.43, 0.1, 0.0, 0.0;
                                                           return f;
                                                       }));
    model.AddElement(std::make_unique<FunctionElement>(
        3, std::vector<int>{0}, nullptr, 3,
        [o](const FunctionElement::States& s, double) {
            return Eigen::VectorXd(s[0].x + s[0].R * o);
        },
        ConstraintLevel::kPosition,
        [o](const FunctionElement::States& s, double) {
            Eigen::MatrixXd W(3, 6);
            W << Mat3::Identity(), -Skew(s[0].R * o);
            return W;
        }));
    auto form = GlobalRegistry().FindFormulation("lie group")->make(model);
    SecondOrderProblem& p = *form->second_order();
    p.SetTime(0.0);
    Eigen::VectorXd v, a, lam, Ma, f, phi;
    p.InitialConditions(v, a, lam);
    p.Evaluate(v, a, lam, Ma, f, phi);
    CHECK((Ma + f).norm() < 1e-9);
    CHECK(phi.norm() < 1e-12);
    // Acceleration of the pivot: x'' + R (W' x o + W x (W x o)) = 0.
    const Mat3 R = n.initial.R;
    const Vec3 W = v.segment<3>(3);
    const Vec3 acc = a.head<3>() + R * (a.segment<3>(3).cross(o) + W.cross(W.cross(o)));
    CHECK(acc.norm() < 1e-7 * W.squaredNorm());
    CHECK((R * W - n.initial.w).norm() < 1e-14);
}
