// mbstep — clamp (clamp.hpp for the equations).
#include "clamp.hpp"

#include <Eigen/Geometry>

#include "joint_input.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::joints {

Clamp::Clamp(int label, int node, const Vec3& X0, const Mat3& R0)
    : Element(label, "clamp"), X0_(X0), R0_(R0) {
    nodes_ = {node};
    set_statement("joint");
}

std::string Clamp::MbdynLogLine(const LogLineContext& ctx) const {
    const Mat3 I = Mat3::Identity();
    const Vec3 zero = Vec3::Zero();
    return LogLine("clamp", label(), ctx.precision)
        .Node(ctx.node_label[0])
        .Vec(zero)
        .Mat(I)
        .Node(ctx.node_label[0])
        .Vec(zero)
        .Mat(I)
        .str();
}

void Clamp::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& n = *ctx.node[0];
    const Eigen::Map<const Vec3> lx(ctx.lambda), lr(ctx.lambda + 3);
    const Mat3 E = n.R * R0_.transpose();  // eq. (1)
    const Vec3 axE = Axial(E);
    const Mat3 G = 0.5 * (E.trace() * Mat3::Identity() - E);  // eq. (4)
    out.phi.segment<3>(0) = n.x - X0_;                        // eq. (2)
    out.phi.segment<3>(3) = axE;                              // eq. (3)
    out.f.segment<3>(0) = -lx;                                // eq. (5)
    out.f.segment<3>(3) = -G.transpose() * lr;
    if (!out.want_jacobian) return;
    out.phi_q.block<3, 3>(0, 0) = Mat3::Identity();
    out.phi_q.block<3, 3>(3, 3) = G;
    out.L.block<3, 3>(0, 0) = -Mat3::Identity();
    out.L.block<3, 3>(3, 3) = -G.transpose();
    out.K.block<3, 3>(3, 3) = -lr * axE.transpose() - 0.5 * E.transpose() * Skew(lr);  // (6)
}

void Clamp::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    // Force and couple on the node, eq. (5), in the node frame.
    const FrameState& n = *ctx.node[0];
    const Eigen::Map<const Vec3> lx(ctx.lambda), lr(ctx.lambda + 3);
    const Mat3 E = n.R * R0_.transpose();
    const Mat3 G = 0.5 * (E.trace() * Mat3::Identity() - E);
    WriteJointLine(os, label(), n.R, -lx, -G.transpose() * lr);
}

std::unique_ptr<Element> ReadClamp(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const int node = in.GetNode("node label");
    const FrameState& nf = in.node(node).initial;
    const FrameState global{};

    Vec3 X0 = nf.x;
    in.IsKeyword("position");
    if (!in.IsKeyword("node")) {
        const SourceLocation at = in.Where();
        X0 = in.GetPosition(global, "absolute position");
        if (!X0.allFinite()) in.Fail(at, "absolute position is not finite");
    }
    Mat3 R0 = nf.R;
    in.IsKeyword("orientation");
    if (!in.IsKeyword("node")) {
        const SourceLocation at = in.Where();
        R0 = in.GetOrientation(global, "absolute orientation");
        CheckRotation(in, at, R0, "absolute orientation");
    }
    auto e = std::make_unique<Clamp>(args.label, node, X0, R0);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::joints
