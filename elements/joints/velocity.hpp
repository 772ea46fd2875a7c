// mbstep — axial rotation (revolute hinge with a prescribed relative angular velocity) and
// angular velocity (a node's angular velocity about an axis prescribed).
//
// Summary: velocity-level constraints (nonholonomic form of a rheonomic rotation; the angle
// itself is not constrained and may drift by the integration error), index-2 rows, not scaled
// by 1/(b0 h) in `cgr`. Joint frames Rj_a = R_a Rh_a, Rj_b = R_b Rh_b, u = Rj_a e_3.
//
//   axial rotation (6 multipliers; ConstraintLevel::kMixed):
//   (1) rows 1-5: the revolute hinge, revolute.hpp eqs. (1)-(6)            position level
//   (2) row 6:    phi = u . (w_b - w_a) - Omega(t) = 0                       velocity level
//                 phi_v = [0, -u, 0, u], phi_q = [0, u x (w_b - w_a), 0, 0];
//                 the multiplier is the torque [N m] about u applied to node a:
//                 M_a += mu u, M_b -= mu u
//   angular velocity (1 multiplier [N m]; ConstraintLevel::kVelocity):
//   (3) phi = (R n) . w - Omega(t) = 0,  n a unit vector in the node frame; M = -mu R n
// Units: Omega(t) [rad/s]. Rows (2), (3) are velocity rows of constraint_rows.hpp (3).
// Initial angular velocities must satisfy (2), (3) (they are taken as given).
//
// Deck syntax [MBDyn input manual, sections "Axial rotation", "Angular velocity",
// manual/input/joints.tex] (joint_input.hpp for the sides):
//   joint: <label>, axial rotation, <node side a>, <node side b>, <drive Omega(t)>
//          [, orientation description, <d> ] ;
//   joint: <label>, angular velocity, <node>, <direction n>, <drive Omega(t)> ;
//
// Output: MBDyn writes its multipliers, which are
//   (4) axial rotation: F, M the load of the multipliers on node b, couple about its joint
//       point (MBDyn's F and R2h (M1, M2, M3): node 1 carries minus them; planej.cc
//       AxialRotationJoint::AssRes)
//   (5) angular velocity: M = mu R n, minus the multiplier's couple on the node (drvj.cc
//       AngularVelocityJoint::AssRes adds -R n dM to its node and writes R n dM)
//   axial rotation [MBDyn mbdyn/struct/planej.cc, AxialRotationJoint::Output / OutputPrepare]:
//     .jnt: label, Rj_b^T F, Rj_b^T M (node b's hinge frame), F, M, the relative orientation
//     Rj_a^T Rj_b in the description d (joint_input.hpp (6)), Omega(t), Rj_b^T (w_b - w_a):
//     20 columns (26 for the matrix); NetCDF: f, m, F, M, E / Phi / R ("global ..."), Omega
//     (MBDyn has no variable for Omega(t)).
//   angular velocity [MBDyn mbdyn/struct/drvj.cc, AngularVelocityJoint::Output /
//     OutputPrepare]: .jnt: label, 0, (R n . M, 0, 0), 0, M, the direction R n, Omega(t):
//     17 columns; NetCDF (type "Angular velocity", as OutputPrepare_int names it): f, m, F,
//     M, dOmega (scalar Omega(t), angular velocity, "magnitude imposed angular velocity"), w
//     ("direction of imposed angular velocity").
#pragma once

#include <memory>

#include "constraint_rows.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class AxialRotation final : public TwoSideJoint {
  public:
    AxialRotation(int label, const JointSide& a, const JointSide& b, DrivePtr omega,
                  OrientationOutput d = OrientationOutput::kEuler123);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    ConstraintLevel row_level(int row) const override {
        return row == 5 ? ConstraintLevel::kVelocity : ConstraintLevel::kPosition;
    }

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
    void NetcdfColumns(std::vector<double>& c) const override;

  private:
    DrivePtr omega_;
    OrientationOutput od_;
};

class AngularVelocityJoint final : public TwoSideJoint {
  public:
    /// b is the node side; its frame Rh column 3 is the direction n.
    AngularVelocityJoint(int label, const JointSide& b, const Vec3& n, DrivePtr omega);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;

  protected:
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
    void NetcdfColumns(std::vector<double>& c) const override;

  private:
    Vec3 n_;
    DrivePtr omega_;
};

std::unique_ptr<Element> ReadAxialRotation(ElementReadArgs& args);
std::unique_ptr<Element> ReadAngularVelocity(ElementReadArgs& args);

}  // namespace mbstep::joints
