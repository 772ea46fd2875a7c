// mbstep — revolute hinge (two nodes) and revolute pin (node to ground).
//
// Summary: holonomic position-level constraint, 5 multipliers (lambda [N] of the spherical
// part, global frame; mu_1, mu_2 [N m] of the axis constraints), index-3 DAE; phi_v = 0,
// C = 0. The hinge axis is axis 3 of the joint frames Rj_a = R_a Rh_a and Rj_b = R_b Rh_b
// (pin: Rj_b = R0, fixed); relative rotation about it is free.
//
//   (1) rows 1-3: the spherical hinge / pin, spherical.hpp eqs. (1)-(6)
//   (2) u = Rj_a e_3,  w_i = Rj_b e_i  (i = 1, 2),  c_i = u x w_i
//   (3) phi_{3+i} = u . w_i = 0          axes 3 of both frames stay parallel [MBDyn]
//   (4) d phi_{3+i} = c_i . dtheta_a - c_i . dtheta_b
//   (5) f: M_a -= c_i mu_i,  M_b += c_i mu_i                (f = -phi_q^T lambda, L = -phi_q^T)
//   (6) d c_i = skew(w_i) skew(u) dtheta_a - skew(u) skew(w_i) dtheta_b, hence
//       K_Ma,theta_a += mu_i skew(w_i) skew(u),   K_Ma,theta_b -= mu_i skew(u) skew(w_i),
//       K_Mb,theta_a -= mu_i skew(w_i) skew(u),   K_Mb,theta_b += mu_i skew(u) skew(w_i)
// with spatial increments R <- exp(skew(dtheta)) R, du = dtheta_a x u.
//
// Optional Coulomb friction (friction.hpp): a moment about the hinge axis u,
//   (7) W = w_b - w_a,  omega = u . W,  N = |lambda_{1..3}|_prev + N_0,  k = mu r N,
//       T = -k s(omega)                      (w_b = 0 for the pin)
//   (8) f: M_b += T u,  M_a -= T u
//   (9) C_{M_b,w_b} = k s' u u^T (signs: + for (a, a) and (b, b), - for (a, b) and (b, a))
//       K_{M_b,theta_a} = k s' u (u x W)^T + T skew(u),  K_{M_a,theta_a} = -K_{M_b,theta_a}
//       (d omega = u . dW + (u x W) . dtheta_a, du = -skew(u) dtheta_a; N constant in a step)
//
// Output [MBDyn mbdyn/struct/planej.cc, PlaneHingeJoint::Output / OutputPrepare / AssRes and
// PlanePinJoint::Output / AssRes]: MBDyn writes its multipliers, F and the couple M of the
// two axis rows (its M(3) is 0: the friction moment M3 is not added to M, planej.cc leaves
// that line commented out), which are
//  (12) F = lambda_{1..3}: the load on node b (hinge) or on the ground (pin: minus the load
//       on the node), eq. (1)
//  (13) M_b = sum_i c_i mu_i (eq. (5)), the couple of the axis rows on node b (hinge) or on
//       the ground (pin), written in the frame Rf = Rj_b (hinge) or Rj_a (pin) with its
//       component along the hinge axis set to 0: m = (e_1 . Rf^T M_b, e_2 . Rf^T M_b, 0),
//       M = Rf m (MBDyn's (M1, M2, 0) and R2h M; equal to M_b where the rows hold)
//   hinge .jnt: label, Rj_b^T F, m, F, M, then (10) in the orientation description d
//     (joint_input.hpp (6)), then (11); with friction also T of (7) (MBDyn's M3, the friction
//     moment on node b about u) and the friction coefficient -mu s(omega) (fc->fc()):
//     19 columns counting the label (21 with friction; 6 more for the matrix description)
//     (10) Rj_a^T Rj_b                          relative orientation
//     (11) Rj_b^T (w_b - w_a)                   relative angular velocity, node b's hinge frame
//   hinge NetCDF elem.joint.<label>: f, m, F, M, E / Phi / R ((10), described "global ..." as
//     MBDyn's CreateRotationVar(name, "", od, "global") does), Omega (11); MBDyn writes no
//     friction variables (commented out in its OutputPrepare).
//   pin .jnt: label, Rj_a^T F, m, F, M (the node's hinge frame R_a Rh_a), then the Euler
//     angles 123 of R0^T Rj_a in degrees and Rj_a^T w_a: 19 columns (MBDyn's pin has no
//     friction; mbstep's pin friction adds no column). NetCDF: f, m, F, M (MBDyn's
//     PlanePinJoint writes no NetCDF variables of its own).
//
// Deck syntax [MBDyn input manual, sections "Revolute hinge" (sec:EL:STRUCT:JOINT:
// REVOLUTE_HINGE) and "Revolute pin" (sec:EL:STRUCT:JOINT:REVOLUTE_PIN),
// manual/input/elements.tex] (joint_input.hpp for the sides):
//   joint: <label>, revolute hinge, <node side a>, <node side b> [, initial theta, <angle>]
//          [, <friction> ] [, orientation description, <d> ] ;
//   joint: <label>, revolute pin, <node side>, <ground side> [, initial theta, <angle>]
//          [, <friction> ] ;
//   <friction> ::= friction, <average radius> [, preload, <N_0>], coulomb, <mu>
//                  [, regularization, <omega_eps>] [, simple]        (friction.hpp)
// `initial theta` is accepted and only affects MBDyn's output.
#pragma once

#include <memory>

#include "friction.hpp"
#include "joint_input.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::joints {

class RevoluteJoint final : public Element, public ElementOutput {
  public:
    /// b.node < 0: revolute pin with ground point b.offset and ground frame b.R.
    RevoluteJoint(int label, const JointSide& a, const JointSide& b, const Friction& friction = {},
                  OrientationOutput d = OrientationOutput::kEuler123);

    int num_multipliers() const override { return 5; }
    ConstraintLevel constraint_level() const override { return ConstraintLevel::kPosition; }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    /// revolutehinge: joint_input.hpp (3); revolutepin: joint_input.hpp (4).
    std::string MbdynLogLine(const LogLineContext& ctx) const override {
        return JointLogLine(b_.node >= 0 ? "revolutehinge" : "revolutepin", label(), a_, b_, ctx);
    }

    /// Saves the normal force N of eq. (7) (friction only).
    void AfterConvergence(const ElementContext& ctx) override;
    bool NeedsConvergedState() const override { return friction_.active; }

    const JointSide& side_a() const { return a_; }
    const JointSide& side_b() const { return b_; }
    const Friction& friction() const { return friction_; }
    double normal_force() const { return n_prev_; }

  private:
    /// Friction moment T of eq. (7) on side b, about u; ds = k s'(omega).
    double FrictionMoment(const ElementContext& ctx, const Vec3& u, Vec3& W, double& ks) const;
    /// The numbers of the .jnt line after the label.
    void Columns(const ElementContext& ctx, std::vector<double>& c) const;

    JointSide a_, b_;
    Friction friction_;
    OrientationOutput od_;
    double n_prev_{0.0};  ///< |lambda_{1..3}| of the last converged step
};

std::unique_ptr<Element> ReadRevoluteHinge(ElementReadArgs& args);
std::unique_ptr<Element> ReadRevolutePin(ElementReadArgs& args);

}  // namespace mbstep::joints
