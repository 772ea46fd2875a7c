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
enum class OrientationOutput {
    kEuler123,
    kEuler313,
    kEuler321,
    kOrientationVector,
    kOrientationMatrix
};

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
    /// The node's own initial-assembly penalties and `omega rotates` (MBDyn's node option
    /// `assembly, kp, kv, omega_rotates`); negative: the control data's.
    double assembly_kp{-1.0}, assembly_kv{-1.0};
    int assembly_omega_rotates{-1};
};

/// A scalar ("abstract") node (MBDyn `abstract: label, differential, value, x0, derivative,
/// v0;`): one coordinate x and its rate x'. Elements that read abstract nodes state their
/// equations through the Lagrangian contract (model/lagrangian_contract.hpp, LagrangianBlock).
struct AbstractNode {
    int label{0};
    double x0{0.0};  ///< initial value
    double v0{0.0};  ///< initial derivative
    bool output{true};
    SourceLocation where;
};

/// Value and derivative of an abstract node (the .abs output).
struct AbstractState {
    double x{0.0};
    double xp{0.0};
};

/// A dummy structural node (MBDyn `structural: label, dummy, base, ...`): no unknowns, never
/// connected to elements; its pose and twist follow its base node and are written to .mov.
///   offset:          x = x_b + R_b f,  R = R_b R_h,  v = v_b + w_b x (R_b f),  w = w_b
///   relative frame:  the base node seen from the frame (x_r + R_r f, R_r R_h) of a reference
///                    node: x = R'^T (x_b - p), R = R'^T R_b,
///                    v = R'^T (v_b - v_p - w_r x (x_b - p)), w = R'^T (w_b - w_r),
///                    with p = x_r + R_r f, v_p = v_r + w_r x (R_r f), R' = R_r R_h
struct DummyNode {
    enum class Kind { kOffset, kRelativeFrame };
    int label{0};
    Kind kind{Kind::kOffset};
    int base{-1};       ///< index into Model::nodes()
    int reference{-1};  ///< relative frame: index of the reference node
    Vec3 f{Vec3::Zero()};
    Mat3 Rh{Mat3::Identity()};
    OrientationOutput orientation_output{OrientationOutput::kEuler123};
    bool output{true};
    SourceLocation where;

    /// The dummy node's state from the states of the model's nodes.
    template <class States>
    FrameState Evaluate(const States& states) const {
        const FrameState& b = states[base];
        FrameState s;
        if (kind == Kind::kOffset) {
            const Vec3 p = b.R * f;
            s.x = b.x + p;
            s.R = b.R * Rh;
            s.v = b.v + b.w.cross(p);
            s.w = b.w;
            return s;
        }
        const FrameState& r = states[reference];
        const Vec3 arm = r.R * f;
        const Vec3 p = r.x + arm;
        const Vec3 vp = r.v + r.w.cross(arm);
        const Mat3 Rf = r.R * Rh;
        s.x = Rf.transpose() * (b.x - p);
        s.R = Rf.transpose() * b.R;
        s.v = Rf.transpose() * (b.v - vp - r.w.cross(b.x - p));
        s.w = Rf.transpose() * (b.w - r.w);
        return s;
    }
};

}  // namespace mbstep
