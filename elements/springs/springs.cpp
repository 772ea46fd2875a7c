// mbstep — rod and deformable hinge (springs.hpp for the equations).
#include "springs.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::springs {

std::string Rod::MbdynLogLine(const LogLineContext& ctx) const {
    return LogLine("rod", label(), ctx.precision)
        .Node(ctx.node_label[0])
        .Vec(a_.offset)
        .Node(ctx.node_label[1])
        .Vec(b_.offset)
        .str();
}

std::string DeformableHinge::MbdynLogLine(const LogLineContext& ctx) const {
    return LogLine("deformablehinge", label(), ctx.precision)
        .Node(ctx.node_label[0])
        .Vec(a_.offset)
        .Mat(a_.R)
        .Node(ctx.node_label[1])
        .Vec(b_.offset)
        .Mat(b_.R)
        .str();
}

namespace {

// The .jnt numbers after the label: F and M in frame Rf (3 + 3), F and M global (3 + 3).
std::vector<double> ReactionColumns(const Mat3& Rf, const Vec3& F, const Vec3& M) {
    std::vector<double> c;
    for (const Vec3& v : {Vec3(Rf.transpose() * F), Vec3(Rf.transpose() * M), F, M})
        c.insert(c.end(), v.data(), v.data() + 3);
    return c;
}

void Append(std::vector<double>& c, const Vec3& v) { c.insert(c.end(), v.data(), v.data() + 3); }

// An orthonormal frame whose first column is the unit vector n.
Mat3 FrameAlong(const Vec3& n) {
    const Vec3 t = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    const Vec3 e2 = n.cross(t).normalized();
    Mat3 R;
    R << n, e2, n.cross(e2);
    return R;
}

}  // namespace

Mat3 InverseLeftJacobian(const Vec3& theta) {
    return so3::TexpInverse(-theta);  // eq. (9): I - 1/2 Theta + d(|theta|) Theta^2
}

// ---------------------------------------------------------------------------------------------
// Rod

Rod::Rod(int label, const SpringSide& a, const SpringSide& b, double l0, ConstitutiveLawPtr law)
    : Element(label, "rod"),
      a_(a),
      b_(b),
      l0_(l0),
      law_(std::move(law)),
      linear_(law_->IsLinear()),
      EA_(linear_ ? law_->Stiffness()(0, 0) : 0.0),
      C_(linear_ ? law_->Damping()(0, 0) : 0.0) {
    nodes_ = {a.node, b.node};
    set_statement("joint");
}

void Rod::Tension(double l, double rate, double& T, double& EA, double& C) const {
    if (linear_) {
        T = EA_ * (l - l0_) / l0_ + C_ * rate / l0_;  // eqs. (1), (2)
        EA = EA_;
        C = C_;
        return;
    }
    ConstitutiveLaw::Vec e(1), ep(1), f(1);
    ConstitutiveLaw::Mat De(1, 1), Dv(1, 1);
    e[0] = (l - l0_) / l0_;
    ep[0] = rate / l0_;
    law_->Evaluate(e, ep, f, &De, &Dv);  // eq. (2)
    T = f[0];
    EA = De(0, 0);
    C = Dv(0, 0);
}

void Rod::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Vec3 pa = na.R * a_.offset, pb = nb.R * b_.offset;
    const Vec3 d = nb.x + pb - na.x - pa;
    const double l = d.norm();
    const Vec3 n = d / l;
    const Vec3 dv = nb.v + nb.w.cross(pb) - na.v - na.w.cross(pa);
    double T, EA, C;
    Tension(l, n.dot(dv), T, EA, C);  // eqs. (1), (2)
    Eigen::Matrix<double, 12, 1> g;
    g << -n, n.cross(pa), n, pb.cross(n);
    out.f = -T * g;  // eq. (3)
    if (!out.want_jacobian) return;
    Eigen::Matrix<double, 3, 12> J;
    J << -Mat3::Identity(), Skew(pa), Mat3::Identity(), -Skew(pb);
    const Mat3 P = (Mat3::Identity() - n * n.transpose()) / l;
    Eigen::Matrix<double, 12, 12> H = J.transpose() * P * J;
    H.block<3, 3>(3, 3) -= Skew(n) * Skew(pa);
    H.block<3, 3>(9, 9) += Skew(n) * Skew(pb);
    Eigen::Matrix<double, 12, 1> dldot = J.transpose() * (P * dv);
    dldot.segment<3>(3) += (Skew(na.w) * Skew(pa)).transpose() * n;
    dldot.segment<3>(9) -= (Skew(nb.w) * Skew(pb)).transpose() * n;
    const Eigen::Matrix<double, 12, 1> dT = (EA / l0_) * g + (C / l0_) * dldot;
    out.K = g * dT.transpose() + T * H;     // eq. (4)
    out.C = (C / l0_) * g * g.transpose();  // eq. (5)
}

double Rod::PotentialEnergy(const ElementContext& ctx) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const double l = (nb.x + nb.R * b_.offset - na.x - na.R * a_.offset).norm();
    if (linear_) return 0.5 * EA_ * (l - l0_) * (l - l0_) / l0_;  // eq. (6)
    ConstitutiveLaw::Vec e(1);
    e[0] = (l - l0_) / l0_;
    return law_->Energy(e) * l0_;
}

std::vector<double> Rod::Columns(const ElementContext& ctx) const {
    // Force on node a, at its attachment point, in a frame with axis 1 along the rod; then
    // the length l, the unit direction d / l and the lengthening rate (eq. (2)'s l').
    ElementBlock b;
    b.Reset(2, 0, false);
    Evaluate(ctx, b);
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Vec3 pa = na.R * a_.offset, pb = nb.R * b_.offset;
    const Vec3 d = nb.x + pb - na.x - pa;
    const double l = d.norm();
    const Vec3 n = d / l;
    std::vector<double> c = ReactionColumns(FrameAlong(n), b.f.segment<3>(0), Vec3::Zero());
    c.push_back(l);
    Append(c, n);
    c.push_back(n.dot(nb.v + nb.w.cross(pb) - na.v - na.w.cross(pa)));
    return c;
}

void Rod::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    WriteNumberLine(os, label(), Columns(ctx));
}

NetcdfGroup Rod::NetcdfDescription(const Element& element) const {
    // Rod::OutputPrepare: l, lP, v (MBDyn's units "m", "m/2" and "m": length, velocity and
    // length here).
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty()) return g;
    g.variables.push_back(
        {"l", OutputQuantity::kLength, "length of the element", NetcdfShape::kScalar});
    g.variables.push_back({"lP", OutputQuantity::kVelocity, "lengthening velocity of the element",
                           NetcdfShape::kScalar});
    g.variables.push_back({"v", OutputQuantity::kLength, "direction unit vector"});
    return g;
}

bool Rod::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    out = Columns(ctx);  // ..., l, d / l, l'
    std::rotate(out.begin() + 13, out.begin() + 16, out.begin() + 17);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Deformable hinge

DeformableHinge::DeformableHinge(int label, const SpringSide& a, const SpringSide& b,
                                 ConstitutiveLawPtr law, OrientationOutput od)
    : Element(label, "deformable hinge"),
      a_(a),
      b_(b),
      law_(std::move(law)),
      linear_(law_->IsLinear()),
      K_(linear_ ? Mat3(law_->Stiffness()) : Mat3::Zero()),
      C_(linear_ ? Mat3(law_->Damping()) : Mat3::Zero()),
      od_(od) {
    nodes_ = {a.node, b.node};
    set_statement("joint");
}

void DeformableHinge::Couple(const Vec3& theta, const Vec3& w_r, Vec3& m, Mat3& K, Mat3& C) const {
    if (linear_) {
        m = K_ * theta + C_ * w_r;  // eq. (8)
        K = K_;
        C = C_;
        return;
    }
    ConstitutiveLaw::Vec e(3), ep(3), f(3);
    ConstitutiveLaw::Mat De(3, 3), Dv(3, 3);
    e = theta;
    ep = w_r;
    law_->Evaluate(e, ep, f, &De, &Dv);  // eq. (8)
    m = f;
    K = De;
    C = Dv;
}

void DeformableHinge::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Mat3 Ra = na.R * a_.R;
    const Vec3 theta = LogSO3(Ra.transpose() * nb.R * b_.R);  // eq. (7)
    const Vec3 dw = nb.w - na.w;
    Vec3 m;
    Mat3 K, C;
    Couple(theta, Ra.transpose() * dw, m, K, C);  // eq. (8)
    const Vec3 Mb = -Ra * m;
    out.f.segment<3>(3) = -Mb;
    out.f.segment<3>(9) = Mb;
    if (!out.want_jacobian) return;
    // eq. (10): derivatives of M_b; K = -df/dq, C = -df/dv, M_a = -M_b.
    const Mat3 RKJ = Ra * K * InverseLeftJacobian(theta) * Ra.transpose();
    const Mat3 RCR = Ra * C * Ra.transpose();
    const Mat3 dMb_a = Skew(Ra * m) + RKJ - RCR * Skew(dw);
    const Mat3 dMb_b = -RKJ;
    out.K.block<3, 3>(9, 3) = -dMb_a;
    out.K.block<3, 3>(9, 9) = -dMb_b;
    out.K.block<3, 3>(3, 3) = dMb_a;
    out.K.block<3, 3>(3, 9) = dMb_b;
    out.C.block<3, 3>(9, 9) = RCR;
    out.C.block<3, 3>(9, 3) = -RCR;
    out.C.block<3, 3>(3, 9) = -RCR;
    out.C.block<3, 3>(3, 3) = RCR;
}

double DeformableHinge::PotentialEnergy(const ElementContext& ctx) const {
    const Mat3 Ra = ctx.node[0]->R * a_.R;
    const Vec3 theta = LogSO3(Ra.transpose() * ctx.node[1]->R * b_.R);
    if (linear_) return 0.5 * theta.dot(K_ * theta);  // eq. (11)
    ConstitutiveLaw::Vec e(3);
    e = theta;
    return law_->Energy(e);
}

std::vector<double> DeformableHinge::Columns(const ElementContext& ctx) const {
    // Couple on node a, in its hinge frame; then Rj_a^T Rj_b in the description od_ and, for
    // a viscous law, Rj_a^T (w_b - w_a) (MBDyn's DeformableHingeJoint::Output).
    ElementBlock b;
    b.Reset(2, 0, false);
    Evaluate(ctx, b);
    const Mat3 Ra = ctx.node[0]->R * a_.R, Rb = ctx.node[1]->R * b_.R;
    std::vector<double> c = ReactionColumns(Ra, Vec3::Zero(), b.f.segment<3>(3));
    // MBDyn's DeformableHingeJoint::Output (mbdyn/struct/vehj.cc): the relative orientation in
    // the description: Euler angles in degrees, the rotation vector, or the matrix row by row.
    AppendOrientationValues(c, Ra.transpose() * Rb, od_);
    if (law_->IsViscous()) Append(c, Ra.transpose() * (ctx.node[1]->w - ctx.node[0]->w));
    return c;
}

void DeformableHinge::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    WriteNumberLine(os, label(), Columns(ctx));
}

bool DeformableHinge::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    out = Columns(ctx);
    out.resize(12);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Input

namespace {

SpringSide ReadSide(DeckInput& in, bool orientation) {
    SpringSide s;
    s.node = in.GetNode("node label");
    const FrameState& rf = in.node(s.node).initial;
    if (in.IsKeyword("position")) {
        const SourceLocation at = in.Where();
        s.offset = in.GetPosition(rf, "relative offset");
        if (!s.offset.allFinite()) in.Fail(at, "relative offset is not finite");
    }
    if (orientation && (in.IsKeyword("orientation") || in.IsKeyword("hinge"))) {
        const SourceLocation at = in.Where();
        s.R = in.GetOrientation(rf, "relative orientation");
        const double err = (s.R.transpose() * s.R - Mat3::Identity()).cwiseAbs().maxCoeff();
        if (!s.R.allFinite() || err > 1e-6 || s.R.determinant() < 0.0)
            in.Fail(at, "relative orientation is not an orthonormal rotation matrix");
    }
    return s;
}

}  // namespace

std::unique_ptr<Element> ReadRod(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const SpringSide a = ReadSide(in, false);
    const SourceLocation b_at = in.Where();
    const SpringSide b = ReadSide(in, false);
    if (a.node == b.node) in.Fail(b_at, "a rod needs two different nodes");
    const FrameState& na = in.node(a.node).initial;
    const FrameState& nb = in.node(b.node).initial;
    const double l_nodes = (nb.x + nb.R * b.offset - na.x - na.R * a.offset).norm();
    const SourceLocation l_at = in.Where();
    double l0 = l_nodes;
    if (!in.IsKeyword("from nodes")) l0 = in.GetReal("rod reference length");
    if (!(l0 > 1e-12) || !std::isfinite(l0))
        in.Fail(l_at, "the rod reference length must be positive (are the points coincident?)");
    if (!(l_nodes > 1e-12))
        in.Fail(b_at, "the rod's end points coincide: its direction is undefined");
    ConstitutiveLawPtr law = in.GetConstitutiveLaw(1, "rod constitutive law");
    auto e = std::make_unique<Rod>(args.label, a, b, l0, std::move(law));
    e->set_where(where);
    return e;
}

std::unique_ptr<Element> ReadDeformableHinge(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const SpringSide a = ReadSide(in, true);
    const SourceLocation b_at = in.Where();
    const SpringSide b = ReadSide(in, true);
    if (a.node == b.node) in.Fail(b_at, "a deformable hinge needs two different nodes");
    ConstitutiveLawPtr law = in.GetConstitutiveLaw(3, "deformable hinge constitutive law");
    // MBDyn's ReadOptionalOrientationDescription: the control data's default without one.
    OrientationOutput od = args.default_orientation;
    if (in.IsKeyword("orientation description")) {
        const std::string o = in.GetKeyword(
            "orientation description",
            {"euler123", "euler313", "euler321", "orientation vector", "orientation matrix"});
        od = OrientationOutput::kEuler123;
        if (o == "euler313") od = OrientationOutput::kEuler313;
        if (o == "euler321") od = OrientationOutput::kEuler321;
        if (o == "orientation vector") od = OrientationOutput::kOrientationVector;
        if (o == "orientation matrix") od = OrientationOutput::kOrientationMatrix;
    }
    auto e = std::make_unique<DeformableHinge>(args.label, a, b, std::move(law), od);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::springs
