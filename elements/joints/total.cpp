// mbstep — total joint, total pin joint, prismatic, drive hinge (total.hpp for the equations).
#include "total.hpp"

#include <string>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::joints {

TotalJoint::TotalJoint(int label, std::string type, const Spec& spec)
    : TwoSideJoint(label, std::move(type), spec.a, spec.b, 0, ConstraintLevel::kPosition),
      spec_(spec) {
    for (int i = 0; i < 3; ++i) {
        if (spec.position_active[i]) pos_comp_[npos_++] = i;
        if (spec.rotation_active[i] && !spec.rotation_velocity[i]) rot_comp_[nrot_++] = i;
        if (spec.rotation_active[i] && spec.rotation_velocity[i]) vel_comp_[nvel_++] = i;
    }
    m_ = npos_ + nrot_ + nvel_;
    if (m_ == 0) level_ = ConstraintLevel::kNone;
    if (nvel_ > 0) level_ = m_ == nvel_ ? ConstraintLevel::kVelocity : ConstraintLevel::kMixed;
    ra_ = spec.a;
    ra_.R = spec.Rr_a;
    rb_ = spec.b;
    rb_.R = spec.Rr_b;
}

void TotalJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    if (npos_ > 0) {
        const Vec3 s = spec_.position_drive.Value(ctx.t);
        for (int r = 0; r < npos_; ++r) {  // eq. (1)
            const int i = pos_comp_[r];
            AddProjectionRow(a.R.col(i), true, a, b, s[i], r, ctx.lambda[r], out);
        }
    }
    if (nrot_ + nvel_ == 0) return;
    const Side ar = MakeSide(ra_, a.ground() ? nullptr : ctx.node[0], a.col);
    const Side br = MakeSide(rb_, b.ground() ? nullptr : ctx.node[a.ground() ? 0 : 1], b.col);
    Vec3 theta = spec_.rotation_drive.Value(ctx.t);
    for (int r = 0; r < nvel_; ++r) {  // eq. (4)
        const int i = vel_comp_[r], row = npos_ + nrot_ + r;
        AddVelocityRow(ar.R.col(i), ar.ground() ? nullptr : &ar, ar, br, theta[i], row,
                       ctx.lambda[row], out);
        theta[i] = 0.0;
    }
    if (nrot_ == 0) return;
    const Mat3 Rd = so3::Exp(theta);                                                   // eq. (2)
    AddOrientationRows(ar, br, Rd, rot_comp_, nrot_, npos_, ctx.lambda + npos_, out);  // (3)
}

void TotalJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    const Side a = SideA(ctx), b = SideB(ctx);
    // (5), (6): minus the load of the multipliers on node b, couple about P_b.
    Vec3 F, M;
    MultiplierLoad(ctx, true, F, M);
    F = -F;
    M = -M;
    if (type() == "prismatic") {
        c.clear();
        AppendReactionColumns(c, a.R, Vec3::Zero(), -M);  // (7): the couple on node b
        return;
    }
    if (type() == "drive hinge") return DriveHingeColumns(ctx, c);
    const FrameState* na = a.ground() ? nullptr : ctx.node[0];
    const FrameState* nb = b.ground() ? nullptr : ctx.node[a.ground() ? 0 : 1];
    const Side ar = MakeSide(ra_, na, a.col), br = MakeSide(rb_, nb, b.col);
    // Relative kinematics of side b seen from side a (a ground side is at rest).
    const Vec3 va = na ? na->v : Vec3::Zero(), vb = nb ? nb->v : Vec3::Zero();
    const Vec3 d = b.point() - a.point();
    const Vec3 X = a.R.transpose() * d;
    const Vec3 theta = LogSO3(ar.R.transpose() * br.R);
    const Vec3 V = a.R.transpose() * (vb + b.w.cross(b.p) - va - a.w.cross(b.point() - a.x));
    const Vec3 W = ar.R.transpose() * (b.w - a.w);
    c.clear();
    AppendColumns(c, a.R.transpose() * F);
    AppendColumns(c, ar.R.transpose() * M);
    const Vec3* columns[] = {&F, &M, &X, &theta, &V, &W};
    for (const Vec3* v : columns) AppendColumns(c, *v);
}

void TotalJoint::DriveHingeColumns(const ElementContext& ctx, std::vector<double>& c) const {
    // MBDyn mbdyn/struct/drvhinge.cc, DriveHingeJoint::Output: the couple in node a's hinge
    // frame, then the Euler angles 123 of Rj_a^T Rj_b in degrees and the imposed rotation
    // vector Theta(t).
    TwoSideJoint::Columns(ctx, c);
    const Side a = SideA(ctx), b = SideB(ctx);
    const Side ar = MakeSide(ra_, a.ground() ? nullptr : ctx.node[0], a.col);
    const Side br = MakeSide(rb_, b.ground() ? nullptr : ctx.node[a.ground() ? 0 : 1], b.col);
    AppendOrientationValues(c, ar.R.transpose() * br.R, OrientationOutput::kEuler123);
    AppendColumns(c, spec_.rotation_drive.Value(ctx.t));
}

NetcdfGroup TotalJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    if (type() == "prismatic") g.type = "Prismatic";  // PrismaticJoint::OutputPrepare
    if (type() == "drive hinge") {
        // DriveHingeJoint::OutputPrepare: Theta, the imposed rotation vector (MBDyn's
        // Euler-angle columns have no variable).
        g.type = "Drive Hinge";
        g.variables.push_back({"Theta", OutputQuantity::kRadians, "Relative orientation"});
        return g;
    }
    if (type() != "total joint" && type() != "total pin joint") return g;
    // TotalJoint::OutputPrepare, TotalPinJoint::OutputPrepare.
    g.type = type() == "total joint" ? "total" : "totalpin";
    g.variables.push_back({"X", OutputQuantity::kLength, "local relative position (x, y, z)"});
    g.variables.push_back({"Phi", OutputQuantity::kRadians,
                           "local relative orientation vector (Phi_X, Phi_Y, Phi_Z)"});
    g.variables.push_back({"V", OutputQuantity::kVelocity, "local relative velocity (x, y, z)"});
    g.variables.push_back(
        {"Omega", OutputQuantity::kAngularVelocity, "local relative angular velocity (x, y, z)"});
    return g;
}

std::string TotalJoint::MbdynLogLine(const LogLineContext& ctx) const {
    const std::string& t = type();
    if (t == "prismatic") return JointLogLine("prismatic", label(), spec_.a, spec_.b, ctx, true);
    if (t != "total joint" && t != "total pin joint") return {};  // drive hinge: none
    const bool pin = t == "total pin joint";
    LogLine line(pin ? "totalpinjoint" : "totaljoint", label(), ctx.precision);
    // The pin's node is side b, its ground side a.
    const JointSide& first = pin ? spec_.b : spec_.a;
    line.Node(ctx.node_label[0]).Vec(first.offset).Mat(first.R).Mat(pin ? spec_.Rr_b : spec_.Rr_a);
    if (pin)
        line.Vec(spec_.a.offset).Mat(spec_.a.R).Mat(spec_.Rr_a);
    else
        line.Node(ctx.node_label[1]).Vec(spec_.b.offset).Mat(spec_.b.R).Mat(spec_.Rr_b);
    for (int i = 0; i < 3; ++i) line.Real(spec_.position_active[i] ? 1.0 : 0.0);
    for (int i = 0; i < 3; ++i) line.Real(0.0);  // no velocity-level position rows
    for (int i = 0; i < 3; ++i)
        line.Real(spec_.rotation_active[i] && !spec_.rotation_velocity[i] ? 1.0 : 0.0);
    for (int i = 0; i < 3; ++i) line.Real(spec_.rotation_velocity[i] ? 1.0 : 0.0);
    return line.str();
}

namespace {

// Reads `position constraint` / `orientation constraint`: three flags and a vector drive;
// `angular velocity` flags of orientation constraints set velocity[i] (eq. (4)).
void ReadConstraint(DeckInput& in, bool rotation, bool active[3], bool velocity[3],
                    JointVec3Drive& drive) {
    for (int i = 0; i < 3; ++i) {
        const SourceLocation at = in.Where();
        if (in.IsKeyword("active") || in.IsKeyword(rotation ? "rotation" : "position")) {
            active[i] = true;
        } else if (in.IsKeyword("inactive")) {
            active[i] = false;
        } else if (rotation && in.IsKeyword("angular velocity")) {
            active[i] = velocity[i] = true;
        } else if (!rotation && in.IsKeyword("velocity")) {
            in.Fail(at, "velocity-level position constraints in total joints are not supported");
        } else {
            active[i] =
                in.GetBool(rotation ? "orientation constraint flag" : "position constraint flag");
        }
    }
    drive = JointVec3Drive::Read(
        in, rotation ? "imposed relative rotation" : "imposed relative position");
}

// Node side of a total joint: <node> [, position, f] [, position orientation, R]
// [, rotation orientation, R]; `orientation` sets both orientations.
void ReadTotalNodeSide(DeckInput& in, JointSide& s, Mat3& Rr) {
    s.node = in.GetNode("node label");
    const FrameState& rf = in.node(s.node).initial;
    if (in.IsKeyword("position")) {
        const SourceLocation at = in.Where();
        s.offset = in.GetPosition(rf, "relative position");
        if (!s.offset.allFinite()) in.Fail(at, "relative position is not finite");
    }
    for (;;) {
        const SourceLocation at = in.Where();
        if (in.IsKeyword("position orientation")) {
            s.R = in.GetOrientation(rf, "relative position orientation");
            CheckRotation(in, at, s.R, "relative position orientation");
        } else if (in.IsKeyword("rotation orientation")) {
            Rr = in.GetOrientation(rf, "relative rotation orientation");
            CheckRotation(in, at, Rr, "relative rotation orientation");
        } else if (in.IsKeyword("orientation")) {
            s.R = in.GetOrientation(rf, "relative orientation");
            CheckRotation(in, at, s.R, "relative orientation");
            Rr = s.R;
        } else {
            return;
        }
    }
}

// Ground side of a total pin joint, in the global frame.
void ReadTotalGroundSide(DeckInput& in, JointSide& s, Mat3& Rr) {
    const FrameState global{};
    s.node = -1;
    if (in.IsKeyword("position")) {
        const SourceLocation at = in.Where();
        s.offset = in.GetPosition(global, "absolute position");
        if (!s.offset.allFinite()) in.Fail(at, "absolute position is not finite");
    }
    for (;;) {
        const SourceLocation at = in.Where();
        if (in.IsKeyword("position orientation")) {
            s.R = in.GetOrientation(global, "absolute position orientation");
            CheckRotation(in, at, s.R, "absolute position orientation");
        } else if (in.IsKeyword("rotation orientation")) {
            Rr = in.GetOrientation(global, "absolute rotation orientation");
            CheckRotation(in, at, Rr, "absolute rotation orientation");
        } else if (in.IsKeyword("orientation")) {
            s.R = in.GetOrientation(global, "absolute orientation");
            CheckRotation(in, at, s.R, "absolute orientation");
            Rr = s.R;
        } else {
            return;
        }
    }
}

void ReadConstraints(DeckInput& in, TotalJoint::Spec& spec) {
    bool no_velocity[3] = {false, false, false};
    if (in.IsKeyword("position constraint"))
        ReadConstraint(in, false, spec.position_active, no_velocity, spec.position_drive);
    if (in.IsKeyword("orientation constraint"))
        ReadConstraint(in, true, spec.rotation_active, spec.rotation_velocity, spec.rotation_drive);
    const SourceLocation at = in.Where();
    if (in.IsKeyword("orientation description")) {
        in.GetKeyword("orientation description", {"euler123", "euler313", "euler321",
                                                  "orientation vector", "orientation matrix"});
        in.Warn(at,
                "total joint 'orientation description' ignored: the .jnt line has no "
                "relative-rotation columns");
    }
}

std::unique_ptr<Element> Finish(std::unique_ptr<Element> e, const SourceLocation& where) {
    e->set_where(where);
    return e;
}

}  // namespace

std::unique_ptr<Element> ReadTotalJoint(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    TotalJoint::Spec spec;
    ReadTotalNodeSide(in, spec.a, spec.Rr_a);
    const SourceLocation b_at = in.Where();
    ReadTotalNodeSide(in, spec.b, spec.Rr_b);
    if (spec.a.node == spec.b.node) in.Fail(b_at, "a total joint needs two different nodes");
    ReadConstraints(in, spec);
    return Finish(std::make_unique<TotalJoint>(args.label, "total joint", spec), where);
}

std::unique_ptr<Element> ReadTotalPinJoint(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    // The ground frame is side a (it defines the position frame), the node side b.
    TotalJoint::Spec spec;
    ReadTotalNodeSide(in, spec.b, spec.Rr_b);
    ReadTotalGroundSide(in, spec.a, spec.Rr_a);
    ReadConstraints(in, spec);
    return Finish(std::make_unique<TotalJoint>(args.label, "total pin joint", spec), where);
}

std::unique_ptr<Element> ReadPrismatic(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    TotalJoint::Spec spec;
    spec.a = ReadRotationSide(in);
    const SourceLocation b_at = in.Where();
    spec.b = ReadRotationSide(in);
    if (spec.a.node == spec.b.node) in.Fail(b_at, "a prismatic joint needs two different nodes");
    if (in.IsKeyword("friction"))
        in.Fail(in.Where(),
                "prismatic: friction is not supported here: a prismatic joint constrains the "
                "relative orientation only and has no normal force; put `friction, ...` on the "
                "`in line` joint of the translational pair");
    spec.Rr_a = spec.a.R;
    spec.Rr_b = spec.b.R;
    for (bool& r : spec.rotation_active) r = true;
    return Finish(std::make_unique<TotalJoint>(args.label, "prismatic", spec), where);
}

std::unique_ptr<Element> ReadDriveHinge(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    TotalJoint::Spec spec;
    spec.a = ReadRotationSide(in);
    const SourceLocation b_at = in.Where();
    spec.b = ReadRotationSide(in);
    if (spec.a.node == spec.b.node) in.Fail(b_at, "a drive hinge needs two different nodes");
    spec.Rr_a = spec.a.R;
    spec.Rr_b = spec.b.R;
    for (bool& r : spec.rotation_active) r = true;
    if (!in.HasArg()) in.Fail(in.Where(), "drive hinge: missing the imposed rotation drive");
    spec.rotation_drive = JointVec3Drive::Read(in, "imposed relative rotation");
    return Finish(std::make_unique<TotalJoint>(args.label, "drive hinge", spec), where);
}

}  // namespace mbstep::joints
