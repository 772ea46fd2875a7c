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
// which load, in which frame, is each joint's (MBDyn writes its multipliers, which are the
// load on node 2 for some joints and on node 1 or the ground for others: the joints' headers).
//
// MBDyn's .log line of a joint [ReadJoint, mbdyn/struct/joint.cc], vectors as 3 numbers and
// matrices row by row (io/mbdyn_log.hpp):
//   (3) <keyword>: <label> <node a> f_a Rh_a <node b> f_b Rh_b        two node sides
//   (4) <keyword>: <label> <node> f Rh <node> R^T (X0 - x) R0 R^T      node side and ground
//       side (revolute pin, cardano pin), x, R the node's pose as read from the deck
// Joints that MBDyn writes with zero offsets (prismatic, cardano rotation, gimbal rotation)
// pass zero_offsets; the others' layouts are in their own headers.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/node.hpp"

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

// Joint-specific columns after the 12 reaction columns (MBDyn's joints' Output, e.g.
// mbdyn/struct/spherj.cc, SphericalHingeJoint::Output). A joint that writes them builds the
// numbers after the label in one vector: the reaction columns (5), then its own.
//   (5) R_frame^T F, R_frame^T M, F, M                     12 numbers
//   (6) a relative orientation R in the joint's `orientation description` d: Euler angles
//       123 / 313 / 321 in degrees, the rotation vector in radians (3 numbers), or the
//       matrix row by row (9 numbers), as MBDyn's .mov writes a node's orientation

/// Appends (5).
void AppendReactionColumns(std::vector<double>& c, const Mat3& R_frame, const Vec3& F,
                           const Vec3& M);
inline void AppendColumns(std::vector<double>& c, const Vec3& v) {
    c.insert(c.end(), v.data(), v.data() + 3);
}
/// The NetCDF variable of (6) as MBDyn's OutputHandler::CreateRotationVar(name, "", d,
/// description) names it (mbdyn/base/output.cc): `E` (deg, "<description> orientation Euler
/// angles (123) (E_X, E_Y, E_Z)"), `Phi` (radian, "<description> orientation vector (Phi_X,
/// Phi_Y, Phi_Z)") or `R` (a 3x3 variable, units "-", "<description> orientation matrix (R11,
/// R21, R31, R12, R22, R32, R13, R23, R33)").
NetcdfVariable OrientationVariable(OrientationOutput d, const std::string& description);
/// The .jnt writes the matrix of (6) row by row, MBDyn's NetCDF `R` column by column: for the
/// matrix description, transposes the 9 numbers of c starting at `at` in place.
void OrientationColumnsToNetcdf(std::vector<double>& c, std::size_t at, OrientationOutput d);
/// Number of columns (6) has for d.
inline int OrientationColumnCount(OrientationOutput d) {
    return d == OrientationOutput::kOrientationMatrix ? 9 : 3;
}

}  // namespace mbstep::joints
