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
// Output, F and M the force and couple on the first node about its joint point, v = b_2 x a_3
// (the axis of the couple of (2)) [MBDyn mbdyn/struct/univj.cc, UniversalHingeJoint::Output,
// UniversalPinJoint::Output, UniversalRotationJoint::Output / OutputPrepare]:
//   cardano hinge / pin .jnt: label, Rj_a^T F, (v . M, 0, 0), F, M, the Euler angles 123 of
//     Rj_b^T Rj_a in degrees: 16 columns; NetCDF: f, m, F, M (MBDyn has no variable for the
//     angles)
//   cardano rotation .jnt: label, 0, (v . M, 0, 0), 0, M, Rj_b^T Rj_a in the orientation
//     description d (joint_input.hpp (6)): 16 columns (22 for the matrix); NetCDF: f, m, F, M,
//     E / Phi ("global ..."; none for the matrix)
//   gimbal rotation .jnt: label, 0, R_a^T M (node a's frame, not its hinge frame), 0, M:
//     13 columns. MBDyn's GimbalRotationJoint::Output (mbdyn/struct/gimbal.cc) then writes
//     its internal gimbal angles theta and phi (unknowns of its own formulation, which
//     mbstep's one-equation form does not have) and the relative orientation R_a^T R_b in d;
//     mbstep writes none of these rather than columns that would not line up. MBDyn's NetCDF
//     Theta and Phi are scalars, written under a misspelt preprocessor guard (never).
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
    GimbalRotation(int label, const JointSide& a, const JointSide& b);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
};

std::unique_ptr<Element> ReadCardanoHinge(ElementReadArgs& args);
std::unique_ptr<Element> ReadCardanoPin(ElementReadArgs& args);
std::unique_ptr<Element> ReadCardanoRotation(ElementReadArgs& args);
std::unique_ptr<Element> ReadGimbalRotation(ElementReadArgs& args);

}  // namespace mbstep::joints
