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
// Deck syntax [MBDyn input manual, sections "In line", "In plane", "Distance",
// manual/input/joints.tex]:
//   joint: <label>, in line, <node 1>, [ position, ] <f_a>, [ orientation, ] <Rh_a>,
//          <node 2> [, offset, <f_b> ] ;
//   joint: <label>, in plane, <node 1>, [ position, ] <f_a>, <normal n>,
//          <node 2> [, offset, <f_b> ] ;
//   joint: <label>, distance, <node 1> [, position, <f_a> ], <node 2> [, position, <f_b> ],
//          { from nodes | <drive l(t)> } ;
// `inplane` and `inline` read as `in plane` / `in line` (keywords ignore white space).
#pragma once

#include <memory>

#include "constraint_rows.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class InLineJoint final : public TwoSideJoint {
  public:
    InLineJoint(int label, const JointSide& a, const JointSide& b);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
};

class InPlaneJoint final : public TwoSideJoint {
  public:
    InPlaneJoint(int label, const JointSide& a, const JointSide& b, const Vec3& normal);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;

  private:
    Vec3 n_;
};

class DistanceJoint final : public TwoSideJoint {
  public:
    DistanceJoint(int label, const JointSide& a, const JointSide& b, DrivePtr length);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;

  private:
    DrivePtr length_;
};

std::unique_ptr<Element> ReadInLine(ElementReadArgs& args);
std::unique_ptr<Element> ReadInPlane(ElementReadArgs& args);
std::unique_ptr<Element> ReadDistance(ElementReadArgs& args);

}  // namespace mbstep::joints
