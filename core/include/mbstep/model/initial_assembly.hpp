// mbstep — initial joint assembly (MBDyn input manual, control data "Assembly-Related Cards"):
// before the first step the nodes' initial positions and velocities are made consistent with the
// joints, moving them as little as the deck's `initial stiffness` penalty springs allow. A
// consistent deck is left exactly as read (the residual test passes before any iteration).
//
// Positions. Unknowns: each node's pose increment (dx, dtheta; R <- exp(skew(dtheta)) R) and
// multipliers lambda of the position-level constraint rows. With (x0, R0) the deck's pose,
// k_p the position stiffness (the node's own `assembly, kp, kv, ...` or the control data's) and
// f_e the forces of the elements used in assembly (joints, which
// include their reactions -W^T lambda, and beams; with `use: rigid bodies|gravity` the bodies'
// weight, with `use: forces` forces and couples), per node i and position row r:
//   (1) r_i = k_p (x_i - x0_i, log(R_i R0_i^T)) - sum_e f_e,i(q, 0, t0) = 0
//       (the elements see the nodes at rest: a static problem)
//   (2) phi_r(q, t0) = 0
// solved by Newton: [k_p diag(I, J_l^-1(log(R R0^T))) + sum K_e, -L; phi_q, 0] (dq, dlambda) =
// -(r, phi), K = -df/dq and L = df/dlambda of the element contract, J_l the left Jacobian of
// SO(3). At the solution the constraints hold and the penalty springs balance the joints'
// reactions: for joints alone, the least change sum k_p |q - q0|^2 / 2 subject to phi = 0.
// Convergence: ||(r, phi)||_2 <= tolerance, tested before each iteration.
//
// Velocities (at the assembled positions; linear): with k_v the velocity stiffness and v0, w0
// the deck's twists (w0 rotated with the node when `omega rotates: yes`),
//   (3) minimize k_v |(v, w) - (v0, w0)|^2 / 2 subject to
//       phi_q (v, w) + dphi/dt = 0        position-level rows (dphi/dt by central differences
//                                          in time, h = 1e-6 (1 + |t0|))
//       phi(q, v, t0) = 0                 velocity-level rows (linear in the twists)
//   [k_v I, G^T; G, 0] ((v, w), mu) = (k_v (v0, w0), -c), solved once and verified.
#pragma once

#include <string>

#include "mbstep/model/model.hpp"

namespace mbstep {

struct InitialAssemblyOptions {
    double tolerance{1e-6};          ///< control data `tolerance:` (MBDyn's default)
    int max_iterations{1};           ///< control data `max iterations:` (MBDyn's default: one)
    double position_stiffness{1.0};  ///< `initial stiffness:` (MBDyn's default 1)
    double velocity_stiffness{1.0};
    bool omega_rotates{false};  ///< `omega rotates:`
    bool use_bodies{false};     ///< `use: rigid bodies | gravity, in assembly;`
    bool use_forces{false};     ///< `use: forces, in assembly;`
};

struct InitialAssemblyReport {
    int iterations{0};                ///< position Newton iterations
    double residual{0.0};             ///< final ||(r, phi)||_2 of the position problem
    double velocity_residual{0.0};    ///< ||G v + c|| before the velocity correction
    double max_position_change{0.0};  ///< |x - x0|, largest over the nodes
    int position_node{-1};            ///< its node label
    double max_rotation_change{0.0};  ///< |log(R R0^T)| [rad]
    int rotation_node{-1};
    double max_velocity_change{0.0};  ///< |(v, w) - (v0, w0)|
    int velocity_node{-1};
    /// One line for the .log and the run summary.
    std::string Describe() const;
};

/// Assembles the nodes' initial states of `model` at t0 in place (StructuralNode::initial).
/// Throws RunError naming the worst constraint (element label and row) when the position
/// problem does not converge within the allowed iterations, or is singular.
InitialAssemblyReport AssembleInitialState(Model& model, double t0,
                                           const InitialAssemblyOptions& options);

}  // namespace mbstep
