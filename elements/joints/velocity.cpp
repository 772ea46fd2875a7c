// mbstep — axial rotation and angular velocity (velocity.hpp for the equations).
#include "velocity.hpp"

#include <algorithm>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/output.hpp"

namespace mbstep::joints {

AxialRotation::AxialRotation(int label, const JointSide& a, const JointSide& b, DrivePtr omega,
                             OrientationOutput d)
    : TwoSideJoint(label, "axial rotation", a, b, 6, ConstraintLevel::kMixed),
      omega_(std::move(omega)),
      od_(d) {}

void AxialRotation::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    // eq. (1): common point, then axis 3 of a orthogonal to axes 1, 2 of b.
    for (int i = 0; i < 3; ++i)
        AddProjectionRow(Vec3::Unit(i), false, a, b, 0.0, i, ctx.lambda[i], out);
    const Vec3 u = a.R.col(2);
    for (int i = 0; i < 2; ++i) AddDotRow(u, a, b.R.col(i), b, 1.0, 3 + i, ctx.lambda[3 + i], out);
    AddVelocityRow(u, &a, a, b, omega_->Value(ctx.t), 5, ctx.lambda[5], out);  // eq. (2)
}

AngularVelocityJoint::AngularVelocityJoint(int label, const JointSide& b, const Vec3& n,
                                           DrivePtr omega)
    : TwoSideJoint(label, "angular velocity", JointSide{}, b, 1, ConstraintLevel::kVelocity),
      n_(n),
      omega_(std::move(omega)) {}

void AngularVelocityJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    const Vec3 u = ctx.node[0]->R * n_;
    AddVelocityRow(u, &b, a, b, omega_->Value(ctx.t), 0, ctx.lambda[0], out);  // eq. (3)
}

void AxialRotation::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // Output (4): the load of the multipliers on node b, about its joint point.
    const Side a = SideA(ctx), b = SideB(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, true, F, M);
    c.clear();
    AppendReactionColumns(c, b.R, F, M);
    AppendOrientationValues(c, a.R.transpose() * b.R, od_);
    c.push_back(omega_->Value(ctx.t));
    AppendColumns(c, b.R.transpose() * (ctx.node[1]->w - ctx.node[0]->w));
}

void AxialRotation::NetcdfColumns(std::vector<double>& c) const {
    const int n = OrientationColumnCount(od_);
    c.erase(c.begin() + 12 + n);  // Omega(t)
    OrientationColumnsToNetcdf(c, 12, od_);
}

NetcdfGroup AxialRotation::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.variables.push_back(OrientationVariable(od_, "global"));
    g.variables.push_back(
        {"Omega", OutputQuantity::kAngularVelocity, "local relative angular velocity (x, y, z)"});
    return g;
}

void AngularVelocityJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // Output (5): minus the multiplier's couple on the node.
    Vec3 F, M;
    MultiplierLoad(ctx, true, F, M);
    M = -M;
    const Vec3 u = ctx.node[0]->R * n_;
    c.clear();
    AppendColumns(c, Vec3::Zero());
    AppendColumns(c, Vec3(u.dot(M), 0.0, 0.0));
    AppendColumns(c, Vec3::Zero());
    AppendColumns(c, M);
    AppendColumns(c, u);
    c.push_back(omega_->Value(ctx.t));
}

void AngularVelocityJoint::NetcdfColumns(std::vector<double>& c) const {
    // dOmega before w (AngularVelocityJoint::OutputPrepare).
    std::rotate(c.begin() + 12, c.begin() + 15, c.begin() + 16);
}

NetcdfGroup AngularVelocityJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.type = "Angular velocity";  // AngularVelocityJoint::OutputPrepare
    g.variables.push_back({"dOmega", OutputQuantity::kAngularVelocity,
                           "magnitude imposed angular velocity", NetcdfShape::kScalar});
    g.variables.push_back(
        {"w", OutputQuantity::kDimensionless, "direction of imposed angular velocity"});
    return g;
}

std::unique_ptr<Element> ReadAxialRotation(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const JointSide a = ReadNodeSide(in);
    const SourceLocation b_at = in.Where();
    const JointSide b = ReadNodeSide(in);
    if (a.node == b.node) in.Fail(b_at, "an axial rotation joint needs two different nodes");
    if (!in.HasArg()) in.Fail(in.Where(), "axial rotation: missing the angular velocity drive");
    DrivePtr omega = in.GetDrive("angular velocity");
    const OrientationOutput d = in.GetOptionalOrientationDescription(args.default_orientation);
    auto e = std::make_unique<AxialRotation>(args.label, a, b, std::move(omega), d);
    e->set_where(where);
    return e;
}

std::unique_ptr<Element> ReadAngularVelocity(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    JointSide b;
    b.node = in.GetNode("node label");
    const SourceLocation n_at = in.Where();
    const Vec3 n = in.GetDirection(in.node(b.node).initial, "relative direction");
    if (!n.allFinite() || n.norm() < 1e-12) in.Fail(n_at, "the direction must be non-zero");
    if (!in.HasArg()) in.Fail(in.Where(), "angular velocity: missing the angular velocity drive");
    DrivePtr omega = in.GetDrive("angular velocity");
    auto e =
        std::make_unique<AngularVelocityJoint>(args.label, b, n.normalized(), std::move(omega));
    e->set_where(where);
    return e;
}

}  // namespace mbstep::joints
