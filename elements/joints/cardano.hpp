// mbstep — Cardano (universal, Hooke's) joints and the gimbal (homokinetic) rotation joint.
//
// Summary: holonomic position-level constraints, index-3 DAE; phi_v = 0, C = 0. Multipliers:
// lambda [N] of the point rows (global frame), mu [N m] of the rotation rows. Joint frames
// Rj_a = R_a Rh_a, Rj_b = R_b Rh_b (pin: Rj_b = R0 fixed), columns a_i = Rj_a e_i,
// b_i = Rj_b e_i; joint points P_a = x_a + R_a f_a, P_b = x_b + R_b f_b (pin: X).
//
//   cardano hinge / pin (4 multipliers), cardano rotation (1 multiplier):
//   (1) phi_{1..3} = P_b - P_a = 0            common point (hinge and pin only)
//   (2) phi_4 = a_3 . b_2 = 0                 axis 3 of side a stays orthogonal to axis 2 of
//                                             side b: a cross of two revolute axes; torque is
//                                             transmitted about axis 1 of both frames
//   gimbal rotation (1 multiplier), no position constraint:
//   (3) phi = a_2 . b_1 - a_1 . b_2 = 2 ax(Rj_a^T Rj_b) . e_3 = 0
//       i.e. the relative rotation Rj_a^T Rj_b = exp(theta n) has n . e_3 = 0 (no twist about
//       axis 3): a constant-velocity joint, two Cardano joints 90 deg apart each taking half
//       the tilt [MBDyn manual, "Gimbal rotation"]; regular for relative tilts below pi.
// Rows (1) are projection rows with fixed u = e_i, (2)-(3) dot rows (constraint_rows.hpp).
//
// Deck syntax [MBDyn input manual, sections "Cardano hinge", "Cardano pin", "Cardano
// rotation", "Gimbal rotation", manual/input/joints.tex] (joint_input.hpp for the sides):
//   joint: <label>, cardano hinge, <node side a>, <node side b> ;
//   joint: <label>, cardano pin, <node side>, <ground side> ;
//   joint: <label>, cardano rotation, <rotation side a>, <rotation side b>
//          [, orientation description, <d> ] ;
//   joint: <label>, gimbal rotation, <rotation side a>, <rotation side b>
//          [, orientation description, <d> ] ;
// `universal hinge`, `universal pin` and `universal rotation` are MBDyn's aliases of the
// Cardano keywords and are registered as such.
//
// Output [MBDyn mbdyn/struct/univj.cc, UniversalHingeJoint::Output / AssRes,
// UniversalPinJoint::Output / AssRes, UniversalRotationJoint::Output / OutputPrepare / AssRes;
// mbdyn/struct/gimbal.cc, GimbalRotationJoint::Output / OutputPrepare / AssVec]: MBDyn writes
// its multipliers, which are
//   (4) F, M: the load of the multipliers on node b (hinge, rotation, gimbal; node a carries
//       minus it) about P_b, and on the node for the pin (MBDyn's UniversalPinJoint adds +F to
//       its node); v = b_2 x a_3 (the axis of the couple of (2))
//   cardano hinge / pin .jnt: label, Rj_a^T F, (v . M, 0, 0), F, M, the Euler angles 123 of
//     Rj_b^T Rj_a in degrees: 16 columns; NetCDF: f, m, F, M (MBDyn has no variable for the
//     angles)
//   cardano rotation .jnt: label, 0, (v . M, 0, 0), 0, M, Rj_b^T Rj_a in the orientation
//     description d (joint_input.hpp (6)): 16 columns (22 for the matrix); NetCDF: f, m, F, M,
//     E / Phi / R ("global ...")
//   gimbal rotation .jnt: label, 0, R_a^T M (node a's frame, not its hinge frame, as MBDyn's
//     Output), 0, M, then MBDyn's gimbal angles theta, phi (radians) of (5)-(7), then R_a^T R_b
//     (the node frames, as MBDyn's Output) in d: 18 columns (24 for the matrix); NetCDF: f, m,
//     F, M, Theta, Phi (scalars, "radian"; MBDyn declares them in OutputPrepare and writes them
//     under a misspelt preprocessor guard, i.e. never; its description "relative andle Phi"
//     is written "relative angle Phi")
//   MBDyn's gimbal has theta and phi as unknowns, Rj_a^T Rj_b = Ry(theta) Rx(phi) Ry(theta);
//   mbstep's one-equation form (3) has the same configurations, and computes them from
//   R = Rj_a^T Rj_b:
//   (5) R(1,3) - R(3,1) = sin 2theta (1 + cos phi),  R(1,1) + R(3,3) = cos 2theta (1 + cos phi)
//       2 theta = atan2(R(1,3) - R(3,1), R(1,1) + R(3,3)),  |theta| <= pi/2
//   (6) R(1,2) = sin theta sin phi,  R(3,2) = cos theta sin phi,  R(2,2) = cos phi
//       phi = atan2(sin theta R(1,2) + cos theta R(3,2), R(2,2))
//   (7) (theta + pi, -phi) is the same rotation; (5) picks |theta| <= pi/2 (MBDyn's unknowns
//       start at 0 and follow the motion, the same branch while |theta| < pi/2)
#pragma once

#include <memory>

#include "constraint_rows.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class CardanoJoint final : public TwoSideJoint {
  public:
    /// with_point: rows (1) + (2) (hinge, pin); otherwise (2) only (rotation).
    CardanoJoint(int label, std::string type, const JointSide& a, const JointSide& b,
                 bool with_point, OrientationOutput d = OrientationOutput::kEuler123);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
    void NetcdfColumns(std::vector<double>& c) const override;

  private:
    bool with_point_;
    OrientationOutput od_;
};

class GimbalRotation final : public TwoSideJoint {
  public:
    GimbalRotation(int label, const JointSide& a, const JointSide& b,
                   OrientationOutput d = OrientationOutput::kEuler123);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
    /// f, m, F, M, Theta, Phi: the orientation columns have no variable.
    void NetcdfColumns(std::vector<double>& c) const override;

  private:
    OrientationOutput od_;
};

std::unique_ptr<Element> ReadCardanoHinge(ElementReadArgs& args);
std::unique_ptr<Element> ReadCardanoPin(ElementReadArgs& args);
std::unique_ptr<Element> ReadCardanoRotation(ElementReadArgs& args);
std::unique_ptr<Element> ReadGimbalRotation(ElementReadArgs& args);

}  // namespace mbstep::joints
