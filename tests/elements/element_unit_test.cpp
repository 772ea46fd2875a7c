// mbstep tests — numbers of the element families (body, gravity, forces, joints): inertia,
// loads, constraint values at assembled configurations, and input validation.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <Eigen/SVD>
#include <cmath>
#include <sstream>

#include "body/body.hpp"
#include "fd_check.hpp"
#include "forces/structural_force.hpp"
#include "gravity/gravity.hpp"
#include "joints/clamp.hpp"
#include "joints/revolute.hpp"
#include "joints/spherical.hpp"
#include "joints/total.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "snippet_input.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {

constexpr double kEps = 1e-12;

// Evaluates e at the given node states and multipliers (gravity g, time t).
ElementBlock Eval(const Element& e, const std::vector<FrameState>& states,
                  const std::vector<double>& lambda = {}, const Vec3& g = Vec3::Zero(),
                  double t = 0.0) {
    std::vector<const FrameState*> ptr;
    for (const FrameState& s : states) ptr.push_back(&s);
    ElementContext ctx;
    ctx.t = t;
    ctx.node = ptr.data();
    ctx.lambda = lambda.data();
    ctx.gravity = g;
    ElementBlock b;
    b.Reset(static_cast<int>(states.size()), e.num_multipliers(), true);
    e.Evaluate(ctx, b);
    return b;
}

FrameState Pose(const Vec3& x, const Mat3& R) {
    FrameState s;
    s.x = x;
    s.R = R;
    return s;
}

// Reads one statement with the test input through a family reader.
template <class Reader>
std::unique_ptr<Element> Read(const std::string& text, Reader read, SnippetInput** keep = nullptr) {
    static std::unique_ptr<SnippetInput> in;
    in = std::make_unique<SnippetInput>(text, TestNodes());
    int label = 0;
    if (in->statement() != "gravity") label = static_cast<int>(in->GetInt("label"));
    // The type keyword (the deck reader consumes it before calling the element's reader).
    for (const char* type : {"absolute", "follower", "clamp", "spherical hinge", "spherical pin",
                             "revolute hinge", "revolute pin"})
        if (in->IsKeyword(type)) break;
    ElementReadArgs args{*in, label};
    auto e = read(args);
    REQUIRE_FALSE(in->HasArg());
    if (keep) *keep = in.get();
    return e;
}

// The message and column of the DeckError thrown while reading text.
template <class Reader>
std::pair<std::string, int> ReadError(const std::string& text, Reader read) {
    try {
        Read(text, read);
    } catch (const DeckError& e) {
        return {e.message(), e.where().column};
    }
    return {"", 0};
}

}  // namespace

TEST_CASE("body: inertia about the node by the parallel-axis theorem") {
    const body::MassInput mass{2.0, Vec3(0.1, 0.2, 0.3), Vec3(1.0, 2.0, 3.0).asDiagonal()};
    const NodeInertia in = body::CondenseMasses(&mass, 1);
    CHECK(in.m == doctest::Approx(2.0));
    CHECK((in.s - Vec3(0.2, 0.4, 0.6)).norm() < kEps);
    // J = J_cm + m (|c|^2 I - c c^T), |c|^2 = 0.14.
    Mat3 J;
    J << 1.26, -0.04, -0.06, -0.04, 2.20, -0.12, -0.06, -0.12, 3.10;
    CHECK((in.J - J).norm() < kEps);

    // The same through the reader, with the inertia given in a frame rotated about node z:
    // J_node = Rz J_cm Rz^T.
    auto e = Read(
        "body: 1, 1, 2., 0.1, 0.2, 0.3, diag, 1., 2., 3., inertial, euler123, 0., 0., "
        "1.5707963267948966;",
        body::ReadBody);
    const auto& b = dynamic_cast<const body::Body&>(*e);
    Mat3 Jr;
    Jr << 2.26, -0.04, -0.06, -0.04, 1.20, -0.12, -0.06, -0.12, 3.10;
    CHECK((b.inertia().J - Jr).norm() < 1e-12);
    std::vector<NodeInertia> acc(1);
    b.AddInertia(acc);
    CHECK(acc[0].m == doctest::Approx(2.0));

    // Condensed masses add up: a point mass at -c cancels the first moment.
    auto e2 = Read("body: 1, 2, condense, 2, 1., 0.5, 0., 0., null, 1., -0.5, 0., 0., null;",
                   body::ReadBody);
    const auto& b2 = dynamic_cast<const body::Body&>(*e2);
    CHECK(b2.inertia().m == doctest::Approx(2.0));
    CHECK(b2.inertia().s.norm() < kEps);
    CHECK(b2.inertia().J(1, 1) == doctest::Approx(0.5));
    CHECK(b2.inertia().J(0, 0) == doctest::Approx(0.0));
}

TEST_CASE("body: gravity force, moment about the node and potential energy") {
    // m = 2, centre of mass 1 m along node x; node turned 90 deg about z, at height 1.
    const body::MassInput mass{2.0, Vec3(1.0, 0.0, 0.0), Mat3::Identity()};
    const body::Body b(1, 0, body::CondenseMasses(&mass, 1));
    const Vec3 g(0.0, 0.0, -9.81);
    const FrameState n = Pose(Vec3(0.0, 0.0, 1.0), RotZ(M_PI / 2));
    const ElementBlock out = Eval(b, {n}, {}, g);
    CHECK((out.f.segment<3>(0) - Vec3(0.0, 0.0, -19.62)).norm() < kEps);
    // R s = (0, 2, 0): M = (0, 2, 0) x (0, 0, -9.81) = (-19.62, 0, 0).
    CHECK((out.f.segment<3>(3) - Vec3(-19.62, 0.0, 0.0)).norm() < kEps);
    CHECK(out.C.isZero(0.0));

    std::vector<const FrameState*> ptr{&n};
    ElementContext ctx;
    ctx.node = ptr.data();
    ctx.gravity = g;
    CHECK(b.PotentialEnergy(ctx) == doctest::Approx(19.62));
    // No gravity, no load.
    CHECK(Eval(b, {n}).f.isZero(0.0));
}

TEST_CASE("body: invalid input names the argument") {
    auto [msg, col] = ReadError("body: 1, 1, -1., null, eye;", body::ReadBody);
    CHECK(msg == "mass must be positive");
    CHECK(col == 13);
    std::tie(msg, col) = ReadError(
        "body: 1, 1, 1., null, matr, 1., 0.1, 0., 0., 1., 0., 0., 0., 1.;", body::ReadBody);
    CHECK(msg == "inertia matrix is not symmetric positive definite");
    CHECK(col == 23);
    std::tie(msg, col) = ReadError("body: 1, 1, 1., null, diag, 1., -1., 1.;", body::ReadBody);
    CHECK(msg == "inertia matrix is not symmetric positive definite");
    std::tie(msg, col) = ReadError("body: 1, 7, 1., null, eye;", body::ReadBody);
    CHECK(msg == "undefined structural node 7");
}

TEST_CASE("gravity: both syntaxes set the field, the element writes nothing") {
    SnippetInput* in = nullptr;
    auto e = Read("gravity: uniform, 0., 0., -1., const, 9.81;", gravity::ReadUniformGravity, &in);
    REQUIRE(in->gravity().has_value());
    CHECK((in->gravity()->At(0.3) - Vec3(0.0, 0.0, -9.81)).norm() < kEps);
    CHECK_FALSE(e->HasContribution());
    CHECK(e->nodes().empty());
    auto e2 = Read("gravity: 0., -1., 0., 3.;", gravity::ReadUniformGravity, &in);
    CHECK((in->gravity()->At(1.0) - Vec3(0.0, -3.0, 0.0)).norm() < kEps);
    auto [msg, col] = ReadError("gravity: central, mass, 1.;", gravity::ReadUniformGravity);
    CHECK(msg.find("central") != std::string::npos);
}

TEST_CASE("forces: moments of the arm, absolute and follower") {
    const FrameState n = Pose(Vec3(1.0, 2.0, 3.0), RotZ(M_PI / 2));
    // Absolute force (0, 0, 10) at arm (1, 0, 0) of the node: R a = (0, 1, 0), M = (10, 0, 0).
    auto fa = Read("force: 1, absolute, 1, position, 1., 0., 0., 0., 0., 1., const, 10.;",
                   forces::ReadAbsoluteForce);
    ElementBlock out = Eval(*fa, {n});
    CHECK((out.f.segment<3>(0) - Vec3(0.0, 0.0, 10.0)).norm() < kEps);
    CHECK((out.f.segment<3>(3) - Vec3(10.0, 0.0, 0.0)).norm() < kEps);
    // Follower force 2 along node x at arm node z: F = (0, 2, 0), M = (0, 0, 1) x F = (-2, 0, 0).
    auto ff = Read("force: 1, follower, 1, position, 0., 0., 1., 1., 0., 0., 2.;",
                   forces::ReadFollowerForce);
    out = Eval(*ff, {n});
    CHECK((out.f.segment<3>(0) - Vec3(0.0, 2.0, 0.0)).norm() < kEps);
    CHECK((out.f.segment<3>(3) - Vec3(-2.0, 0.0, 0.0)).norm() < kEps);
    // Couples: absolute as given, follower rotated with the node; no force.
    auto ca = Read("couple: 1, absolute, 1, 1., 2., 3., 0.5;", forces::ReadAbsoluteCouple);
    out = Eval(*ca, {n});
    CHECK(out.f.segment<3>(0).isZero(0.0));
    CHECK((out.f.segment<3>(3) - Vec3(0.5, 1.0, 1.5)).norm() < kEps);
    auto cf = Read("couple: 1, follower, 1, position, 5., 5., 5., 1., 0., 0., 3.;",
                   forces::ReadFollowerCouple);
    out = Eval(*cf, {n});
    CHECK((out.f.segment<3>(3) - Vec3(0.0, 3.0, 0.0)).norm() < kEps);
    // Component drive with an inactive component.
    auto fc = Read("force: 1, absolute, 1, null, component, 1., inactive, const, -2.;",
                   forces::ReadAbsoluteForce);
    out = Eval(*fc, {n});
    CHECK((out.f.segment<3>(0) - Vec3(1.0, 0.0, -2.0)).norm() < kEps);
    CHECK(out.f.segment<3>(3).isZero(0.0));
}

TEST_CASE("spherical hinge: phi = 0 where assembled and under rigid motions of the pair") {
    const FrameState a = Pose(Vec3(0.1, -0.4, 0.7), so3::Exp(Vec3(0.3, -1.1, 0.4)));
    FrameState b = Pose(Vec3(-0.6, 0.2, 0.5), so3::Exp(Vec3(-0.7, 0.2, 1.3)));
    joints::JointSide sa{0, Vec3(0.2, -0.3, 0.4), Mat3::Identity()};
    joints::JointSide sb{1, b.R.transpose() * (a.x + a.R * sa.offset - b.x), Mat3::Identity()};
    const joints::SphericalJoint j(1, sa, sb);
    CHECK(Eval(j, {a, b}, {0, 0, 0}).phi.norm() < kEps);
    // Rotate node b about the joint point: still assembled.
    const Vec3 p = a.x + a.R * sa.offset;
    const Mat3 Q = so3::Exp(Vec3(0.5, 0.9, -0.2));
    b.x = p + Q * (b.x - p);
    b.R = Q * b.R;
    CHECK(Eval(j, {a, b}, {0, 0, 0}).phi.norm() < kEps);
    // Reactions: node a gets -lambda, node b +lambda.
    const ElementBlock out = Eval(j, {a, b}, {1.0, 2.0, 3.0});
    CHECK((out.f.segment<3>(0) + Vec3(1.0, 2.0, 3.0)).norm() < kEps);
    CHECK((out.f.segment<3>(6) - Vec3(1.0, 2.0, 3.0)).norm() < kEps);
    // Pin: phi = x + R f - X.
    joints::JointSide ground{-1, Vec3(1.0, 1.0, 1.0), Mat3::Identity()};
    const joints::SphericalJoint pin(2, sa, ground);
    CHECK((Eval(pin, {a}, {0, 0, 0}).phi - (p - Vec3(1.0, 1.0, 1.0))).norm() < kEps);
}

TEST_CASE("revolute hinge: rotation about the common axis only") {
    const FrameState a = Pose(Vec3(0.3, 0.1, -0.2), so3::Exp(Vec3(0.4, 0.2, -0.9)));
    FrameState b0 = Pose(Vec3(-0.5, 0.8, 0.1), so3::Exp(Vec3(1.2, -0.3, 0.5)));
    const Mat3 Rh_a = so3::Exp(Vec3(0.2, -0.6, 0.3));
    // Joint frames coincide: R_b Rh_b = R_a Rh_a; joint points coincide.
    joints::JointSide sa{0, Vec3(0.1, 0.2, -0.3), Rh_a};
    const Vec3 p = a.x + a.R * sa.offset;
    joints::JointSide sb{1, b0.R.transpose() * (p - b0.x), b0.R.transpose() * a.R * Rh_a};
    const joints::RevoluteJoint j(1, sa, sb);
    const std::vector<double> zero(5, 0.0);
    CHECK(Eval(j, {a, b0}, zero).phi.norm() < kEps);

    const Vec3 axis = a.R * Rh_a.col(2);
    for (double angle : {0.3, 1.7, -2.5}) {
        // About the axis through the joint point: phi stays 0.
        const Mat3 Q = so3::Exp(angle * axis);
        const FrameState b = Pose(p + Q * (b0.x - p), Q * b0.R);
        CHECK(Eval(j, {a, b}, zero).phi.norm() < 1e-12);
        // About a perpendicular axis: the axis constraints are violated.
        const Vec3 perp = axis.cross(Vec3(1.0, 0.0, 0.0)).normalized();
        const Mat3 Qp = so3::Exp(0.2 * perp);
        const FrameState c = Pose(p + Qp * (b0.x - p), Qp * b0.R);
        const ElementBlock out = Eval(j, {a, c}, zero);
        CHECK(out.phi.head<3>().norm() < 1e-12);
        CHECK(out.phi.tail<2>().norm() > 0.1);
    }
    // Pin with the ground frame at the joint frame: assembled; turning about the axis keeps it.
    joints::JointSide ground{-1, p, a.R * Rh_a};
    const joints::RevoluteJoint pin(2, sa, ground);
    CHECK(Eval(pin, {a}, zero).phi.norm() < kEps);
    const Mat3 Q = so3::Exp(0.8 * axis);
    const FrameState a2 = Pose(p + Q * (a.x - p), Q * a.R);
    CHECK(Eval(pin, {a2}, zero).phi.norm() < 1e-12);
}

TEST_CASE("clamp: phi = 0 at the clamped pose, reactions are -lambda") {
    auto e = Read("joint: 1, clamp, 2, node, node;", joints::ReadClamp);
    const StructuralNode n = TestNodes()[1];
    const std::vector<double> l{1, 2, 3, 4, 5, 6};
    const ElementBlock out = Eval(*e, {n.initial}, l);
    CHECK(out.phi.norm() < kEps);
    CHECK((out.f + Eigen::Map<const Vec6>(l.data())).norm() < kEps);
    // Small rotation dtheta: phi_r ~ dtheta.
    const FrameState r = Pose(n.initial.x, so3::Exp(Vec3(1e-4, -2e-4, 3e-4)) * n.initial.R);
    CHECK((Eval(*e, {r}, l).phi.tail<3>() - Vec3(1e-4, -2e-4, 3e-4)).norm() < 1e-10);
    auto [msg, col] = ReadError(
        "joint: 1, clamp, 1, node, matr, 1., 0., 0., 0., 2., 0., 0., 0., 1.;", joints::ReadClamp);
    CHECK(msg == "absolute orientation is not an orthonormal rotation matrix");
    CHECK(col == 27);
}

TEST_CASE("joints read MBDyn's forms with and without keywords") {
    // borri: revolute pin without `position`; chain15: spherical pin with `reference`.
    auto r = Read("joint: 1, revolute pin, 1, -0.5, 0., 0., null;", joints::ReadRevolutePin);
    const auto& rp = dynamic_cast<const joints::RevoluteJoint&>(*r);
    CHECK((rp.side_a().offset - Vec3(-0.5, 0.0, 0.0)).norm() < kEps);
    CHECK(rp.side_b().node == -1);
    auto s = Read(
        "joint: 1, spherical pin, 1, position, reference, node, 0., 0., 0.5, "
        "position, reference, global, 0., 0., 0.;",
        joints::ReadSphericalPin);
    CHECK(s->type() == "spherical pin");
    auto h = Read(
        "joint: 2, spherical hinge, 1, 0.5, 0., 0., hinge, eye, 2, -0.5, 0., 0., "
        "hinge, eye;",
        joints::ReadSphericalHinge);
    CHECK(h->nodes().size() == 2);
    auto [msg, col] =
        ReadError("joint: 1, spherical hinge, 1, null, 1, null;", joints::ReadSphericalHinge);
    CHECK(msg == "a spherical hinge needs two different nodes");
}

TEST_CASE("joints write one .jnt line: label, local F, M, global F, M") {
    const FrameState a = Pose(Vec3(0.1, 0.2, 0.3), RotZ(M_PI / 2));
    joints::JointSide sa{0, Vec3(1.0, 0.0, 0.0), Mat3::Identity()};
    joints::JointSide ground{-1, Vec3::Zero(), Mat3::Identity()};
    const joints::SphericalJoint pin(7, sa, ground);
    const std::vector<double> l{1.0, 2.0, 3.0};
    std::vector<const FrameState*> ptr{&a};
    ElementContext ctx;
    ctx.node = ptr.data();
    ctx.lambda = l.data();
    std::ostringstream os;
    REQUIRE(pin.HasReactionOutput());
    pin.WriteReaction(os, ctx);
    std::istringstream is(os.str());
    std::vector<double> v;
    for (double x; is >> x;) v.push_back(x);
    // MBDyn's PinJoint::Output (mbdyn/struct/spherj.cc): the 12 reaction columns with the
    // global force as the local one, then the node's Euler angles 123 in degrees.
    REQUIRE(v.size() == 16);
    CHECK(v[0] == 7);
    // MBDyn's multiplier F = lambda (the load on the ground; the node carries -lambda),
    // written as both the local and the global force; then an empty line.
    CHECK((Vec3(v[1], v[2], v[3]) - Vec3(1.0, 2.0, 3.0)).norm() < 1e-12);
    CHECK((Vec3(v[7], v[8], v[9]) - Vec3(1.0, 2.0, 3.0)).norm() < 1e-12);
    CHECK(os.str().size() > 2);
    CHECK(os.str().substr(os.str().size() - 2) == "\n\n");
    CHECK((Vec3(v[13], v[14], v[15]) - Vec3(0.0, 0.0, 90.0)).norm() < 1e-12);
}

TEST_CASE("total joint .jnt: reactions, then relative position, rotation, velocities (MBDyn)") {
    // MBDyn's TotalJoint::Output appends, in the joint frames of node a, the relative position,
    // the rotation vector of Rr_a^T Rr_b, and the derivatives of both; checked here against
    // central differences of the first two along the nodes' twists.
    FrameState a = Pose(Vec3(0.1, -0.4, 0.7), so3::Exp(Vec3(0.3, -1.1, 0.4)));
    FrameState b = Pose(Vec3(-0.6, 0.2, 0.5), so3::Exp(Vec3(-0.7, 0.2, 1.3)));
    a.v = Vec3(0.3, -0.2, 0.9);
    a.w = Vec3(-0.5, 0.8, 0.1);
    b.v = Vec3(-0.4, 0.6, 0.2);
    b.w = Vec3(0.7, -0.3, 1.1);
    joints::TotalJoint::Spec spec;
    spec.a = joints::JointSide{0, Vec3(0.2, 0.1, -0.3), so3::Exp(Vec3(0.2, 0.0, 0.1))};
    spec.b = joints::JointSide{1, Vec3(-0.1, 0.4, 0.2), Mat3::Identity()};
    spec.Rr_a = so3::Exp(Vec3(0.0, 0.3, -0.2));
    spec.Rr_b = so3::Exp(Vec3(0.1, -0.1, 0.4));
    for (int i = 0; i < 3; ++i) spec.position_active[i] = spec.rotation_active[i] = true;
    const joints::TotalJoint joint(5, "total joint", spec);
    const std::vector<double> lambda(6, 0.0);
    auto relative = [&](const FrameState& na, const FrameState& nb, Vec3& X, Mat3& Rrel) {
        const Mat3 Rp_a = na.R * spec.a.R;
        X = Rp_a.transpose() * (nb.x + nb.R * spec.b.offset - na.x - na.R * spec.a.offset);
        Rrel = (na.R * spec.Rr_a).transpose() * (nb.R * spec.Rr_b);
    };
    auto moved = [](const FrameState& s, double t) {
        FrameState m = s;
        m.x = s.x + t * s.v;
        m.R = so3::Exp(t * s.w) * s.R;
        return m;
    };
    std::vector<const FrameState*> ptr{&a, &b};
    ElementContext ctx;
    ctx.node = ptr.data();
    ctx.lambda = lambda.data();
    std::ostringstream os;
    os.precision(17);
    joint.WriteReaction(os, ctx);
    std::istringstream is(os.str());
    std::vector<double> v;
    for (double x; is >> x;) v.push_back(x);
    REQUIRE(v.size() == 25);
    CHECK(v[0] == 5);
    Vec3 X;
    Mat3 Rrel;
    relative(a, b, X, Rrel);
    CHECK((Vec3(v[13], v[14], v[15]) - X).norm() < 1e-14);
    CHECK((so3::Exp(Vec3(v[16], v[17], v[18])) - Rrel).norm() < 1e-14);
    const double dt = 1e-6;
    Vec3 Xp, Xm;
    Mat3 Rp, Rm;
    relative(moved(a, dt), moved(b, dt), Xp, Rp);
    relative(moved(a, -dt), moved(b, -dt), Xm, Rm);
    CHECK((Vec3(v[19], v[20], v[21]) - (Xp - Xm) / (2 * dt)).norm() < 1e-8);
    // d/dt (Rr_a^T Rr_b) = skew(Omega) Rr_a^T Rr_b: Omega in the frame of side a.
    CHECK((Vec3(v[22], v[23], v[24]) - LogSO3(Rp * Rm.transpose()) / (2 * dt)).norm() < 1e-8);
}

TEST_CASE("total pin joint with one free rotation: rows regular half a turn from the start") {
    // Orientation constrained about x and z, free about y: at a relative rotation of pi about y
    // the two halves of each sin-type row ax(E)_i cancel (the rows' derivative is
    // (1 + cos psi) / 2); the rows a_y.c_z, a_y.c_x keep full rank for every psi, and equal
    // the sin-type rows to first order at psi = 0.
    joints::TotalJoint::Spec spec;
    spec.a = joints::JointSide{-1, Vec3::Zero(), Mat3::Identity()};
    spec.b = joints::JointSide{0, Vec3::Zero(), Mat3::Identity()};
    spec.Rr_a = Mat3::Identity();
    spec.Rr_b = Mat3::Identity();
    spec.position_active[0] = spec.position_active[1] = spec.position_active[2] = true;
    spec.rotation_active[0] = spec.rotation_active[2] = true;
    const joints::TotalJoint joint(1, "total pin joint", spec);
    REQUIRE(joint.num_multipliers() == 5);
    const double kPi = std::acos(-1.0);
    for (const double psi : {0.0, 0.5 * kPi, kPi, 1.5 * kPi, 2.0 * kPi - 1e-9}) {
        const FrameState b = Pose(Vec3::Zero(), so3::Exp(Vec3(0.0, psi, 0.0)));
        const ElementBlock blk = Eval(joint, {b}, std::vector<double>(5, 0.0));
        // Rows 3, 4 (x, z) against the node's rotation columns 3..5: d/d(eps) of the row.
        const Eigen::Matrix<double, 2, 3> G = blk.phi_q.block(3, 3, 2, 3);
        CHECK(std::abs(blk.phi(3)) < 1e-15);
        CHECK(std::abs(blk.phi(4)) < 1e-15);
        // Unit rows along the two constrained axes of the rotated frame, whatever psi.
        const Eigen::JacobiSVD<Eigen::Matrix<double, 2, 3>> svd(G);
        CHECK(svd.singularValues()(1) > 1.0 - 1e-12);
        CHECK(svd.singularValues()(0) < 1.0 + 1e-12);
        CHECK(std::abs(G.col(1).norm()) < 1e-15);  // no dependence on the free rotation
    }
    // A small rotation error e about x and z: the rows read it as the sin-type rows do.
    const Vec3 e(2e-4, 0.0, -3e-4);
    const ElementBlock small =
        Eval(joint, {Pose(Vec3::Zero(), so3::Exp(e))}, std::vector<double>(5));
    CHECK(std::abs(std::abs(small.phi(3)) - 2e-4) < 1e-7);
    CHECK(std::abs(std::abs(small.phi(4)) - 3e-4) < 1e-7);
}

TEST_CASE("dummy nodes: offset and relative frame follow their nodes, twists are consistent") {
    // Base node b and reference node r move with constant twists; the dummy's velocity and
    // angular velocity must be the time derivatives of its pose (central differences).
    FrameState b0 = Pose(Vec3(0.3, -0.2, 1.1), so3::Exp(Vec3(0.4, -0.7, 0.2)));
    b0.v = Vec3(0.5, 1.0, -0.3);
    b0.w = Vec3(-0.8, 0.4, 1.3);
    FrameState r0 = Pose(Vec3(-1.0, 0.4, 0.2), so3::Exp(Vec3(-0.3, 0.5, 0.9)));
    r0.v = Vec3(-0.2, 0.1, 0.7);
    r0.w = Vec3(0.6, -1.1, 0.2);
    auto at = [](const FrameState& s, double t) {
        FrameState m = s;
        m.x = s.x + t * s.v;
        m.R = so3::Exp(t * s.w) * s.R;
        return m;
    };
    DummyNode offset;
    offset.base = 0;
    offset.f = Vec3(0.2, -0.4, 0.5);
    offset.Rh = so3::Exp(Vec3(0.1, 0.2, -0.3));
    DummyNode rel = offset;
    rel.kind = DummyNode::Kind::kRelativeFrame;
    rel.reference = 1;
    for (const DummyNode* d : {&offset, &rel}) {
        const double h = 1e-6;
        const std::vector<FrameState> s0{b0, r0}, sp{at(b0, h), at(r0, h)},
            sm{at(b0, -h), at(r0, -h)};
        const FrameState y = d->Evaluate(s0), yp = d->Evaluate(sp), ym = d->Evaluate(sm);
        CHECK(((yp.x - ym.x) / (2 * h) - y.v).norm() < 1e-8);
        CHECK((LogSO3(yp.R * ym.R.transpose()) / (2 * h) - y.w).norm() < 1e-8);
    }
    // Offset: the point x + R f with the node's angular velocity.
    const FrameState y = offset.Evaluate(std::vector<FrameState>{b0, r0});
    CHECK((y.x - (b0.x + b0.R * offset.f)).norm() < kEps);
    CHECK((y.R - b0.R * offset.Rh).norm() < kEps);
    CHECK((y.w - b0.w).norm() < kEps);
    // Relative frame of a node to itself: identity pose at the offset, no motion.
    DummyNode self = rel;
    self.reference = 0;
    self.f = Vec3::Zero();
    self.Rh = Mat3::Identity();
    const FrameState z = self.Evaluate(std::vector<FrameState>{b0, r0});
    CHECK(z.x.norm() < kEps);
    CHECK((z.R - Mat3::Identity()).norm() < kEps);
    CHECK(z.v.norm() < kEps);
    CHECK(z.w.norm() < kEps);
}
