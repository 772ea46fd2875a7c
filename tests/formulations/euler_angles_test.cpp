// Formulation `euler angles` (plugins/formulation_euler_angles/): the Rxyz rotation and its
// angular-velocity maps against finite differences of the rotation matrix, the angle extraction,
// the exact Jacobians with a centre-of-mass offset (the registry-wide test in
// second_order_jacobian_test.cpp uses bodies at their nodes), and the stop near the Cardan
// singularity theta2 = +-pi/2 on a torque-free body spinning about its body y axis (exact
// motion R = Ry(w t), so theta2 = w t until the stop).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "../../plugins/formulation_euler_angles/xyz_angles.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/math/so3.hpp"
#include "support/run_helpers.hpp"
#include "support/test_elements.hpp"
#include "support/test_models.hpp"

using namespace mbstep;
using namespace mbstep::euler_angles;

namespace {
constexpr double kPi = 3.14159265358979323846;

Vec3 RandomAngles(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-kPi, kPi), u2(-1.4, 1.4);
    return Vec3(u(rng), u2(rng), u(rng));
}
}  // namespace

TEST_CASE("euler angles: Rxyz, angle extraction and the maps Gb, Gs") {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        const Vec3 th = RandomAngles(rng);
        const Mat3 R = RotationXyz(th);
        // Intrinsic x-y-z: the first rotation is about global x, the last about body z.
        CHECK((R - so3::Exp(Vec3(th[0], 0, 0)) * so3::Exp(Vec3(0, th[1], 0)) *
                       so3::Exp(Vec3(0, 0, th[2])))
                  .norm() <= 1e-14);
        CHECK((AnglesXyz(R) - th).norm() <= 1e-12);
        // dR/dtheta_k R^T = skew(Gs e_k) (spatial increments), Gb = R^T Gs.
        const Mat3 Gs = GSpatial(th), Gb = GBody(th);
        for (int k = 0; k < 3; ++k) {
            const double e = 1e-6;
            const Mat3 dR =
                (RotationXyz(th + e * Vec3::Unit(k)) - RotationXyz(th - e * Vec3::Unit(k))) /
                (2 * e);
            CHECK((dR * R.transpose() - Skew(Gs.col(k))).norm() <= 1e-9);
            // Partials of Gb against central differences.
            const Mat3 dG =
                (GBody(th + e * Vec3::Unit(k)) - GBody(th - e * Vec3::Unit(k))) / (2 * e);
            CHECK((dG - GBodyPartial(th, k)).norm() <= 1e-9);
            for (int l = 0; l < 3; ++l) {
                const Mat3 d2 = (GBodyPartial(th + e * Vec3::Unit(l), k) -
                                 GBodyPartial(th - e * Vec3::Unit(l), k)) /
                                (2 * e);
                CHECK((d2 - GBodyPartial2(th, k, l)).norm() <= 1e-9);
            }
        }
        CHECK((R.transpose() * Gs - Gb).norm() <= 1e-14);
        CHECK(std::abs(Gs.determinant() - std::cos(th[1])) <= 1e-14);
    }
    CHECK(SingularityDistance(kPi / 2) <= 1e-15);
    CHECK(SingularityDistance(-kPi / 2 + 2e-3) == doctest::Approx(2e-3).epsilon(1e-9));
    CHECK(SingularityDistance(3 * kPi / 2 - 5e-4) == doctest::Approx(5e-4).epsilon(1e-9));
    CHECK(SingularityDistance(0.0) == doctest::Approx(kPi / 2));
}

TEST_CASE("euler angles: registered; exact Jacobians with centre-of-mass offsets") {
    const FormulationDescriptor* d = GlobalRegistry().FindFormulation("euler angles");
    REQUIRE(d != nullptr);
    CHECK(d->provides == ProblemInterface::kSecondOrderDae);
    // Two dynamic nodes with offset bodies (s != 0), a spring-damper, a spherical constraint.
    std::mt19937 rng(5);
    Model m;
    for (int i = 0; i < 2; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = NodeKind::kDynamic;
        n.initial.x = test::Rand3(rng, 1.0);
        n.initial.R = so3::Exp(test::Rand3(rng, 1.0));
        n.initial.v = test::Rand3(rng, 1.0);
        n.initial.w = test::Rand3(rng, 2.0);
        m.AddNode(n);
        NodeInertia in;
        in.m = 2.0 + i;
        in.s = in.m * test::Rand3(rng, 0.5);
        const Mat3 A = Mat3::Random();
        in.J = A * A.transpose() + Mat3::Identity();
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    const Vec3 oa = test::Rand3(rng, 0.5), ob = test::Rand3(rng, 0.5);
    m.AddElement(test::SpringDamper(20, 0, 1, oa, ob));
    m.AddElement(test::SphericalConstraint(22, 0, 1, oa));
    auto form = d->make(m);
    SecondOrderProblem* p = form->second_order();
    REQUIRE(p != nullptr);
    const int nv = p->num_velocities(), nc = p->num_constraints();
    p->SetTime(0.4);
    const Eigen::VectorXd q0 = p->q() + Eigen::VectorXd::Random(nv) * 0.2;
    p->set_q(q0);
    const Eigen::VectorXd v = Eigen::VectorXd::Random(nv) * 2.0,
                          a = Eigen::VectorXd::Random(nv) * 3.0, lam = Eigen::VectorXd::Random(nc);
    SecondOrderProblem::Jacobians J;
    p->Evaluate(v, a, lam, J);
    const Eigen::MatrixXd M(J.M), Kq(J.Kq_inertia), C(J.C), K(J.K), L(J.L), B(J.B);
    CHECK((M - M.transpose()).norm() <= 1e-13 * M.norm());  // symmetric mass matrix
    Eigen::VectorXd Ma, f, phi;
    // Column k of an analytic block against central differences (step 1e-6, tolerance 1e-6
    // relative: the test elements' own FD derivatives are accurate to ~1e-8).
    auto check = [&](const char* what, const Eigen::MatrixXd& an, int n, auto&& g) {
        for (int k = 0; k < n; ++k) {
            const double e = 1e-6;
            const Eigen::VectorXd fd = (g(k, e) - g(k, -e)) / (2 * e);
            INFO(what, " column ", k);
            CHECK((fd - an.col(k)).norm() <= 1e-6 * (1.0 + fd.norm()));
        }
    };
    auto unit = [](int k, double s, int n) {
        Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
        u[k] = s;
        return u;
    };
    auto eval = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& vv, const Eigen::VectorXd& aa,
                    const Eigen::VectorXd& ll) {
        p->set_q(q);
        p->Evaluate(vv, aa, ll, Ma, f, phi);
    };
    check("M", M, nv, [&](int k, double s) {
        eval(q0, v, a + unit(k, s, nv), lam);
        return Eigen::VectorXd(Ma);
    });
    check("Kq_inertia", Kq, nv, [&](int k, double s) {
        eval(q0 + unit(k, s, nv), v, a, lam);
        return Eigen::VectorXd(Ma);
    });
    check("C", C, nv, [&](int k, double s) {
        eval(q0, v + unit(k, s, nv), a, lam);
        return Eigen::VectorXd(f);
    });
    check("K", K, nv, [&](int k, double s) {
        eval(q0 + unit(k, s, nv), v, a, lam);
        return Eigen::VectorXd(f);
    });
    check("L", L, nc, [&](int k, double s) {
        eval(q0, v, a, lam + unit(k, s, nc));
        return Eigen::VectorXd(f);
    });
    check("B", B, nv, [&](int k, double s) {
        eval(q0 + unit(k, s, nv), v, a, lam);
        return Eigen::VectorXd(phi);
    });
}

TEST_CASE("euler angles: a body spinning about body y stops before theta2 = pi/2") {
    // Torque-free body, principal inertia, spin w = 10 rad/s about body y from R = I: the exact
    // motion is R = Ry(w t), theta = (0, w t, 0); theta2 comes within 1e-3 of pi/2 at
    // t = (pi/2 - 1e-3)/w = 0.15698. With h = 1e-3 the last good step is t = 0.156 (distance
    // 1.08e-2); the step to t = 0.157 (distance 7.96e-4) must stop the run.
    const std::string path = std::string(MBSTEP_BINARY_DIR) + "/euler_angles_spin_y.mbd";
    std::ofstream(path) << R"(
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.5;
    time step: 1e-3;
    method: generalized alpha, 0.9;
    formulation: euler angles;
    tolerance: 1e-10;
    max iterations: 20;
end: initial value;
begin: control data;
    structural nodes: 1;
    rigid bodies: 1;
end: control data;
begin: nodes;
    structural: 7, dynamic, null, eye, null, 0., 10., 0.;
end: nodes;
begin: elements;
    body: 1, 7, 2., null, diag, 1., 2., 3.;
end: elements;
)";
    for (const char* method : {"generalized alpha, 0.9", "hht, -0.1"}) {
        INFO(std::string(method));
        double t_last = -1.0;
        Mat3 R_last = Mat3::Identity();
        std::string message;
        try {
            test::RunDeck(path, method, 0, 0, [&](double t, const Formulation& f) {
                CHECK(f.name() == "euler angles");
                t_last = t;
                R_last = f.node_states()[0].R;
            });
        } catch (const RunError& e) {
            message = e.what();
        }
        MESSAGE(message);
        CHECK(message.find("structural node 7") != std::string::npos);
        CHECK(message.find("euler parameters") != std::string::npos);
        CHECK(message.find("lie group") != std::string::npos);
        CHECK(t_last == doctest::Approx(0.156).epsilon(1e-12));
        // Up to the stop the motion is the exact one (second-order error in a free spin is
        // zero: w stays constant and the angle grows linearly).
        CHECK((R_last - RotY(10.0 * 0.156)).norm() <= 1e-8);
    }
}
