// mbstep — spherical hinge and pin (spherical.hpp for the equations).
#include "spherical.hpp"

#include <Eigen/Geometry>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::joints {

void EvaluateSphericalRows(const FrameState& na, const FrameState* nb, const JointSide& a,
                           const JointSide& b, const double* lambda, int row0, ElementBlock& out) {
    const Eigen::Map<const Vec3> l(lambda);
    const Vec3 pa = na.R * a.offset;  // eq. (1)
    out.phi.segment<3>(row0) = na.x + pa;
    out.f.segment<3>(0) -= l;  // eq. (4)
    out.f.segment<3>(3) -= pa.cross(l);
    Vec3 pb = Vec3::Zero();
    if (nb) {
        pb = nb->R * b.offset;
        out.phi.segment<3>(row0) -= nb->x + pb;  // eq. (2), hinge
        out.f.segment<3>(6) += l;
        out.f.segment<3>(9) += pb.cross(l);
    } else {
        out.phi.segment<3>(row0) -= b.offset;  // eq. (2), pin
    }
    if (!out.want_jacobian) return;

    // eq. (3), (6) (fixed-size blocks and rotation.hpp's coefficient-wise products: the same
    // values as the Eigen expressions, without dynamic-size loops and store-forwarding stalls)
    const Vec3 l3 = l;
    out.phi_q.block<3, 3>(row0, 0) = Mat3::Identity();
    out.phi_q.block<3, 3>(row0, 3) = -Skew(pa);
    out.K.block<3, 3>(3, 3) += SkewSkew(l3, pa);
    // eq. (5): L = -phi_q^T, block by block
    out.L.block<3, 3>(0, row0) = -Mat3::Identity();
    out.L.block<3, 3>(3, row0) = Skew(pa).transpose();
    if (nb) {
        out.phi_q.block<3, 3>(row0, 6) = -Mat3::Identity();
        out.phi_q.block<3, 3>(row0, 9) = Skew(pb);
        out.K.block<3, 3>(9, 9) -= SkewSkew(l3, pb);
        out.L.block<3, 3>(6, row0) = Mat3::Identity();
        out.L.block<3, 3>(9, row0) = -Skew(pb).transpose();
    }
}

std::string SphericalJoint::MbdynLogLine(const LogLineContext& ctx) const {
    if (b_.node >= 0) return JointLogLine("sphericalhinge", label(), a_, b_, ctx);
    const Mat3 I = Mat3::Identity();
    return LogLine("sphericalpin", label(), ctx.precision)
        .Node(ctx.node_label[0])
        .Vec(a_.offset)
        .Mat(I)
        .Node(ctx.node_label[0])
        .Vec(a_.offset)
        .Mat(I)
        .str();
}

SphericalJoint::SphericalJoint(int label, const JointSide& a, const JointSide& b,
                               OrientationOutput d)
    : Element(label, b.node >= 0 ? "spherical hinge" : "spherical pin"), a_(a), b_(b), od_(d) {
    nodes_ = {a.node};
    if (b.node >= 0) nodes_.push_back(b.node);
    set_statement("joint");
}

void SphericalJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    EvaluateSphericalRows(*ctx.node[0], b_.node >= 0 ? ctx.node[1] : nullptr, a_, b_, ctx.lambda, 0,
                          out);
    // Each node's moment depends on its own rotation only (eq. (6)); nothing on the twists.
    out.k_blocks = ElementBlock::Pair(0, 0) | ElementBlock::Pair(1, 1);
    out.k_quadrants = ElementBlock::Quadrant(1, 1);
    out.c_blocks = 0;
}

void SphericalJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // MBDyn's multiplier F, eq. (8): lambda, no couple.
    const Eigen::Map<const Vec3> l(ctx.lambda);
    const Mat3& Ra = ctx.node[0]->R;
    c.clear();
    if (b_.node < 0) {  // pin: local columns = global ones, then R_a's Euler angles 123
        AppendReactionColumns(c, Mat3::Identity(), l, Vec3::Zero());
        AppendOrientationValues(c, Ra, OrientationOutput::kEuler123);
        return;
    }
    const Mat3 Rja = Ra * a_.R;
    AppendReactionColumns(c, Rja, l, Vec3::Zero());
    AppendOrientationValues(c, Rja.transpose() * (ctx.node[1]->R * b_.R), od_);  // eq. (7)
}

void SphericalJoint::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    thread_local std::vector<double> c;  // kept: no allocation per output step
    c.clear();
    Columns(ctx, c);
    WriteNumberLine(os, label(), c);
    if (b_.node < 0) os << '\n';  // PinJoint::Output's second std::endl: an empty line
}

NetcdfGroup SphericalJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    if (b_.node < 0)
        g.variables.push_back({"E", OutputQuantity::kDegrees, "node orientation (E123)"});
    else
        g.variables.push_back(OrientationVariable(od_, "relative orientation"));
    return g;
}

bool SphericalJoint::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    Columns(ctx, out);
    if (b_.node >= 0) OrientationColumnsToNetcdf(out, 12, od_);
    return true;
}

std::unique_ptr<Element> ReadSphericalHinge(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const SourceLocation b_at = args.in.Where();
    const JointSide b = ReadNodeSide(args.in);
    if (a.node == b.node) args.in.Fail(b_at, "a spherical hinge needs two different nodes");
    const OrientationOutput d = args.in.GetOptionalOrientationDescription(args.default_orientation);
    auto e = std::make_unique<SphericalJoint>(args.label, a, b, d);
    e->set_where(where);
    return e;
}

std::unique_ptr<Element> ReadSphericalPin(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const JointSide b = ReadGroundSide(args.in);
    auto e = std::make_unique<SphericalJoint>(args.label, a, b);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::joints
