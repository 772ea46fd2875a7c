// mbstep — shared input and output pieces of the joint family (joint_input.hpp).
#include "joint_input.hpp"

#include <ostream>
#include <string>
#include <utility>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/model/element.hpp"

namespace mbstep::joints {

void CheckRotation(DeckInput& in, const SourceLocation& where, const Mat3& R, const char* what) {
    const double err = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
    if (!R.allFinite() || err > 1e-6 || R.determinant() < 0.0)
        in.Fail(where, std::string(what) + " is not an orthonormal rotation matrix");
}

JointSide ReadNodeSide(DeckInput& in) {
    JointSide s;
    s.node = in.GetNode("node label");
    const FrameState& rf = in.node(s.node).initial;
    in.IsKeyword("position");
    const SourceLocation at = in.Where();
    s.offset = in.GetPosition(rf, "relative offset");  // eq. (1)
    if (!s.offset.allFinite()) in.Fail(at, "relative offset is not finite");
    if (in.IsKeyword("orientation") || in.IsKeyword("hinge")) {
        const SourceLocation r_at = in.Where();
        s.R = in.GetOrientation(rf, "relative orientation");  // eq. (2)
        CheckRotation(in, r_at, s.R, "relative orientation");
    }
    return s;
}

JointSide ReadRotationSide(DeckInput& in) {
    JointSide s;
    s.node = in.GetNode("node label");
    const FrameState& rf = in.node(s.node).initial;
    if (in.IsKeyword("orientation") || in.IsKeyword("hinge")) {
        const SourceLocation r_at = in.Where();
        s.R = in.GetOrientation(rf, "relative orientation");
        CheckRotation(in, r_at, s.R, "relative orientation");
    }
    return s;
}

JointSide ReadGroundSide(DeckInput& in) {
    JointSide s;
    const FrameState global{};
    in.IsKeyword("position");
    const SourceLocation at = in.Where();
    s.offset = in.GetPosition(global, "absolute position");
    if (!s.offset.allFinite()) in.Fail(at, "absolute position is not finite");
    if (in.IsKeyword("orientation") || in.IsKeyword("hinge")) {
        const SourceLocation r_at = in.Where();
        s.R = in.GetOrientation(global, "absolute orientation");
        CheckRotation(in, r_at, s.R, "absolute orientation");
    }
    return s;
}

void WriteJointLine(std::ostream& os, int label, const Mat3& R_joint, const Vec3& F,
                    const Vec3& M) {
    const Vec3 Fl = R_joint.transpose() * F, Ml = R_joint.transpose() * M;
    const int p = static_cast<int>(os.precision());
    char line[24 + 12 * (kMaxNumberChars + 1)];
    char* o = FormatNumber(line, static_cast<long>(label));
    for (const Vec3* v : {&Fl, &Ml, &F, &M}) o = FormatVector3(o, *v, p);
    *o++ = '\n';
    os.write(line, o - line);
}

void AppendReactionColumns(std::vector<double>& c, const Mat3& R_frame, const Vec3& F,
                           const Vec3& M) {
    AppendColumns(c, R_frame.transpose() * F);
    AppendColumns(c, R_frame.transpose() * M);
    AppendColumns(c, F);
    AppendColumns(c, M);
}

NetcdfVariable OrientationVariable(OrientationOutput d, const std::string& description) {
    switch (d) {
        case OrientationOutput::kOrientationMatrix:
            return {
                "R", OutputQuantity::kDimensionless,
                description + " orientation matrix (R11, R21, R31, R12, R22, R32, R13, R23, R33)",
                NetcdfShape::kMat3x3};
        case OrientationOutput::kOrientationVector:
            return {"Phi", OutputQuantity::kRadians,
                    description + " orientation vector (Phi_X, Phi_Y, Phi_Z)"};
        default:
            break;
    }
    const char* seq = d == OrientationOutput::kEuler313   ? "313"
                      : d == OrientationOutput::kEuler321 ? "321"
                                                          : "123";
    return {"E", OutputQuantity::kDegrees,
            description + " orientation Euler angles (" + seq + ") (E_X, E_Y, E_Z)"};
}

void OrientationColumnsToNetcdf(std::vector<double>& c, std::size_t at, OrientationOutput d) {
    if (d != OrientationOutput::kOrientationMatrix || c.size() < at + 9) return;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = i + 1; j < 3; ++j) std::swap(c[at + 3 * i + j], c[at + 3 * j + i]);
}

std::string JointLogLine(const char* keyword, int label, const JointSide& a, const JointSide& b,
                         const LogLineContext& ctx, bool zero_offsets) {
    LogLine line(keyword, label, ctx.precision);
    line.Node(ctx.node_label[0]).Vec(zero_offsets ? Vec3::Zero() : a.offset).Mat(a.R);
    if (b.node >= 0) {  // (3)
        line.Node(ctx.node_label[1]).Vec(zero_offsets ? Vec3::Zero() : b.offset).Mat(b.R);
        return line.str();
    }
    // (4): the ground point and frame seen from the node, as MBDyn writes them (its
    // `R0.MulMT(R)` is R0 R^T).
    const FrameState& n = *ctx.node[0];
    line.Node(ctx.node_label[0]).Vec(n.R.transpose() * (b.offset - n.x)).Mat(b.R * n.R.transpose());
    return line.str();
}

}  // namespace mbstep::joints
