// mbstep — constraint rows of the joint family (constraint_rows.hpp for the equations).
#include "constraint_rows.hpp"

#include <Eigen/Geometry>

#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::joints {

namespace {

// f[col..col+3) -= v mu and L[col..col+3, row) = -v, for a gradient block v of phi.
void AddGradient(int col, const Vec3& v, int row, double mu, ElementBlock& out) {
    if (col < 0) return;
    out.f.segment<3>(col) -= v * mu;
    if (!out.want_jacobian) return;
    out.phi_q.block<1, 3>(row, col) += v.transpose();
    out.L.block<3, 1>(col, row) -= v;
}

void AddK(int r, int c, const Mat3& m, ElementBlock& out) {
    if (r < 0 || c < 0) return;
    out.K.block<3, 3>(r, c) += m;
}

// Column of the rotation (theta) dofs of a side, -1 on the ground.
int Th(const Side& s) { return s.ground() ? -1 : s.col + 3; }
int X(const Side& s) { return s.ground() ? -1 : s.col; }

}  // namespace

Side MakeSide(const JointSide& s, const FrameState* n, int col) {
    Side out;
    if (!n) {
        out.x = s.offset;
        out.R = s.R;
        return out;
    }
    out.col = col;
    out.x = n->x;
    out.p = n->R * s.offset;
    out.R = n->R * s.R;
    out.w = n->w;
    return out;
}

void AddDotRow(const Vec3& u, const Side& a, const Vec3& w, const Side& b, double s, int row,
               double mu, ElementBlock& out) {
    const Vec3 c = s * u.cross(w);
    out.phi(row) += s * u.dot(w);  // eq. (1)
    AddGradient(Th(a), c, row, mu, out);
    AddGradient(Th(b), -c, row, mu, out);
    if (!out.want_jacobian) return;
    const Mat3 Su = Skew(u), Sw = Skew(w);
    const double k = s * mu;
    AddK(Th(a), Th(a), k * Sw * Su, out);
    AddK(Th(a), Th(b), -k * Su * Sw, out);
    AddK(Th(b), Th(a), -k * Sw * Su, out);
    AddK(Th(b), Th(b), k * Su * Sw, out);
}

void AddProjectionRow(const Vec3& u, bool u_on_a, const Side& a, const Side& b, double target,
                      int row, double mu, ElementBlock& out) {
    const Vec3 d = b.point() - a.point();
    const bool attached = u_on_a && !a.ground();
    out.phi(row) = u.dot(d) - target;  // eq. (2)
    AddGradient(X(a), -u, row, mu, out);
    AddGradient(Th(a), attached ? Vec3(u.cross(d + a.p)) : Vec3(u.cross(a.p)), row, mu, out);
    AddGradient(X(b), u, row, mu, out);
    AddGradient(Th(b), b.p.cross(u), row, mu, out);
    if (!out.want_jacobian) return;
    const Mat3 Su = Skew(u), Spb = Skew(b.p);
    AddK(Th(b), Th(b), mu * Su * Spb, out);
    if (!attached) {
        AddK(Th(a), Th(a), -mu * Su * Skew(a.p), out);
        return;
    }
    AddK(X(a), Th(a), mu * Su, out);
    AddK(Th(a), X(a), -mu * Su, out);
    AddK(Th(a), Th(a), mu * Skew(d + a.p) * Su, out);
    AddK(Th(a), X(b), mu * Su, out);
    AddK(Th(a), Th(b), -mu * Su * Spb, out);
    AddK(X(b), Th(a), -mu * Su, out);
    AddK(Th(b), Th(a), -mu * Spb * Su, out);
}

void AddVelocityRow(const Vec3& u, const Side* c, const Side& a, const Side& b, double target,
                    int row, double mu, ElementBlock& out) {
    const Vec3 dw = b.w - a.w;
    out.phi(row) = u.dot(dw) - target;  // eq. (3)
    if (!a.ground()) out.f.segment<3>(a.col + 3) += mu * u;
    if (!b.ground()) out.f.segment<3>(b.col + 3) -= mu * u;
    if (!out.want_jacobian) return;
    if (!a.ground()) {
        out.phi_v.block<1, 3>(row, a.col + 3) -= u.transpose();
        out.L.block<3, 1>(a.col + 3, row) += u;
    }
    if (!b.ground()) {
        out.phi_v.block<1, 3>(row, b.col + 3) += u.transpose();
        out.L.block<3, 1>(b.col + 3, row) -= u;
    }
    if (!c || c->ground()) return;
    out.phi_q.block<1, 3>(row, c->col + 3) += u.cross(dw).transpose();
    const Mat3 Su = Skew(u);
    AddK(Th(a), c->col + 3, mu * Su, out);
    AddK(Th(b), c->col + 3, -mu * Su, out);
}

void AddOrientationRows(const Side& a, const Side& b, const Mat3& Rd, const int* comp, int n,
                        int row0, const double* mu, ElementBlock& out) {
    const Mat3 C = b.R * Rd.transpose();
    // One free component f (a hinge): the two halves of each sin-type row cancel at a relative
    // rotation of pi about f, where the rows lose rank, so each row keeps the half with a_f,
    // a_f.c_m = 0 (m the other constrained axis): the same first-order error, regular for any
    // rotation about f (MBDyn's revolute hinge rows; MBDyn's total joint uses the rotation
    // vector, also regular at pi).
    const int free_axis = n == 2 ? 3 - comp[0] - comp[1] : -1;
    for (int r = 0; r < n; ++r) {
        const int i = comp[r], j = (i + 1) % 3, k = (i + 2) % 3;
        const int row = row0 + r;
        out.phi(row) = 0.0;
        if (free_axis == j) {
            AddDotRow(a.R.col(j), a, C.col(k), b, -1.0, row, mu[r], out);
        } else if (free_axis == k) {
            AddDotRow(a.R.col(k), a, C.col(j), b, 1.0, row, mu[r], out);
        } else {
            AddDotRow(a.R.col(k), a, C.col(j), b, 0.5, row, mu[r], out);
            AddDotRow(a.R.col(j), a, C.col(k), b, -0.5, row, mu[r], out);
        }
    }
}

TwoSideJoint::TwoSideJoint(int label, std::string type, const JointSide& a, const JointSide& b,
                           int m, ConstraintLevel level)
    : Element(label, std::move(type)), a_(a), b_(b), m_(m), level_(level) {
    if (a.node >= 0) nodes_.push_back(a.node);
    if (b.node >= 0) nodes_.push_back(b.node);
    set_statement("joint");
}

std::string TwoSideJoint::MbdynLogLine(const LogLineContext& ctx) const {
    // [ReadJoint, mbdyn/struct/joint.cc]: the keyword MBDyn writes for each joint type.
    const std::string& t = type();
    if (t == "cardano hinge" || t == "universal hinge")
        return JointLogLine("cardanohinge", label(), a_, b_, ctx);
    if (t == "cardano pin" || t == "universal pin")
        return JointLogLine("cardanopin", label(), a_, b_, ctx);
    if (t == "cardano rotation" || t == "universal rotation")
        return JointLogLine("cardanorotation", label(), a_, b_, ctx, true);
    if (t == "gimbal rotation") return JointLogLine("gimbalrotation", label(), a_, b_, ctx, true);
    if (t == "axial rotation") return JointLogLine("axialrotation", label(), a_, b_, ctx);
    if (t == "in line") {  // inline: node 1, p, R, node 2, q, I
        JointSide b = b_;
        b.R = Mat3::Identity();
        return JointLogLine("inline", label(), a_, b, ctx);
    }
    if (t == "distance")  // distance: node 1, f1, node 2, f2
        return LogLine("distance", label(), ctx.precision)
            .Node(ctx.node_label[0])
            .Vec(a_.offset)
            .Node(ctx.node_label[1])
            .Vec(b_.offset)
            .str();
    return {};
}

Side TwoSideJoint::SideA(const ElementContext& ctx) const {
    return MakeSide(a_, a_.node >= 0 ? ctx.node[0] : nullptr, 0);
}

Side TwoSideJoint::SideB(const ElementContext& ctx) const {
    const int slot = a_.node >= 0 ? 1 : 0;
    return MakeSide(b_, b_.node >= 0 ? ctx.node[slot] : nullptr, 6 * slot);
}

void TwoSideJoint::MultiplierLoad(const ElementContext& ctx, bool on_b, Vec3& F, Vec3& M) const {
    const Side s = on_b ? SideB(ctx) : SideA(ctx);
    const int slot = on_b && a_.node >= 0 ? 1 : 0;
    ElementBlock blk;
    blk.Reset(static_cast<int>(nodes().size()), num_multipliers(), true);
    Evaluate(ctx, blk);
    const int m = num_multipliers();
    const Eigen::Map<const Eigen::VectorXd> lambda(ctx.lambda, m);
    F = blk.L.block(6 * slot, 0, 3, m) * lambda;
    M = blk.L.block(6 * slot + 3, 0, 3, m) * lambda - (s.point() - ctx.node[slot]->x).cross(F);
}

void TwoSideJoint::Columns(const ElementContext& ctx, std::vector<double>& c) const {
    const bool on_b = a_.node < 0;
    const Side s = on_b ? SideB(ctx) : SideA(ctx);
    Vec3 F, M;
    MultiplierLoad(ctx, on_b, F, M);
    c.clear();
    AppendReactionColumns(c, s.R, F, M);
}

void TwoSideJoint::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    thread_local std::vector<double> c;  // kept: no allocation per output step
    c.clear();
    Columns(ctx, c);
    WriteNumberLine(os, label(), c);
}

bool TwoSideJoint::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    Columns(ctx, out);
    NetcdfColumns(out);
    return true;
}

void SlotLoad(const Element& e, const ElementContext& ctx, int slot, const Vec3& point, Vec3& F,
              Vec3& M) {
    ElementBlock b;
    b.Reset(static_cast<int>(e.nodes().size()), e.num_multipliers(), false);
    e.Evaluate(ctx, b);
    F = b.f.segment<3>(6 * slot);
    M = b.f.segment<3>(6 * slot + 3) - (point - ctx.node[slot]->x).cross(F);
}

void WriteSlotReaction(std::ostream& os, const Element& e, const ElementContext& ctx, int slot,
                       const Vec3& point, const Mat3& frame) {
    Vec3 F, M;
    SlotLoad(e, ctx, slot, point, F, M);
    WriteJointLine(os, e.label(), frame, F, M);
}

}  // namespace mbstep::joints
