// mbstep — clamp: a node fixed to the ground in position and orientation.
//
// Summary: holonomic position-level constraint, 6 multipliers (lambda_x [N], lambda_r [N m],
// global frame), index-3 DAE; phi_v = 0, C = 0. Node pose (x, R); clamped pose (X0, R0),
// by default the node's initial pose.
//
//   (1) E = R R0^T                                      orientation error, global
//   (2) phi_x = x - X0
//   (3) phi_r = ax(E) = 1/2 vee(E - E^T)                (= sin(angle) * axis; 0 at E = I)
//   (4) d phi_r = G dtheta,  G = 1/2 (tr(E) I - E)      (G = I at E = I)
//   (5) f = -phi_q^T lambda:  F = -lambda_x,  M = -G^T lambda_r;  L = -phi_q^T
//   (6) K_M,theta = d(G^T lambda_r)/dtheta = -lambda_r ax(E)^T - 1/2 E^T skew(lambda_r)
// with spatial increments R <- exp(skew(dtheta)) R, dE = skew(dtheta) E and
// d tr(E) = -2 ax(E) . dtheta. (3) is regular for rotation errors below pi/2, far beyond
// what a converged step sees.
//
// Deck syntax [MBDyn input manual, section "Clamp", manual/input/elements.tex]:
//   joint: <label>, clamp, <node>, [ position, ] { node | <absolute position> },
//          [ orientation, ] { node | <absolute orientation> } ;
#pragma once

#include <memory>

#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class Clamp final : public Element, public ElementOutput {
  public:
    Clamp(int label, int node, const Vec3& X0, const Mat3& R0);

    int num_multipliers() const override { return 6; }
    ConstraintLevel constraint_level() const override { return ConstraintLevel::kPosition; }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    /// clamp: <label> <node> 0 I <node> 0 I (MBDyn's ReadJoint: the clamp's point and frame
    /// are not written).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

    const Vec3& position() const { return X0_; }
    const Mat3& orientation() const { return R0_; }

  private:
    Vec3 X0_;
    Mat3 R0_;
};

std::unique_ptr<Element> ReadClamp(ElementReadArgs& args);

}  // namespace mbstep::joints
