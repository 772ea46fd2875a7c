// mbstep — structural forces and couples (structural_force.hpp for the equations).
#include "structural_force.hpp"

#include <Eigen/Geometry>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::forces {

namespace {
std::string TypeName(LoadKind kind, LoadFrame frame) {
    return std::string(frame == LoadFrame::kAbsolute ? "absolute" : "follower") +
           (kind == LoadKind::kForce ? " force" : " couple");
}
}  // namespace

std::string StructuralLoad::MbdynLogLine(const LogLineContext& ctx) const {
    const std::string keyword = std::string("structural ") +
                                (frame_ == LoadFrame::kAbsolute ? "absolute" : "follower") +
                                (kind_ == LoadKind::kForce ? " force" : " couple");
    return LogLine(keyword.c_str(), label(), ctx.precision).Node(ctx.node_label[0]).Vec(arm_).str();
}

StructuralLoad::StructuralLoad(int label, LoadKind kind, LoadFrame frame, int node, const Vec3& arm,
                               Vec3Drive value)
    : Element(label, TypeName(kind, frame)),
      kind_(kind),
      frame_(frame),
      arm_(kind == LoadKind::kForce ? arm : Vec3::Zero()),
      value_(std::move(value)) {
    nodes_ = {node};
    set_statement(kind == LoadKind::kForce ? "force" : "couple");
}

void StructuralLoad::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& n = *ctx.node[0];
    const Vec3 v = value_.Value(ctx.t);
    const bool jac = out.want_jacobian;
    if (kind_ == LoadKind::kCouple) {
        if (frame_ == LoadFrame::kAbsolute) {
            out.f.segment<3>(3) = v;  // eq. (7)
        } else {
            const Vec3 M = n.R * v;  // eq. (8)
            out.f.segment<3>(3) = M;
            if (jac) out.K.block<3, 3>(3, 3) = Skew(M);
        }
        return;
    }
    const Vec3 Ra = n.R * arm_;
    if (frame_ == LoadFrame::kAbsolute) {
        const Vec3& F = v;  // eq. (1)
        out.f.segment<3>(0) = F;
        out.f.segment<3>(3) = Ra.cross(F);                       // eq. (2)
        if (jac) out.K.block<3, 3>(3, 3) = -Skew(F) * Skew(Ra);  // eq. (3)
    } else {
        const Vec3 F = n.R * v;      // eq. (4)
        const Vec3 M = Ra.cross(F);  // eq. (5)
        out.f.segment<3>(0) = F;
        out.f.segment<3>(3) = M;
        if (jac) {
            out.K.block<3, 3>(0, 3) = Skew(F);  // eq. (6)
            out.K.block<3, 3>(3, 3) = Skew(M);
        }
    }
}

void StructuralLoad::Global(const ElementContext& ctx, Vec3& value, Vec3& point) const {
    const FrameState& n = *ctx.node[0];
    const Vec3 v = value_.Value(ctx.t);
    value = frame_ == LoadFrame::kAbsolute ? v : Vec3(n.R * v);
    point = n.x + n.R * arm_;
}

void StructuralLoad::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    Vec3 value, point;
    Global(ctx, value, point);
    const int p = static_cast<int>(os.precision());
    std::string line;
    AppendNumber(line, static_cast<long>(label()));
    line.push_back(' ');
    AppendNumber(line, static_cast<long>(node_label_));
    AppendVector3(line, value, p);
    if (kind_ == LoadKind::kForce) AppendVector3(line, point, p);
    line.push_back('\n');
    os.write(line.data(), static_cast<std::streamsize>(line.size()));
}

void StructuralLoad::OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                                   std::vector<Vec3>& moment) const {
    Vec3 value, point;
    Global(ctx, value, point);
    force.push_back(kind_ == LoadKind::kForce ? value : Vec3::Zero());
    moment.push_back(kind_ == LoadKind::kCouple ? value : Vec3::Zero());
}

NetcdfGroup StructuralLoad::NetcdfDescription(const Element& /*element*/) const {
    NetcdfGroup g;
    g.type = frame_ == LoadFrame::kAbsolute ? "absolute" : "follower";
    if (kind_ == LoadKind::kForce) {
        g.prefix = "elem.force";
        g.variables = {{"F", OutputQuantity::kForce, "global force components (x, y, z)"},
                       {"Arm", OutputQuantity::kLength, "arm in global frame (x, y, z)"}};
    } else {
        g.prefix = "elem.couple";
        g.variables = {{"M", OutputQuantity::kMoment, "global couple components (x, y, z)"}};
    }
    return g;
}

bool StructuralLoad::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    Vec3 value, point;
    Global(ctx, value, point);
    out.resize(kind_ == LoadKind::kForce ? 6 : 3);
    for (int i = 0; i < 3; ++i) out[i] = value[i];
    if (kind_ == LoadKind::kForce)
        for (int i = 0; i < 3; ++i) out[3 + i] = point[i];
    return true;
}

namespace {

std::unique_ptr<Element> ReadLoad(ElementReadArgs& args, LoadKind kind, LoadFrame frame) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const int node = in.GetNode("node label");
    const FrameState& node_frame = in.node(node).initial;

    // Arm: optional `position` keyword for forces (MBDyn accepts the old form without it),
    // only after `position` for couples.
    Vec3 arm = Vec3::Zero();
    const bool has_position = in.IsKeyword("position");
    if (kind == LoadKind::kForce || has_position) {
        const SourceLocation arm_at = in.Where();
        arm = in.GetPosition(node_frame, "relative arm");
        if (!arm.allFinite()) in.Fail(arm_at, "relative arm is not finite");
    }
    // Absolute loads are given in the global frame, follower loads in the node frame.
    const FrameState global{};
    const FrameState& rf = frame == LoadFrame::kAbsolute ? global : node_frame;
    Vec3Drive value =
        ReadVec3Drive(in, rf, kind == LoadKind::kForce ? "force value" : "couple value");

    auto e = std::make_unique<StructuralLoad>(args.label, kind, frame, node, arm, std::move(value));
    e->set_node_label(in.node(node).label);
    e->set_where(where);
    return e;
}

}  // namespace

std::unique_ptr<Element> ReadAbsoluteForce(ElementReadArgs& args) {
    return ReadLoad(args, LoadKind::kForce, LoadFrame::kAbsolute);
}
std::unique_ptr<Element> ReadFollowerForce(ElementReadArgs& args) {
    return ReadLoad(args, LoadKind::kForce, LoadFrame::kFollower);
}
std::unique_ptr<Element> ReadAbsoluteCouple(ElementReadArgs& args) {
    return ReadLoad(args, LoadKind::kCouple, LoadFrame::kAbsolute);
}
std::unique_ptr<Element> ReadFollowerCouple(ElementReadArgs& args) {
    return ReadLoad(args, LoadKind::kCouple, LoadFrame::kFollower);
}

}  // namespace mbstep::forces
