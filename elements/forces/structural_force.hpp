// mbstep — structural forces and couples on one node: absolute and follower.
//
// Summary: force provider, explicit in time, no constraints (C = 0, no multipliers).
// x, R node pose; a arm of the force in the node frame [m]; v(t) the value of the vector
// drive (vec3_drive.hpp) [N for forces, N m for couples]: global frame for absolute loads,
// node frame for follower loads. Moments are about the node point, global frame.
//
// Absolute force:
//   (1) F = v(t)
//   (2) M = (R a) x F
//   (3) K_M,theta = -skew(F) skew(R a)
// Follower force:
//   (4) F = R v(t)
//   (5) M = (R a) x F = R (a x v(t))
//   (6) K_F,theta = skew(F),  K_M,theta = skew(M)
// Absolute couple:
//   (7) M = v(t),  K = 0
// Follower couple:
//   (8) M = R v(t),  K_M,theta = skew(M)
// Spatial increments R <- exp(skew(dtheta)) R give d(R u) = dtheta x (R u) = -skew(R u) dtheta,
// hence (3), (6), (8) with K = -df/dq; all other blocks of K and all of C are zero.
//
// Deck syntax [MBDyn input manual, sections "Structural force" and "Structural couple"
// (sec:EL:FORCE:STRUCTURAL:FORCE, sec:EL:FORCE:STRUCTURAL:COUPLE), manual/input/elements.tex]:
//   force:  <label>, { absolute | follower }, <node>, [ position, ] <relative arm>,
//           <vector drive> ;
//   couple: <label>, { absolute | follower }, <node>, [ position, <relative arm>, ]
//           <vector drive> ;
// The arm is read relative to the node frame (MBDyn GetPosRel); the couple's arm is accepted
// and ignored, as in MBDyn.
#pragma once

#include <memory>

#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"
#include "vec3_drive.hpp"

namespace mbstep::forces {

enum class LoadKind { kForce, kCouple };
enum class LoadFrame { kAbsolute, kFollower };

class StructuralLoad final : public Element, public ElementOutput {
  public:
    /// node: model index; arm: node frame (ignored for couples); value: see header.
    StructuralLoad(int label, LoadKind kind, LoadFrame frame, int node, const Vec3& arm,
                   Vec3Drive value);

    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    const ElementOutput* output() const override { return this; }
    /// structural {absolute|follower} {force|couple}: <label> <node> <arm> (the layout MBDyn's
    /// structural forces write and Blendyn's forcelib.py reads; a couple's arm is zero).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;
    /// MBDyn's .frc line (StructuralForce::Output and its kinds, mbdyn/struct/strforce.cc):
    /// force: <label> <node> F X (the force and its point of application x + R arm, global);
    /// couple: <label> <node> M (global).
    bool HasReactionOutput() const override { return true; }
    const char* output_extension() const override { return "frc"; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    /// The applied force at its point of application and the couple, global frame (VTK).
    void OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                       std::vector<Vec3>& moment) const override;
    /// MBDyn's `elem.force.<label>` (`F`, `Arm`: the point of application) or
    /// `elem.couple.<label>` (`M`), type absolute | follower (the forces' OutputPrepare).
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;

    LoadKind kind() const { return kind_; }
    LoadFrame frame() const { return frame_; }
    const Vec3& arm() const { return arm_; }
    /// The node's label (written in the .frc line).
    void set_node_label(int l) { node_label_ = l; }

  private:
    /// The global force (or couple) and, for a force, its point of application.
    void Global(const ElementContext& ctx, Vec3& value, Vec3& point) const;

    LoadKind kind_;
    LoadFrame frame_;
    Vec3 arm_;
    Vec3Drive value_;
    int node_label_{0};
};

std::unique_ptr<Element> ReadAbsoluteForce(ElementReadArgs& args);
std::unique_ptr<Element> ReadFollowerForce(ElementReadArgs& args);
std::unique_ptr<Element> ReadAbsoluteCouple(ElementReadArgs& args);
std::unique_ptr<Element> ReadFollowerCouple(ElementReadArgs& args);

}  // namespace mbstep::forces
