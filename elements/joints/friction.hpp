// mbstep — Coulomb joint friction with the normal force of the previous converged step
// (revolute hinge / pin: a moment about the hinge axis; in line: a force along the line).
//
// Model (the half-implicit paper's joint friction: Fang, Kissel, Zhang, Negrut, J. Comput.
// Nonlinear Dyn. 18 (2023) 014501, sec. 3.4, and MBDyn's revolute-hinge friction with the
// `simple` shape function):
//   (1) N = |F_r,prev| + N_0        normal force [N]: the norm of the joint's reaction force
//                                   at the previous converged step (revolute: the 3 spherical
//                                   multipliers; in line: the 2 transverse multipliers), plus
//                                   a constant preload N_0 >= 0
//   (2) T = -mu r N s(v)            friction force [N] (in line, r = 1) or moment [N m]
//                                   (revolute, r the average radius [m]) on side b; side a gets
//                                   the opposite; v the relative sliding velocity [m/s] or
//                                   angular velocity [rad/s] about the axis
//   (3) s(v) = sign(v)              exact Coulomb (s(0) = 0), for explicit / half-implicit
//                                   schemes; the derivative is 0 (no Jacobian contribution)
//       s(v) = tanh(v / v_eps)      regularised (`regularization, v_eps`), for implicit
//                                   schemes; ds/dv = (1 - s^2) / v_eps enters C and K
// N is a constant within a step (explicit in the normal force), so the Jacobian has only the
// d s/d v terms and the rotation of the axis. No stiction: a sticking joint has v ~ 0 and
// (regularised) a viscous-like law of slope mu r N / v_eps. N_prev = 0 until the run loop
// calls Element::AfterConvergence (once at the start with the initial multipliers, then after
// every converged step), so with the `ms` family and cgr the first step already has the
// consistent initial normal force.
//
// Deck syntax (an honest subset of MBDyn's `friction, <average radius>, [preload, <v>,]
// <friction model>, <shape function>`, manual/input/elements.tex, "Revolute hinge"):
//   <friction> ::= friction, [ <average radius>, ] [ preload, <N_0>, ]
//                  coulomb, <mu> [, regularization, <v_eps> ] [, simple ]
// <average radius> (> 0) is read for the revolute joints only. MBDyn's friction models
// `modlugre` and `discrete coulomb` (stick-slip states, scalar-function coefficient) and the
// shape function `simple plane hinge` are refused with a message naming what is accepted.
#pragma once

#include <string>

namespace mbstep {
class DeckInput;
}

namespace mbstep::joints {

struct Friction {
    bool active{false};
    double radius{1.0};   ///< r in (2); 1 for the in line joint
    double preload{0.0};  ///< N_0 in (1) [N]
    double mu{0.0};       ///< friction coefficient
    double v_eps{0.0};    ///< regularization velocity; 0: exact sign (3)

    /// s(v) of (3); ds = ds/dv.
    double Shape(double v, double& ds) const;
    /// Magnitude factor mu r N of (2) for the previous normal force n_prev.
    double Scale(double n_prev) const { return mu * radius * (n_prev + preload); }
};

/// Reads <friction> after the keyword `friction` was consumed; with_radius: read the average
/// radius first (revolute joints). `joint` names the joint in messages.
Friction ReadFriction(DeckInput& in, bool with_radius, const std::string& joint);

}  // namespace mbstep::joints
