// mbstep — total joint, total pin joint, prismatic and drive hinge: any subset of the relative
// position and orientation components constrained, optionally prescribed by drives.
//
// Summary: holonomic position-level constraints (rheonomic with drives), index-3 DAE, and
// optionally velocity-level rows for imposed relative angular velocities (then the joint's
// level is mixed: Element::row_level); C = 0; up to 6 multipliers: lambda_i [N] of the position
// rows, mu_i [N m] of the orientation rows, nu_i [N m] of the angular velocity rows. Side a (node
// 1; the ground for the pin) gives the reference frames: position frame Rp_a = R_a Rhp_a, rotation
// frames Rr_a = R_a Rhr_a, Rr_b = R_b Rhr_b; joint points P_a = x_a + R_a f_a, P_b = x_b + R_b f_b;
// d = P_b - P_a.
//
//   (1) position rows      phi_i = (Rp_a e_i) . d - s_i(t)           active components i
//   (2) imposed rotation   Rd(t) = exp(skew(theta(t)))              theta(t) rotation vector
//   (3) orientation rows   phi_i = ax(Rr_a^T Rr_b Rd^T)_i            active components i
//                          ax(E) = 1/2 vee(E - E^T) (sin-type error, zero when
//                          Rr_b = Rr_a Rd; regular for errors below pi/2); the components
//                          with an imposed angular velocity are zero in theta(t) here
//   (4) angular velocity   phi_i = (Rr_a e_i) . (w_b - w_a) - omega_i(t)  components i flagged
//       rows                `angular velocity`; omega_i(t) is component i of the orientation
//                          drive (a velocity row, constraint_rows.hpp (3))
// (1) are projection rows, (3) sums of dot rows (constraint_rows.hpp). Inactive components
// have no row and transmit no load. prismatic = (3) with all three components and Rd = I
// (relative position free); drive hinge = (3) with all three components and the drive
// theta(t) [rad], rotation vector in frame Rr_a.
// Units: s(t) [m], theta(t) [rad]; offsets [m].
//
// Deck syntax [MBDyn input manual, sections "Total joint", "Total pin joint", "Prismatic",
// "Drive hinge", manual/input/joints.tex]:
//   joint: <label>, total joint,
//       <node a> [, position, <f_a>] [, position orientation, <Rhp_a>]
//                [, rotation orientation, <Rhr_a>],
//       <node b> [, position, <f_b>] [, position orientation, <Rhp_b>]
//                [, rotation orientation, <Rhr_b>]
//       [, position constraint, <flag> x 3, <vector drive s(t)>]
//       [, orientation constraint, <flag> x 3, <vector drive theta(t)>] ;
//   joint: <label>, total pin joint,
//       <node> [, position, <f>] [, position orientation, <Rhp>] [, rotation orientation, <Rhr>]
//       [, position, <X>] [, position orientation, <Rp0>] [, rotation orientation, <Rr0>]
//       [, position constraint, ...] [, orientation constraint, ...] ;
//   <flag> ::= active | inactive | position | rotation | 1 | 0, and `angular velocity` in
//   orientation constraints (4) (`velocity` in position constraints is refused); vector
//   drives: joint_drive.hpp. `orientation description` is read and ignored with a warning. Without
//   a constraint statement all three components are inactive. For the pin, side a is the ground
//   frame and side b the node. joint: <label>, prismatic, <rotation side a>, <rotation side b> ;
//   joint: <label>, drive hinge, <rotation side a>, <rotation side b>, <vector drive theta(t)> ;
//
// Output: MBDyn writes its multipliers, which are
//   (5) total joint [mbdyn/struct/totalj.cc, TotalJoint::AssRes / Output]: F = Rp_a f, M =
//       Rr_a m, the load of the multipliers on node a (node b carries minus it), couple about
//       P_b (node a's couple about x_a is (P_b - x_a) x F + M)
//   (6) total pin joint [TotalPinJoint::AssRes / Output]: minus the load of the multipliers on
//       the node (side b here), couple about its joint point, local components in the ground
//       side's frames (Rch, Rchr)
//   (7) prismatic [mbdyn/struct/prismj.cc, PrismaticJoint::AssRes / Output]: the couple of
//       the multipliers on node b (MBDyn's R1h M), local components in Rj_a; no force
//   drive hinge [mbdyn/struct/drvhinge.cc, DriveHingeJoint::AssVec / Output]: the couple of
//       the multipliers on node a (MBDyn's R1h M), local in Rj_a
//   NetCDF types as MBDyn's OutputPrepare_int names them: "total", "totalpin", "Prismatic",
//   "Drive Hinge".
//
// MBDyn's .log lines (the layout MBDyn develop writes and Blendyn's totjlib.py reads; flags 0|1
// per component: position X, velocity V (always 0 here), rotation R, angular velocity W):
//   totaljoint: <label> <node a> f_a Rhp_a Rhr_a <node b> f_b Rhp_b Rhr_b X V R W
//   totalpinjoint: <label> <node> f Rhp Rhr X0 Rp0 Rr0 X V R W
//   prismatic: <label> <node a> 0 Rhr_a <node b> 0 Rhr_b          [ReadJoint, joint.cc]
// and none for drive hinge (MBDyn writes none).
#pragma once

#include <memory>

#include "constraint_rows.hpp"
#include "joint_drive.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class TotalJoint final : public TwoSideJoint {
  public:
    struct Spec {
        JointSide a, b;               ///< position sides: offsets and Rhp (ground: X, Rp0)
        Mat3 Rr_a{Mat3::Identity()};  ///< rotation orientation of side a
        Mat3 Rr_b{Mat3::Identity()};  ///< rotation orientation of side b
        bool position_active[3]{false, false, false};
        bool rotation_active[3]{false, false, false};
        bool rotation_velocity[3]{false, false, false};  ///< eq. (4) instead of (3)
        JointVec3Drive position_drive;                   ///< s(t), eq. (1)
        JointVec3Drive rotation_drive;                   ///< theta(t), eq. (2)
    };
    TotalJoint(int label, std::string type, const Spec& spec);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    /// MBDyn's total joint line: label, F and M of (5), (6) in the frames of side a (position
    /// and rotation frames), F and M global, then the relative position Rp_a^T d, the
    /// rotation vector of Rr_a^T Rr_b, the relative velocity and the relative angular velocity
    /// in the same frames (MBDyn's mbdyn/struct/totalj.cc, TotalJoint::Output).
    /// MBDyn's TotalJoint::OutputPrepare: the reactions, then the relative position `X`,
    /// orientation vector `Phi`, velocity `V` and angular velocity `Omega` of its .jnt line
    /// (total joint and total pin joint; the others write the reactions only).
    NetcdfGroup NetcdfDescription(const Element& element) const override;

  protected:
    /// total joints: TotalJoint::Output's 24 numbers; prismatic: the 12 reaction numbers of
    /// (7); drive hinge: DriveHingeColumns.
    void Columns(const ElementContext& ctx, std::vector<double>& c) const override;
    /// Drops the drive hinge's Euler-angle columns, which have no NetCDF variable.
    void NetcdfColumns(std::vector<double>& c) const override {
        if (type() == "drive hinge" && c.size() == 18) c.erase(c.begin() + 12, c.begin() + 15);
    }

  private:
    void DriveHingeColumns(const ElementContext& ctx, std::vector<double>& c) const;

  public:
    std::string MbdynLogLine(const LogLineContext& ctx) const override;
    ConstraintLevel row_level(int row) const override {
        return row < npos_ + nrot_ ? ConstraintLevel::kPosition : ConstraintLevel::kVelocity;
    }

  private:
    Spec spec_;
    int npos_{0}, nrot_{0}, nvel_{0};
    int pos_comp_[3]{}, rot_comp_[3]{}, vel_comp_[3]{};
    JointSide ra_, rb_;  // sides with the rotation orientations
};

std::unique_ptr<Element> ReadTotalJoint(ElementReadArgs& args);
std::unique_ptr<Element> ReadTotalPinJoint(ElementReadArgs& args);
std::unique_ptr<Element> ReadPrismatic(ElementReadArgs& args);
std::unique_ptr<Element> ReadDriveHinge(ElementReadArgs& args);

}  // namespace mbstep::joints
