// mbstep — revolute hinge and pin (revolute.hpp for the equations).
#include "revolute.hpp"

#include <Eigen/Geometry>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"
#include "spherical.hpp"

namespace mbstep::joints {

RevoluteJoint::RevoluteJoint(int label, const JointSide& a, const JointSide& b,
                             const Friction& friction, OrientationOutput d)
    : Element(label, b.node >= 0 ? "revolute hinge" : "revolute pin"),
      a_(a),
      b_(b),
      friction_(friction),
      od_(d) {
    nodes_ = {a.node};
    if (b.node >= 0) nodes_.push_back(b.node);
    set_statement("joint");
}

void RevoluteJoint::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& na = *ctx.node[0];
    const FrameState* nb = b_.node >= 0 ? ctx.node[1] : nullptr;
    EvaluateSphericalRows(na, nb, a_, b_, ctx.lambda, 0, out);  // eq. (1)

    const Mat3 Rjb = nb ? Mat3(nb->R * b_.R) : b_.R;
    const Vec3 u = na.R * (a_.R.col(2));  // eq. (2)
    const bool jac = out.want_jacobian;
    const Mat3 Su = Skew(u);
    for (int i = 0; i < 2; ++i) {
        const Vec3 w = Rjb.col(i);
        const Vec3 c = u.cross(w);
        const double mu = ctx.lambda[3 + i];
        const int row = 3 + i;
        out.phi(row) = u.dot(w);        // eq. (3)
        out.f.segment<3>(3) -= c * mu;  // eq. (5)
        if (nb) out.f.segment<3>(9) += c * mu;
        if (!jac) continue;
        const Mat3 Sw = Skew(w);
        out.phi_q.block<1, 3>(row, 3) = c.transpose();  // eq. (4)
        out.L.block<3, 1>(3, row) = -c;
        out.K.block<3, 3>(3, 3) += mu * Sw * Su;  // eq. (6)
        if (nb) {
            out.phi_q.block<1, 3>(row, 9) = -c.transpose();
            out.L.block<3, 1>(9, row) = c;
            out.K.block<3, 3>(3, 9) -= mu * Su * Sw;
            out.K.block<3, 3>(9, 3) -= mu * Sw * Su;
            out.K.block<3, 3>(9, 9) += mu * Su * Sw;
        }
    }
    if (!friction_.active) return;
    Vec3 W;
    double ks = 0.0;
    const double T = FrictionMoment(ctx, u, W, ks);  // eq. (7)
    out.f.segment<3>(3) -= T * u;                    // eq. (8)
    if (nb) out.f.segment<3>(9) += T * u;
    if (!jac) return;
    const Mat3 Cuu = ks * u * u.transpose();  // eq. (9)
    const Mat3 Kb = ks * u * u.cross(W).transpose() + T * Su;
    out.C.block<3, 3>(3, 3) += Cuu;
    out.K.block<3, 3>(3, 3) -= Kb;
    if (nb) {
        out.C.block<3, 3>(3, 9) -= Cuu;
        out.C.block<3, 3>(9, 3) -= Cuu;
        out.C.block<3, 3>(9, 9) += Cuu;
        out.K.block<3, 3>(9, 3) += Kb;
    }
}

double RevoluteJoint::FrictionMoment(const ElementContext& ctx, const Vec3& u, Vec3& W,
                                     double& ks) const {
    W = -ctx.node[0]->w;
    if (b_.node >= 0) W += ctx.node[1]->w;
    const double k = friction_.Scale(n_prev_);
    double ds = 0.0;
    const double s = friction_.Shape(u.dot(W), ds);
    ks = k * ds;
    return -k * s;
}

void RevoluteJoint::AfterConvergence(const ElementContext& ctx) {
    n_prev_ = ctx.lambda ? Eigen::Map<const Vec3>(ctx.lambda).norm() : 0.0;
}

void RevoluteJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    // MBDyn's multipliers, eqs. (12), (13): F = lambda, the couple of rows 4-5 on node b.
    const FrameState& na = *ctx.node[0];
    const FrameState* nb = b_.node >= 0 ? ctx.node[1] : nullptr;
    const Mat3 Rja = na.R * a_.R;
    const Mat3 Rjb = nb ? Mat3(nb->R * b_.R) : b_.R;
    const Vec3 u = Rja.col(2);
    Vec3 Mb = Vec3::Zero();
    for (int i = 0; i < 2; ++i) Mb += u.cross(Rjb.col(i)) * ctx.lambda[3 + i];  // eq. (5)
    const Mat3& Rf = nb ? Rjb : Rja;                                            // eq. (13)
    Vec3 m = Rf.transpose() * Mb;
    m.z() = 0.0;
    const Eigen::Map<const Vec3> l(ctx.lambda);
    c.clear();
    AppendColumns(c, Rf.transpose() * l);
    AppendColumns(c, m);
    AppendColumns(c, l);
    AppendColumns(c, Rf * m);
    if (!nb) {  // pin: Euler angles 123 of R0^T Rj_a in degrees, Rj_a^T w_a
        AppendOrientationValues(c, b_.R.transpose() * Rja, OrientationOutput::kEuler123);
        AppendColumns(c, Rja.transpose() * na.w);
        return;
    }
    AppendOrientationValues(c, Rja.transpose() * Rjb, od_);  // eq. (10)
    AppendColumns(c, Rjb.transpose() * (nb->w - na.w));      // eq. (11)
    if (friction_.active) {
        Vec3 W;
        double ks = 0.0, ds = 0.0;
        c.push_back(FrictionMoment(ctx, u, W, ks));  // eq. (7)
        c.push_back(-friction_.mu * friction_.Shape(u.dot(W), ds));
    }
}

void RevoluteJoint::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    thread_local std::vector<double> c;  // kept: no allocation per output step
    c.clear();
    Columns(ctx, c);
    WriteNumberLine(os, label(), c);
}

NetcdfGroup RevoluteJoint::NetcdfDescription(const Element& element) const {
    NetcdfGroup g = ElementOutput::NetcdfDescription(element);
    if (g.prefix.empty() || b_.node < 0) return g;
    g.variables.push_back(OrientationVariable(od_, "global"));
    g.variables.push_back(
        {"Omega", OutputQuantity::kAngularVelocity, "local relative angular velocity (x, y, z)"});
    return g;
}

bool RevoluteJoint::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    Columns(ctx, out);
    if (b_.node >= 0) OrientationColumnsToNetcdf(out, 12, od_);
    return true;
}

namespace {

Friction ReadRevoluteOptions(DeckInput& in, const std::string& joint) {
    if (in.IsKeyword("initial theta")) in.GetReal("initial theta");
    if (in.IsKeyword("friction")) return ReadFriction(in, true, joint);
    return {};
}

}  // namespace

std::unique_ptr<Element> ReadRevoluteHinge(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const SourceLocation b_at = args.in.Where();
    const JointSide b = ReadNodeSide(args.in);
    if (a.node == b.node) args.in.Fail(b_at, "a revolute hinge needs two different nodes");
    const Friction friction = ReadRevoluteOptions(args.in, "revolute hinge");
    const OrientationOutput d = args.in.GetOptionalOrientationDescription(args.default_orientation);
    auto e = std::make_unique<RevoluteJoint>(args.label, a, b, friction, d);
    e->set_where(where);
    return e;
}

std::unique_ptr<Element> ReadRevolutePin(ElementReadArgs& args) {
    const SourceLocation where = args.in.Where();
    const JointSide a = ReadNodeSide(args.in);
    const JointSide b = ReadGroundSide(args.in);
    const Friction friction = ReadRevoluteOptions(args.in, "revolute pin");
    auto e = std::make_unique<RevoluteJoint>(args.label, a, b, friction);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::joints
