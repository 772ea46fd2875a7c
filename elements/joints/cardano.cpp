// mbstep — Cardano joints and gimbal rotation (cardano.hpp for the equations).
#include "cardano.hpp"

#include <cmath>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/output.hpp"

namespace mbstep::joints {

CardanoJoint::CardanoJoint(int label, std::string type, const JointSide& a, const JointSide& b,
                           bool with_point, OrientationOutput d)
    : TwoSideJoint(label, std::move(type), a, b, with_point ? 4 : 1, ConstraintLevel::kPosition),
      with_point_(with_point),
      od_(d) {}

void CardanoJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // eq. (4): the load on node b; the pin's (b the ground) on its node.
    const Side a = SideA(ctx), b = SideB(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, !b.ground(), F, M);
    const Vec3 v = b.R.col(1).cross(a.R.col(2));
    c.clear();
    AppendColumns(c, with_point_ ? Vec3(a.R.transpose() * F) : Vec3::Zero());
    AppendColumns(c, Vec3(v.dot(M), 0.0, 0.0));
    AppendColumns(c, with_point_ ? F : Vec3::Zero());
    AppendColumns(c, M);
    AppendOrientationValues(c, b.R.transpose() * a.R,
                            with_point_ ? OrientationOutput::kEuler123 : od_);
}

void CardanoJoint::NetcdfColumns(std::vector<double>& c) const {
    if (with_point_)
        c.resize(12);
    else
        OrientationColumnsToNetcdf(c, 12, od_);
}

NetcdfGroup CardanoJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (!g.prefix.empty() && !with_point_)
        g.variables.push_back(OrientationVariable(od_, "global"));
    return g;
}

void CardanoJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    int row = 0;
    if (with_point_)
        for (; row < 3; ++row)  // eq. (1)
            AddProjectionRow(Vec3::Unit(row), false, a, b, 0.0, row, ctx.lambda[row], out);
    AddDotRow(a.R.col(2), a, b.R.col(1), b, 1.0, row, ctx.lambda[row], out);  // eq. (2)
}

GimbalRotation::GimbalRotation(int label, const JointSide& a, const JointSide& b,
                               OrientationOutput d)
    : TwoSideJoint(label, "gimbal rotation", a, b, 1, ConstraintLevel::kPosition), od_(d) {}

void GimbalRotation::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // eqs. (5)-(7).
    Vec3 F, M;
    MultiplierLoad(ctx, true, F, M);
    const Side a = SideA(ctx), b = SideB(ctx);
    const Mat3 R = a.R.transpose() * b.R;
    const double two_theta = std::atan2(R(0, 2) - R(2, 0), R(0, 0) + R(2, 2));
    const double theta = 0.5 * two_theta;
    const double phi = std::atan2(std::sin(theta) * R(0, 1) + std::cos(theta) * R(2, 1), R(1, 1));
    const Mat3& Ra = ctx.node[0]->R;
    c.clear();
    AppendReactionColumns(c, Ra, Vec3::Zero(), M);
    c.push_back(theta);
    c.push_back(phi);
    AppendOrientationValues(c, Ra.transpose() * ctx.node[1]->R, od_);
}

void GimbalRotation::NetcdfColumns(std::vector<double>& c) const { c.resize(14); }

NetcdfGroup GimbalRotation::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.variables.push_back(
        {"Theta", OutputQuantity::kRadians, "relative angle Theta", NetcdfShape::kScalar});
    g.variables.push_back(
        {"Phi", OutputQuantity::kRadians, "relative angle Phi", NetcdfShape::kScalar});
    return g;
}

void GimbalRotation::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    const double mu = ctx.lambda[0];
    AddDotRow(a.R.col(1), a, b.R.col(0), b, 1.0, 0, mu, out);  // eq. (3)
    AddDotRow(a.R.col(0), a, b.R.col(1), b, -1.0, 0, mu, out);
}

namespace {

template <class T, class... A>
std::unique_ptr<Element> Make(const SourceLocation& where, A&&... args) {
    auto e = std::make_unique<T>(std::forward<A>(args)...);
    e->set_where(where);
    return e;
}

}  // namespace

std::unique_ptr<Element> ReadCardanoHinge(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const SourceLocation b_at = args.in.Where();
    const JointSide b = ReadNodeSide(args.in);
    if (a.node == b.node) args.in.Fail(b_at, "a cardano hinge needs two different nodes");
    return Make<CardanoJoint>(where, args.label, "cardano hinge", a, b, true);
}

std::unique_ptr<Element> ReadCardanoPin(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const JointSide b = ReadGroundSide(args.in);
    return Make<CardanoJoint>(where, args.label, "cardano pin", a, b, true);
}

std::unique_ptr<Element> ReadCardanoRotation(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadRotationSide(args.in);
    const SourceLocation b_at = args.in.Where();
    const JointSide b = ReadRotationSide(args.in);
    if (a.node == b.node) args.in.Fail(b_at, "a cardano rotation needs two different nodes");
    const OrientationOutput d = args.in.GetOptionalOrientationDescription(args.default_orientation);
    return Make<CardanoJoint>(where, args.label, "cardano rotation", a, b, false, d);
}

std::unique_ptr<Element> ReadGimbalRotation(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const JointSide a = ReadRotationSide(in);
    const SourceLocation b_at = in.Where();
    const JointSide b = ReadRotationSide(in);
    if (a.node == b.node) in.Fail(b_at, "a gimbal rotation needs two different nodes");
    const OrientationOutput d = in.GetOptionalOrientationDescription(args.default_orientation);
    return Make<GimbalRotation>(where, args.label, a, b, d);
}

}  // namespace mbstep::joints
