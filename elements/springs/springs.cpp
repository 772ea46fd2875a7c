// mbstep — rod and deformable hinge (springs.hpp for the equations).
#include "springs.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <ostream>
#include <string>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::springs {

namespace {

// One .jnt line: label, F and M in frame Rf (3 + 3), F and M global (3 + 3).
void WriteLine(std::ostream& os, int label, const Mat3& Rf, const Vec3& F, const Vec3& M) {
    const Vec3 Fl = Rf.transpose() * F, Ml = Rf.transpose() * M;
    os << label;
    for (const Vec3* v : {&Fl, &Ml, &F, &M})
        for (int i = 0; i < 3; ++i) os << ' ' << (*v)[i];
    os << '\n';
}

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
    const double t = theta.norm();
    const double beta = t < 1e-3 ? 1.0 / 12.0 + t * t / 720.0
                                 : 1.0 / (t * t) - (1.0 + std::cos(t)) / (2.0 * t * std::sin(t));
    const Mat3 S = Skew(theta);
    return Mat3::Identity() - 0.5 * S + beta * S * S;  // eq. (9)
}

// ---------------------------------------------------------------------------------------------
// Rod

Rod::Rod(int label, const SpringSide& a, const SpringSide& b, double l0, double EA, double C)
    : Element(label, "rod"), a_(a), b_(b), l0_(l0), EA_(EA), C_(C) {
    nodes_ = {a.node, b.node};
    set_statement("joint");
}

void Rod::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Vec3 pa = na.R * a_.offset, pb = nb.R * b_.offset;
    const Vec3 d = nb.x + pb - na.x - pa;
    const double l = d.norm();
    const Vec3 n = d / l;
    const Vec3 dv = nb.v + nb.w.cross(pb) - na.v - na.w.cross(pa);
    const double T = EA_ * (l - l0_) / l0_ + C_ * n.dot(dv) / l0_;  // eqs. (1), (2)
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
    const Eigen::Matrix<double, 12, 1> dT = (EA_ / l0_) * g + (C_ / l0_) * dldot;
    out.K = g * dT.transpose() + T * H;      // eq. (4)
    out.C = (C_ / l0_) * g * g.transpose();  // eq. (5)
}

double Rod::PotentialEnergy(const ElementContext& ctx) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const double l = (nb.x + nb.R * b_.offset - na.x - na.R * a_.offset).norm();
    return 0.5 * EA_ * (l - l0_) * (l - l0_) / l0_;  // eq. (6)
}

void Rod::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    // Force on node a, at its attachment point, in a frame with axis 1 along the rod.
    ElementBlock b;
    b.Reset(2, 0, false);
    Evaluate(ctx, b);
    const FrameState& na = *ctx.node[0];
    const Vec3 d = ctx.node[1]->x + ctx.node[1]->R * b_.offset - na.x - na.R * a_.offset;
    WriteLine(os, label(), FrameAlong(d.normalized()), b.f.segment<3>(0), Vec3::Zero());
}

// ---------------------------------------------------------------------------------------------
// Deformable hinge

DeformableHinge::DeformableHinge(int label, const SpringSide& a, const SpringSide& b, const Mat3& K,
                                 const Mat3& C)
    : Element(label, "deformable hinge"), a_(a), b_(b), K_(K), C_(C) {
    nodes_ = {a.node, b.node};
    set_statement("joint");
}

void DeformableHinge::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& na = *ctx.node[0];
    const FrameState& nb = *ctx.node[1];
    const Mat3 Ra = na.R * a_.R;
    const Vec3 theta = LogSO3(Ra.transpose() * nb.R * b_.R);  // eq. (7)
    const Vec3 dw = nb.w - na.w;
    const Vec3 m = K_ * theta + C_ * (Ra.transpose() * dw);  // eq. (8)
    const Vec3 Mb = -Ra * m;
    out.f.segment<3>(3) = -Mb;
    out.f.segment<3>(9) = Mb;
    if (!out.want_jacobian) return;
    // eq. (10): derivatives of M_b; K = -df/dq, C = -df/dv, M_a = -M_b.
    const Mat3 RKJ = Ra * K_ * InverseLeftJacobian(theta) * Ra.transpose();
    const Mat3 RCR = Ra * C_ * Ra.transpose();
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
    return 0.5 * theta.dot(K_ * theta);  // eq. (11)
}

void DeformableHinge::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    // Couple on node a, in its hinge frame.
    ElementBlock b;
    b.Reset(2, 0, false);
    Evaluate(ctx, b);
    WriteLine(os, label(), ctx.node[0]->R * a_.R, Vec3::Zero(), b.f.segment<3>(3));
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

double NonNegative(DeckInput& in, const char* what) {
    const SourceLocation at = in.Where();
    const double v = in.GetReal(what);
    if (!std::isfinite(v) || v < 0.0) in.Fail(at, std::string(what) + " must be non-negative");
    return v;
}

Mat3 FiniteMatrix(DeckInput& in, const char* what) {
    const SourceLocation at = in.Where();
    const Mat3 m = in.GetMat3(what);
    if (!m.allFinite()) in.Fail(at, std::string(what) + " is not finite");
    return m;
}

const std::vector<std::string> kLaws1 = {"linear elastic", "linear viscoelastic"};
const std::vector<std::string> kLaws3 = {
    "linear elastic",      "linear elastic isotropic",      "linear elastic generic",
    "linear viscoelastic", "linear viscoelastic isotropic", "linear viscoelastic generic"};

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
    const std::string law = in.GetKeyword("constitutive law", kLaws1);
    const double EA = NonNegative(in, "axial stiffness EA");
    double C = 0.0;
    if (law == "linear viscoelastic")
        C = in.IsKeyword("proportional") ? NonNegative(in, "proportional damping factor") * EA
                                         : NonNegative(in, "axial damping");
    if (in.IsKeyword("prestress") || in.IsKeyword("prestrain"))
        in.Fail(in.Where(), "prestress and prestrain are not supported");
    auto e = std::make_unique<Rod>(args.label, a, b, l0, EA, C);
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
    const std::string law = in.GetKeyword("constitutive law", kLaws3);
    const bool generic = law.find("generic") != std::string::npos;
    const bool viscous = law.find("viscoelastic") != std::string::npos;
    const Mat3 K = generic ? FiniteMatrix(in, "stiffness matrix")
                           : Mat3(NonNegative(in, "stiffness") * Mat3::Identity());
    Mat3 C = Mat3::Zero();
    if (viscous) {
        if (in.IsKeyword("proportional"))
            C = NonNegative(in, "proportional damping factor") * K;
        else
            C = generic ? FiniteMatrix(in, "damping matrix")
                        : Mat3(NonNegative(in, "damping") * Mat3::Identity());
    }
    if (in.IsKeyword("prestress") || in.IsKeyword("prestrain"))
        in.Fail(in.Where(), "prestress and prestrain are not supported");
    if (in.IsKeyword("orientation description"))
        in.GetKeyword("orientation description", {"euler123", "euler313", "euler321",
                                                  "orientation vector", "orientation matrix"});
    auto e = std::make_unique<DeformableHinge>(args.label, a, b, K, C);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::springs
