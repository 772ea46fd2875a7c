// mbstep — formulation `cgr velocity`: MBDyn's momentum-form DAE of `cgr` with the momenta
// eliminated from Newton, 6 unknowns per node (x', g') plus the multipliers.
//
// The state y, y' is cgr's, dof for dof (x, g, beta, gamma per dynamic node; x, g per static
// node; the multipliers), so every integrator keeps, predicts and re-references the same
// history as under `cgr`. Newton solves only for x', g' and lambda (unknown_dof() maps Newton
// numbering to state numbering). The momenta are functions of the unknowns,
//
//   beta  = m x' + w x S,   gamma = S x x' + J w        (cgr's rows (3), (4) hold exactly),
//
// and their derivatives follow from the same integration formula as every differential dof:
// Newton keeps y - c y' of the prediction (the method's history term, c = b0 h), so
//
//   beta' = (beta - (beta_p - c beta'_p)) / c,   gamma' likewise.
//
// The residual is cgr's force and moment balance (1), (2) with these momenta and cgr's
// constraint rows (5). The equations and the history are those of `cgr`; only the unknowns
// beta', gamma' are eliminated, so the converged points agree with `cgr` to the Newton
// tolerance for every first-order method (tested).
//
// Row scaling (what Newton's residual test measures). `cgr velocity` multiplies the force and
// moment rows of dynamic nodes by c: c f - (beta - history) is an impulse balance over the
// step, in the units of cgr's momentum rows (3), (4), which set cgr's effective accuracy; its
// round-off is ~eps |beta|. `cgr velocity unscaled` keeps cgr's force rows: the test is then
// ~1/c stricter on the momenta than cgr's, and the rows carry round-off eps |beta| / c (beta' is
// a difference of O(|beta|) values divided by c), which a tight tolerance may not clear.
//
// Implementation: `CgrFormulation` with `Momenta::kEliminated` (`cgr velocity`) or
// `Momenta::kEliminatedUnscaled` (plugins/formulation_cgr/): the same state, rotation charts,
// elements, initial derivatives and invariants as `cgr`, with its own Newton numbering (6 per
// node + multipliers; unknown_dof() maps it to the state) and pattern. Its node pass sets each
// dynamic node's momenta from the unknowns (once per Newton point: repeated only when x', g',
// g or the momenta or c changed) and writes rows (1), (2); the iteration matrix is assembled
// directly in the reduced pattern: the exact one of the eliminated system, the Schur complement
// of cgr's, which with u = (x', g'), m = (beta', gamma') and dr_m/dm = c I (rows (3), (4)) is
// J = J_uu - J_um J_mu / c, a change of each dynamic node's own 6x6 block only; element blocks
// are cgr's, in the rows of dynamic nodes times c when the rows are scaled.
#pragma once

#include "cgr_formulation.hpp"
