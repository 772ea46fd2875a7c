// mbstep — point-on-line, point-on-plane and distance joints.
//
// Summary: holonomic position-level constraints (distance: rheonomic with a drive), index-3
// DAE; phi_v = 0, C = 0. Side a: node 1 with the line/plane point P_a = x_a + R_a f_a [m] and
// frame Rj_a = R_a Rh_a; side b: node 2 with the point P_b = x_b + R_b f_b [m]; d = P_b - P_a.
//
//   in line   (2 multipliers [N]):  phi_i = (Rj_a e_i) . d = 0, i = 1, 2
//             P_b stays on the line through P_a along axis 3 of Rj_a
//   in plane  (1 multiplier [N]):   phi = (R_a n) . d = 0,  n the unit normal (node-1 frame)
//   distance  (1 multiplier [N]):   phi = |d| - l(t) = 0,   l(t) > 0 a drive [m]
//             dphi = n.dd with n = d/|d|; d2phi = J^T P J + (projection-row terms, u = n
//             fixed), P = (I - n n^T)/|d|, J = dd/dq = [-I, skew(p_a), I, -skew(p_b)]
// in line and in plane are projection rows (constraint_rows.hpp (2)) with u attached to node 1;
// the distance row is a projection row with u = n held fixed plus the J^T P J term. The
// distance multiplier is the tension: node 1 is pulled towards node 2 by lambda n.
//
// Optional Coulomb friction of the in line joint (friction.hpp) along the line axis
// u = Rj_a e_3, acting at the point P_b (on node 2, and on node 1's material point there):
//   (1) r = P_b - x_a,  g = v_b + w_b x p_b - v_a - w_a x r,  v = u . g  (= d/dt u.d, the
//       sliding speed),  N = |(lambda_1, lambda_2)|_prev + N_0,  k = mu N,  phi = -k s(v)
//   (2) f = phi h,  h = (-u, -(r x u), u, p_b x u)        (F_a, M_a, F_b, M_b); power phi v
//   (3) C = k s' h Gv^T,  Gv = dv/dv_tw = (-u, -(r x u), u, p_b x u) (= h)
//       K = k s' h Gq^T - phi dh/dq,  Gq = dv/dq_tw = (u x w_a, u x g, -(u x w_a),
//       p_b x (u x (w_b - w_a))),  dh/dq: (M_a; x_a) = -Su, (M_a; th_a) = Sr Su,
//       (M_a; x_b) = Su, (M_a; th_b) = -Su Sp_b, (F_a; th_a) = Su, (F_b; th_a) = -Su,
//       (M_b; th_a) = -Sp_b Su, (M_b; th_b) = Su Sp_b
// MBDyn's `prismatic` (and ours) constrains the relative orientation only and carries no
// force, so the friction of a translational pair (prismatic + in line) lives here.
//
// Deck syntax [MBDyn input manual, sections "In line", "In plane", "Distance",
// manual/input/joints.tex]:
//   joint: <label>, in line, <node 1>, [ position, ] <f_a>, [ orientation, ] <Rh_a>,
//          <node 2> [, offset, <f_b> ] [, <friction> ] ;
//   <friction> ::= friction [, preload, <N_0>], coulomb, <mu> [, regularization, <v_eps>]
//                  [, simple]                                    (friction.hpp; mbstep's)
//   joint: <label>, in plane, <node 1>, [ position, ] <f_a>, <normal n>,
//          <node 2> [, offset, <f_b> ] ;
//   joint: <label>, distance, <node 1> [, position, <f_a> ], <node 2> [, position, <f_b> ],
//          { from nodes | <drive l(t)> } ;
// `inplane` and `inline` read as `in plane` / `in line` (keywords ignore white space).
//
// Output [MBDyn mbdyn/struct/inline.cc InLineJoint::Output / OutputPrepare / AssRes,
// mbdyn/struct/inplanej.cc InPlaneJoint::Output / AssRes, mbdyn/struct/distance.cc
// DistanceJoint::Output / OutputPrepare / AssRes]: MBDyn writes its multipliers, which are
//   (4) F: the load of the multipliers on node 1 (F = L lambda, element.hpp (4); node 2
//       carries -F), the friction force left out; the couple is 0 (MBDyn writes Zero3)
//   in line .jnt: label, Rj_a^T F, 0, F, 0, and with friction phi of (2) (MBDyn's F3, the
//     friction force on node 2 along u) and the friction coefficient -mu s(v) (fc->fc()):
//     13 columns (15 with friction). NetCDF (type "inline", as OutputPrepare_int names it):
//     f, m, F, M, then
//     (5) FF (Vec3, units of force, "friction force (x, y, z)") = phi u, the friction force
//         on node 2, global; fc (scalar, "-", "friction coefficient"); both 0 without
//         friction. MBDyn writes its scalar F3 into the Vec3 FF (put_rec of one double into a
//         record of three) and dereferences a null friction model without friction: mbstep
//         writes the force vector whose component along u is F3.
//   in plane .jnt: label, (n . F, 0, 0) (MBDyn writes the normal multiplier as the local
//     force), 0, F, 0: 13 columns; NetCDF: f, m, F, M.
//   distance .jnt: label, (F . d / (d . d), 0, 0) (MBDyn's multiplier: the force per unit
//     length, its force being the multiplier times x_2 - x_1), 0, F, 0, then d / l(t) (the
//     unit direction) and l(t): 17 columns. NetCDF: f, m, F, M, V ("constrained distance
//     direction unit vector (x, y, z)", "-"), d (scalar, length, "constrained distance
//     magnitude").
#pragma once

#include <memory>

#include "constraint_rows.hpp"
#include "friction.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class InLineJoint final : public TwoSideJoint {
  public:
    InLineJoint(int label, const JointSide& a, const JointSide& b, const Friction& friction = {});
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    /// Saves the normal force N of the friction eq. (1).
    void AfterConvergence(const ElementContext& ctx) override;
    bool NeedsConvergedState() const override { return friction_.active; }
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    const Friction& friction() const { return friction_; }
    double normal_force() const { return n_prev_; }

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;

  private:
    /// phi of friction eq. (2); coefficient: -mu s(v).
    double FrictionForce(const ElementContext& ctx, double& coefficient) const;

    Friction friction_;
    double n_prev_{0.0};  ///< |(lambda_1, lambda_2)| of the last converged step
};

class InPlaneJoint final : public TwoSideJoint {
  public:
    InPlaneJoint(int label, const JointSide& a, const JointSide& b, const Vec3& normal);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    /// inplane: <label> <node 1> p R_1^T exp(c asin|c|) <node 2> q I, c = e_3 x n, R_1 node
    /// 1's orientation as read from the deck (MBDyn's ReadJoint writes this frame).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;

  private:
    Vec3 n_;
};

class DistanceJoint final : public TwoSideJoint {
  public:
    DistanceJoint(int label, const JointSide& a, const JointSide& b, DrivePtr length);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;

  private:
    DrivePtr length_;
};

std::unique_ptr<Element> ReadInLine(ElementReadArgs& args);
std::unique_ptr<Element> ReadInPlane(ElementReadArgs& args);
std::unique_ptr<Element> ReadDistance(ElementReadArgs& args);

}  // namespace mbstep::joints
