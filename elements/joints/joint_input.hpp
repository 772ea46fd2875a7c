// mbstep — shared input and output pieces of the joint family.
//
// Attachment of a joint to a node (MBDyn's `relative offset` / `relative orientation`):
//   (1) p = x + R f          joint point, global;   f offset in the node frame [m]
//   (2) Rj = R Rh            joint frame, global;   Rh orientation relative to the node
// A ground side has a fixed point X and frame R0, read in the global frame.
//
// Deck syntax [MBDyn input manual, section "Joint Element" (sec:EL:JOINT),
// manual/input/elements.tex]:
//   node side:   <node>, [ position, ] <relative offset>
//                [, { orientation | hinge }, <relative orientation> ]
//   ground side: [ position, ] <absolute position> [, { orientation | hinge }, <orientation> ]
//   rotation-only node side: <node> [, { orientation | hinge }, <relative orientation> ]
//
// .jnt reaction line [MBDyn manual, "Joint Element", standard output]:
//   label, F in the joint frame (3), M in the joint frame (3), F global (3), M global (3);
// mbstep writes the force and couple the joint applies to its first node, at the joint point.
//
// MBDyn's .log line of a joint [ReadJoint, mbdyn/struct/joint.cc], vectors as 3 numbers and
// matrices row by row (io/mbdyn_log.hpp):
//   (3) <keyword>: <label> <node a> f_a Rh_a <node b> f_b Rh_b        two node sides
//   (4) <keyword>: <label> <node> f Rh <node> R^T (X0 - x) R0 R^T      node side and ground
//       side (revolute pin, cardano pin), x, R the node's pose as read from the deck
// Joints that MBDyn writes with zero offsets (prismatic, cardano rotation, gimbal rotation)
// pass zero_offsets; the others' layouts are in their own headers.
#pragma once

#include <iosfwd>
#include <string>

#include "mbstep/common.hpp"

namespace mbstep {
class DeckInput;
struct LogLineContext;
}  // namespace mbstep

namespace mbstep::joints {

/// A joint side fixed to a node (node >= 0) or to the ground (node = -1).
struct JointSide {
    int node{-1};
    Vec3 offset{Vec3::Zero()};  ///< f (node) or X (ground)
    Mat3 R{Mat3::Identity()};   ///< Rh (node) or R0 (ground)
};

/// Reads a node side (1), (2); orientation optional (identity).
JointSide ReadNodeSide(DeckInput& in);
/// Reads a node side of a rotation-only joint: <node> [, { orientation | hinge }, <orientation>].
JointSide ReadRotationSide(DeckInput& in);
/// Reads a ground side in the global frame.
JointSide ReadGroundSide(DeckInput& in);
/// Fails at `where` unless R is a proper rotation within 1e-6.
void CheckRotation(DeckInput& in, const SourceLocation& where, const Mat3& R, const char* what);

/// The .log line (3) of a joint on nodes a and b (ctx.node_label[0], [1]), or (4) when b is
/// the ground (ctx.node[0] is node a's initial state).
std::string JointLogLine(const char* keyword, int label, const JointSide& a, const JointSide& b,
                         const LogLineContext& ctx, bool zero_offsets = false);

/// Writes one .jnt line: label, R_joint^T F, R_joint^T M, F, M.
void WriteJointLine(std::ostream& os, int label, const Mat3& R_joint, const Vec3& F, const Vec3& M);

}  // namespace mbstep::joints
