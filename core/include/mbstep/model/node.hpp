// mbstep — structural nodes: absolute pose (x, R) and twist (v, w), all in the global frame.
#pragma once

#include <string>

#include "mbstep/common.hpp"

namespace mbstep {

/// Pose and twist of a node or a reference frame, global frame:
/// x position, R orientation (columns = node axes in global), v velocity, w angular velocity.
struct FrameState {
    Vec3 x{Vec3::Zero()};
    Mat3 R{Mat3::Identity()};
    Vec3 v{Vec3::Zero()};
    Vec3 w{Vec3::Zero()};
};

/// How the orientation is written in the .mov file (MBDyn `default orientation`).
enum class OrientationOutput { kEuler123, kEuler313, kEuler321, kOrientationVector, kOrientationMatrix };

enum class NodeKind {
    kStatic,   ///< no inertia: equilibrium of forces and moments
    kDynamic,  ///< inertia from the bodies attached to it
};

/// A 6-dof structural node as read from the deck.
struct StructuralNode {
    int label{0};
    NodeKind kind{NodeKind::kDynamic};
    FrameState initial;
    OrientationOutput orientation_output{OrientationOutput::kEuler123};
    bool output{true};
    SourceLocation where;
};

}  // namespace mbstep
