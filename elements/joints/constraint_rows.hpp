// mbstep — building blocks of the joint family: one scalar constraint row and its exact
// derivatives, written into an element block. Every joint of this folder is a sum of them.
//
// Notation. A joint has two sides a and b; each side is a node (pose x, R, twist v, w) or the
// ground (fixed). For a side: the arm p = R f (f the offset in the node frame, p = 0 on the
// ground), the joint point P = x + p (ground: the fixed point X), the joint frame Rj = R Rh
// (ground: R0), vectors attached to the side rotate with it: du = dtheta x u. Spatial (left)
// increments R <- exp(skew(dtheta)) R, hence dp = -skew(p) dtheta. d = P_b - P_a.
// Each row r with multiplier mu adds f -= phi_q[r]^T mu (phi_v[r] for velocity rows),
// L[:, r] = -phi_q[r]^T, and K += mu d2phi/dq2 (K = -df/dq, element.hpp (2)).
//
//   (1) dot row         phi = s u.w,  u attached to side a, w attached to side b
//         dphi = s c.dtheta_a - s c.dtheta_b,   c = u x w
//         d2phi: (theta_a, theta_a) = s Sw Su,  (theta_a, theta_b) = -s Su Sw,
//                (theta_b, theta_a) = -s Sw Su, (theta_b, theta_b) = s Su Sw   (S. = skew(.))
//   (2) projection row  phi = u.d - target,   u attached to side a or fixed in space
//         dphi = -u.dx_a + u.dx_b + g_a.dtheta_a + (p_b x u).dtheta_b,
//         g_a = u x (d + p_a) if u is attached to a, g_a = u x p_a if u is fixed
//         d2phi (u attached): (x_a, th_a) = Su, (th_a, x_a) = -Su, (th_a, th_a) = S(d + p_a) Su,
//                (th_a, x_b) = Su, (th_a, th_b) = -Su Sp_b, (x_b, th_a) = -Su,
//                (th_b, th_a) = -Sp_b Su, (th_b, th_b) = Su Sp_b
//         d2phi (u fixed):   (th_a, th_a) = -Su Sp_a, (th_b, th_b) = Su Sp_b
//   (3) velocity row    phi = u.(w_b - w_a) - target,  u attached to side c (a, b or fixed)
//         phi_v: w_a -> -u, w_b -> u;  phi_q: theta_c -> u x (w_b - w_a)
//         f: M_a += mu u, M_b -= mu u;  K: (M_a, th_c) = mu Su, (M_b, th_c) = -mu Su
// Ground sides have no columns: their terms are dropped.
#pragma once

#include <string>

#include "joint_input.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"

namespace mbstep::joints {

/// Evaluated side of a joint (see the notation above).
struct Side {
    int col{-1};               ///< first column of the node's 6 dofs in the block; -1: ground
    Vec3 x{Vec3::Zero()};      ///< node position (ground: the fixed point)
    Vec3 p{Vec3::Zero()};      ///< arm R f (ground: 0)
    Mat3 R{Mat3::Identity()};  ///< joint frame R Rh (ground: R0)
    Vec3 w{Vec3::Zero()};      ///< angular velocity (ground: 0)
    Vec3 point() const { return x + p; }
    bool ground() const { return col < 0; }
};

/// Side of JointSide s; n is its node state (nullptr for a ground side), col its block column.
Side MakeSide(const JointSide& s, const FrameState* n, int col);

/// (1): phi[row] += s u.w (the caller adds any constant target).
void AddDotRow(const Vec3& u, const Side& a, const Vec3& w, const Side& b, double s, int row,
               double mu, ElementBlock& out);
/// (2): phi[row] = u.d - target; u attached to side a when u_on_a, else fixed in space.
void AddProjectionRow(const Vec3& u, bool u_on_a, const Side& a, const Side& b, double target,
                      int row, double mu, ElementBlock& out);
/// (3): phi[row] = u.(w_b - w_a) - target; u attached to side c (nullptr: fixed in space).
void AddVelocityRow(const Vec3& u, const Side* c, const Side& a, const Side& b, double target,
                    int row, double mu, ElementBlock& out);

/// Rows row0..row0+n-1 of the orientation constraint ax(Rj_a^T Rj_b Rd^T)_i = 0 for the
/// components i listed in comp (sin-type error: ax(E) = 1/2 vee(E - E^T), regular for errors
/// below pi/2): row i = 1/2 (a_k.c_j - a_j.c_k), (i, j, k) cyclic, a = columns of Rj_a,
/// c = columns of Rj_b Rd^T; a sum of dot rows (1). With exactly one free component f the
/// rows are a_f.c_m (m the other constrained axis, sign as the sin-type row's), regular for
/// any rotation about f.
void AddOrientationRows(const Side& a, const Side& b, const Mat3& Rd, const int* comp, int n,
                        int row0, const double* mu, ElementBlock& out);

/// A joint between sides a and b (either may be the ground, not both): the element's nodes are
/// a's node then b's node; a's columns start at 0, b's at 6 (0 when a is the ground).
class TwoSideJoint : public Element, public ElementOutput {
  public:
    TwoSideJoint(int label, std::string type, const JointSide& a, const JointSide& b, int m,
                 ConstraintLevel level);

    int num_multipliers() const override { return m_; }
    ConstraintLevel constraint_level() const override { return level_; }
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    /// The label, then the numbers of Columns (the load MBDyn's multipliers stand for, then
    /// the joint's own columns).
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    /// The numbers of Columns, without the ones MBDyn writes to no NetCDF variable of this
    /// layout (NetcdfColumns).
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    /// MBDyn's .log line for the types written by joint_input.hpp (3), (4): in line
    /// (`inline`, Rh_b = I), distance (offsets only), cardano hinge|pin|rotation, gimbal
    /// rotation, axial rotation; none for drive hinge and angular velocity (MBDyn writes none).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

    const JointSide& side_a() const { return a_; }
    const JointSide& side_b() const { return b_; }

  protected:
    Side SideA(const ElementContext& ctx) const;
    Side SideB(const ElementContext& ctx) const;
    /// The numbers of the .jnt line after the label; the default: the load of the multipliers
    /// on the first node, couple about its joint point, local components in its joint frame
    /// (12 numbers).
    virtual void Columns(const ElementContext& ctx, std::vector<double>& c) const;
    /// The load the multipliers apply to the node of side b (on_b) or of side a: F = the force
    /// rows of L lambda (element.hpp (4); applied loads such as friction left out), M = the
    /// couple about that side's joint point (global). The side must be a node.
    void MultiplierLoad(const ElementContext& ctx, bool on_b, Vec3& F, Vec3& M) const;
    /// Removes from Columns' numbers those without a NetCDF variable; default: none.
    virtual void NetcdfColumns(std::vector<double>& /*c*/) const {}

    JointSide a_, b_;
    int m_;
    ConstraintLevel level_;
};

/// Writes the .jnt line of element e: the force and couple it applies to its node in slot
/// `slot`, the couple taken about `point`, local components in `frame` (joint_input.hpp).
void WriteSlotReaction(std::ostream& os, const Element& e, const ElementContext& ctx, int slot,
                       const Vec3& point, const Mat3& frame);
/// The force F and couple M (about `point`) element e applies to its node in slot `slot`.
void SlotLoad(const Element& e, const ElementContext& ctx, int slot, const Vec3& point, Vec3& F,
              Vec3& M);

}  // namespace mbstep::joints
