// mbstep — in line, in plane, distance (point_joints.hpp for the equations).
#include "point_joints.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::joints {

InLineJoint::InLineJoint(int label, const JointSide& a, const JointSide& b,
                         const Friction& friction)
    : TwoSideJoint(label, "in line", a, b, 2, ConstraintLevel::kPosition), friction_(friction) {}

void InLineJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    for (int i = 0; i < 2; ++i)
        AddProjectionRow(a.R.col(i), true, a, b, 0.0, i, ctx.lambda[i], out);
    if (!friction_.active) return;
    // Friction eqs. (1)-(3) of point_joints.hpp; both sides are nodes (columns 0 and 6).
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Vec3 u = a.R.col(2);
    const Vec3 r = b.point() - na.x;
    const Vec3 g = nb.v + nb.w.cross(b.p) - na.v - na.w.cross(r);
    const double k = friction_.Scale(n_prev_);
    double ds = 0.0;
    const double phi = -k * friction_.Shape(u.dot(g), ds);
    Eigen::Matrix<double, 12, 1> h;
    h << -u, -r.cross(u), u, b.p.cross(u);
    out.f.head<12>() += phi * h;  // eq. (2)
    if (!out.want_jacobian) return;
    const double ks = k * ds;
    const Vec3 uxwa = u.cross(na.w);
    Eigen::Matrix<double, 12, 1> gq;
    gq << uxwa, u.cross(g), -uxwa, b.p.cross(u.cross(nb.w - na.w));
    out.C.block<12, 12>(0, 0) += ks * h * h.transpose();  // eq. (3)
    out.K.block<12, 12>(0, 0) += ks * h * gq.transpose();
    const Mat3 Su = Skew(u), Sr = Skew(r), Sp = Skew(b.p);
    out.K.block<3, 3>(3, 0) += phi * Su;  // -phi dh/dq
    out.K.block<3, 3>(3, 3) -= phi * Sr * Su;
    out.K.block<3, 3>(3, 6) -= phi * Su;
    out.K.block<3, 3>(3, 9) += phi * Su * Sp;
    out.K.block<3, 3>(0, 3) -= phi * Su;
    out.K.block<3, 3>(6, 3) += phi * Su;
    out.K.block<3, 3>(9, 3) += phi * Sp * Su;
    out.K.block<3, 3>(9, 9) -= phi * Su * Sp;
}

double InLineJoint::FrictionForce(const ElementContext& ctx, double& coefficient) const {
    // Friction eqs. (1), (2), as in Evaluate.
    const Side a = SideA(ctx), b = SideB(ctx);
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Vec3 u = a.R.col(2);
    const Vec3 g = nb.v + nb.w.cross(b.p) - na.v - na.w.cross(b.point() - na.x);
    double ds = 0.0;
    const double s = friction_.Shape(u.dot(g), ds);
    coefficient = -friction_.mu * s;
    return -friction_.Scale(n_prev_) * s;
}

void InLineJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // Output (4): the multipliers' load on node 1, no couple; friction (2).
    const Side a = SideA(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, false, F, M);
    c.clear();
    AppendReactionColumns(c, a.R, F, Vec3::Zero());
    if (!friction_.active) return;
    double coefficient = 0.0;
    c.push_back(FrictionForce(ctx, coefficient));
    c.push_back(coefficient);
}

NetcdfGroup InLineJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.type = "inline";  // InLineJoint::OutputPrepare
    g.variables.push_back({"FF", OutputQuantity::kForce, "friction force (x, y, z)"});
    g.variables.push_back(
        {"fc", OutputQuantity::kDimensionless, "friction coefficient", NetcdfShape::kScalar});
    return g;
}

bool InLineJoint::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    // Output (5): FF = F3 u (the friction force on node 2), fc; zero without friction.
    Columns(ctx, out);
    double f3 = 0.0, fc = 0.0;
    if (friction_.active) {
        f3 = out[12];
        fc = out[13];
        out.resize(12);
    }
    AppendColumns(out, f3 * SideA(ctx).R.col(2));
    out.push_back(fc);
    return true;
}

void InLineJoint::AfterConvergence(const ElementContext& ctx) {
    n_prev_ = ctx.lambda ? std::hypot(ctx.lambda[0], ctx.lambda[1]) : 0.0;
}

InPlaneJoint::InPlaneJoint(int label, const JointSide& a, const JointSide& b, const Vec3& normal)
    : TwoSideJoint(label, "in plane", a, b, 1, ConstraintLevel::kPosition), n_(normal) {}

void InPlaneJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    const Vec3 n = a.ground() ? n_ : Vec3(ctx.node[0]->R * n_);
    AddProjectionRow(n, true, a, b, 0.0, 0, ctx.lambda[0], out);
}

void InPlaneJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // Output (4): the multiplier's load on node 1, its normal component as f_1; no couple.
    const Side a = SideA(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, false, F, M);
    const Vec3 n = a.ground() ? n_ : Vec3(ctx.node[0]->R * n_);
    c.clear();
    AppendColumns(c, Vec3(n.dot(F), 0.0, 0.0));
    AppendColumns(c, Vec3::Zero());
    AppendColumns(c, F);
    AppendColumns(c, Vec3::Zero());
}

std::string InPlaneJoint::MbdynLogLine(const LogLineContext& ctx) const {
    const Vec3 c = Vec3::UnitZ().cross(n_);
    const Mat3 R = ctx.node[0]->R.transpose() * so3::Exp(c * std::asin(std::min(1.0, c.norm())));
    return LogLine("inplane", label(), ctx.precision)
        .Node(ctx.node_label[0])
        .Vec(side_a().offset)
        .Mat(R)
        .Node(ctx.node_label[1])
        .Vec(side_b().offset)
        .Mat(Mat3::Identity())
        .str();
}

DistanceJoint::DistanceJoint(int label, const JointSide& a, const JointSide& b, DrivePtr length)
    : TwoSideJoint(label, "distance", a, b, 1, ConstraintLevel::kPosition),
      length_(std::move(length)) {}

void DistanceJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    const Vec3 d = b.point() - a.point();
    const double len = d.norm();
    const Vec3 n = d / len;
    const double mu = ctx.lambda[0];
    AddProjectionRow(n, false, a, b, length_->Value(ctx.t), 0, mu, out);
    if (!out.want_jacobian) return;
    // mu J^T P J
    const Mat3 P = (Mat3::Identity() - n * n.transpose()) / len;
    Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();
    J.block<3, 3>(0, 0) = -Mat3::Identity();
    J.block<3, 3>(0, 3) = Skew(a.p);
    J.block<3, 3>(0, 6) = Mat3::Identity();
    J.block<3, 3>(0, 9) = -Skew(b.p);
    out.K.block<12, 12>(0, 0) += mu * J.transpose() * P * J;
}

void DistanceJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // Output (4): the multiplier's load on node 1, no couple; d / l(t), l(t).
    const Side a = SideA(ctx), b = SideB(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, false, F, M);
    const Vec3 d = b.point() - a.point();
    const double l = length_->Value(ctx.t);
    c.clear();
    AppendColumns(c, Vec3(F.dot(d) / d.squaredNorm(), 0.0, 0.0));
    AppendColumns(c, Vec3::Zero());
    AppendColumns(c, F);
    AppendColumns(c, Vec3::Zero());
    AppendColumns(c, d / l);
    c.push_back(l);
}

NetcdfGroup DistanceJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.variables.push_back({"V", OutputQuantity::kDimensionless,
                           "constrained distance direction unit vector (x, y, z)"});
    g.variables.push_back(
        {"d", OutputQuantity::kLength, "constrained distance magnitude", NetcdfShape::kScalar});
    return g;
}

namespace {

std::unique_ptr<Element> Finish(std::unique_ptr<Element> e, const SourceLocation& where) {
    e->set_where(where);
    return e;
}

}  // namespace

std::unique_ptr<Element> ReadInLine(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    JointSide a;
    a.node = in.GetNode("node 1 label");
    const FrameState& rf = in.node(a.node).initial;
    in.IsKeyword("position");
    const SourceLocation at = in.Where();
    a.offset = in.GetPosition(rf, "relative line position");
    if (!a.offset.allFinite()) in.Fail(at, "relative line position is not finite");
    in.IsKeyword("orientation");
    const SourceLocation r_at = in.Where();
    a.R = in.GetOrientation(rf, "relative line orientation");
    CheckRotation(in, r_at, a.R, "relative line orientation");
    JointSide b;
    const SourceLocation b_at = in.Where();
    b.node = in.GetNode("node 2 label");
    if (b.node == a.node) in.Fail(b_at, "an in line joint needs two different nodes");
    if (in.IsKeyword("offset")) b.offset = in.GetPosition(in.node(b.node).initial, "offset");
    Friction friction;
    if (in.IsKeyword("friction")) friction = ReadFriction(in, false, "in line");
    return Finish(std::make_unique<InLineJoint>(args.label, a, b, friction), where);
}

std::unique_ptr<Element> ReadInPlane(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    JointSide a;
    a.node = in.GetNode("node 1 label");
    const FrameState& rf = in.node(a.node).initial;
    in.IsKeyword("position");
    const SourceLocation at = in.Where();
    a.offset = in.GetPosition(rf, "relative plane position");
    if (!a.offset.allFinite()) in.Fail(at, "relative plane position is not finite");
    const SourceLocation n_at = in.Where();
    const Vec3 n = in.GetDirection(rf, "relative plane normal");
    if (!n.allFinite() || n.norm() < 1e-12)
        in.Fail(n_at, "the plane normal must be a non-zero vector");
    JointSide b;
    const SourceLocation b_at = in.Where();
    b.node = in.GetNode("node 2 label");
    if (b.node == a.node) in.Fail(b_at, "an in plane joint needs two different nodes");
    if (in.IsKeyword("offset")) b.offset = in.GetPosition(in.node(b.node).initial, "offset");
    return Finish(std::make_unique<InPlaneJoint>(args.label, a, b, n.normalized()), where);
}

std::unique_ptr<Element> ReadDistance(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    JointSide a, b;
    a.node = in.GetNode("node 1 label");
    if (in.IsKeyword("position")) a.offset = in.GetPosition(in.node(a.node).initial, "offset 1");
    const SourceLocation b_at = in.Where();
    b.node = in.GetNode("node 2 label");
    if (b.node == a.node) in.Fail(b_at, "a distance joint needs two different nodes");
    if (in.IsKeyword("position")) b.offset = in.GetPosition(in.node(b.node).initial, "offset 2");
    const FrameState& na = in.node(a.node).initial;
    const FrameState& nb = in.node(b.node).initial;
    const double l0 = (nb.x + nb.R * b.offset - na.x - na.R * a.offset).norm();
    const SourceLocation l_at = in.Where();
    DrivePtr length;
    if (in.IsKeyword("from nodes")) {
        if (!(l0 > 1e-12)) in.Fail(l_at, "distance from nodes: the two points coincide");
        length = std::make_shared<ConstDrive>(l0);
    } else {
        if (!in.HasArg()) in.Fail(l_at, "distance: missing the distance drive (or 'from nodes')");
        length = in.GetDrive("distance");
        if (length->IsConstant() && !(length->Value(0.0) > 0.0))
            in.Fail(l_at, "the distance must be positive");
    }
    return Finish(std::make_unique<DistanceJoint>(args.label, a, b, std::move(length)), where);
}

}  // namespace mbstep::joints
