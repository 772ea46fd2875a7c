// mbstep — spherical hinge (two nodes) and spherical pin (node to ground).
//
// Summary: holonomic position-level constraint, 3 multipliers lambda [N] (global frame),
// index-3 DAE; phi_v = 0, C = 0. Node a: pose (x_a, R_a), offset f_a (node frame) [m];
// side b: a node (x_b, R_b, f_b) or, for the pin, the ground point X (global) [m].
//
//   (1) p_a = R_a f_a,  p_b = R_b f_b                                   arms, global
//   (2) phi = x_a + p_a - x_b - p_b          (hinge)
//       phi = x_a + p_a - X                  (pin)
//   (3) phi_q = [ I, -skew(p_a), -I, skew(p_b) ]     columns (dx_a, dtheta_a, dx_b, dtheta_b)
//   (4) f = -phi_q^T lambda:  F_a = -lambda,  M_a = -p_a x lambda,
//                             F_b =  lambda,  M_b =  p_b x lambda
//   (5) L = -phi_q^T
//   (6) K = -df/dq:  K_Ma,theta_a = skew(lambda) skew(p_a),
//                    K_Mb,theta_b = -skew(lambda) skew(p_b),   all other blocks 0
// with spatial increments R <- exp(skew(dtheta)) R, d(R f) = -skew(R f) dtheta.
// The relative orientations of MBDyn's input only define the output frame (.jnt).
//
// Output [MBDyn mbdyn/struct/spherj.cc, SphericalHingeJoint::Output / OutputPrepare and
// PinJoint::Output / OutputPrepare]: MBDyn writes its multiplier F, which is
//   (8) F = lambda,  the load on node b (hinge; node a carries -lambda, eq. (4)) and, for the
//       pin, the load on the ground (minus the load on the node)
//   hinge .jnt:  label, Rj_a^T F, 0, F, 0, then (7) in the orientation description d
//                (joint_input.hpp (6)): 16 columns (22 for the matrix)
//     (7) Rj_a^T Rj_b,  Rj_a = R_a Rh_a, Rj_b = R_b Rh_b     relative orientation
//   NetCDF elem.joint.<label>: f, m, F, M, then E / Phi / R ("relative orientation ...") per d
//   (joint_input.hpp, OrientationVariable).
//   pin .jnt:    label, F, 0, F, 0 (MBDyn writes the global force as the local one, the pin
//                having no joint frame), then the node's Euler angles 123 of R_a in degrees
//                (always 123, whatever the deck's description): 16 columns; then an empty
//                line (PinJoint::Output ends each record with two std::endl).
//   NetCDF: f, m, F, M, E (MBDyn: units "rad" although the values are degrees, description
//   "node orientation (E123)"; mbstep's unit attribute says "deg").
//
// Deck syntax [MBDyn input manual, sections "Spherical hinge" and "Spherical pin",
// manual/input/elements.tex] (see joint_input.hpp for the node and ground sides):
//   joint: <label>, spherical hinge, <node side a>, <node side b>
//          [, orientation description, <d> ] ;
//   joint: <label>, spherical pin, <node side>, <ground side> ;
#pragma once

#include <memory>

#include "joint_input.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

/// Writes rows row0..row0+2 of (2)-(6) into out; node b is absent when b.node < 0 (pin).
/// lambda points to the 3 multipliers of these rows.
void EvaluateSphericalRows(const FrameState& na, const FrameState* nb, const JointSide& a,
                           const JointSide& b, const double* lambda, int row0, ElementBlock& out);

class SphericalJoint final : public Element, public ElementOutput {
  public:
    /// b.node < 0: spherical pin with ground point b.offset.
    SphericalJoint(int label, const JointSide& a, const JointSide& b,
                   OrientationOutput d = OrientationOutput::kEuler123);

    int num_multipliers() const override { return 3; }
    ConstraintLevel constraint_level() const override { return ConstraintLevel::kPosition; }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    /// sphericalhinge: joint_input.hpp (3); sphericalpin: <label> <node> f I <node> f I
    /// (MBDyn's ReadJoint writes the node offset twice and no ground point).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

    const JointSide& side_a() const { return a_; }
    const JointSide& side_b() const { return b_; }

  private:
    /// The numbers of the .jnt line after the label.
    void Columns(const ElementContext& ctx, std::vector<double>& c) const;

    JointSide a_, b_;
    OrientationOutput od_;
};

std::unique_ptr<Element> ReadSphericalHinge(ElementReadArgs& args);
std::unique_ptr<Element> ReadSphericalPin(ElementReadArgs& args);

}  // namespace mbstep::joints
