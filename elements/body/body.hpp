// mbstep — rigid body: lumped inertia attached to a 6-dof structural node, and the gravity
// load acting on it.
//
// Summary: inertia provider (constant, node frame) and force provider (gravity only). The
// formulation builds the inertia forces (momenta, gyroscopic terms) from (1)-(3); the body
// writes no inertia force itself.
//
// Input (one or more masses i = 1..n, `condense, n` for n > 1), node frame of the node:
//   m_i  mass [kg], > 0 and finite
//   c_i  centre of mass offset from the node [m]
//   J_i  inertia about the centre of mass [kg m^2], symmetric positive semi-definite
//        (zero allowed: point mass), expressed in the frame Rj_i (default: node frame)
//
// Inertia attached to the node, node frame (parallel-axis theorem):
//   (1) m = sum_i m_i
//   (2) s = sum_i m_i c_i                                   first moment [kg m]
//   (3) J = sum_i ( Rj_i J_i Rj_i^T + m_i (|c_i|^2 I - c_i c_i^T) )   about the node point
//
// Gravity load, global frame, g = g(t) the uniform gravity acceleration [m/s^2] from the
// element context (zero without a gravity element), x, R the node pose:
//   (4) F = m g
//   (5) M = (R s) x g                                       moment about the node
//   (6) K = -d(F, M)/d(dx, dtheta):  K_M,theta = -skew(g) skew(R s), all other blocks 0
//       (spatial increments R <- exp(skew(dtheta)) R give d(R s) = dtheta x (R s))
//   (7) C = 0
//   (8) V = -g . (m x + R s)                                potential energy [J]
//
// MBDyn's .log line (ReadBody, mbdyn/struct/body.cc), node frame:
//   (9) body: <label> <node> m  c = s / m  J   (J about the node point, (3), as MBDyn writes it)
//
// Deck syntax [MBDyn input manual, section "Body" (sec:EL:BODY), manual/input/elements.tex]:
//   body: <label>, <node>, [ condense, <n>, ] { <mass>, <relative center of mass>,
//         <inertia matrix> [, { inertial | orientation }, { node | <orientation> } ] } ... ;
// The offset is read relative to the node frame (MBDyn GetPosRel), the inertia matrix with
// eye | diag | sym | matr | null, and the optional orientation relative to the node frame.
//
// Deviation from the brief "positive definite": MBDyn's own decks use `null` and singular
// inertias (point masses, slender rods), so positive semi-definite inertias are accepted.
#pragma once

#include <memory>

#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::body {

/// One lumped mass as read from the deck: all quantities in the node frame.
struct MassInput {
    double m{0.0};
    Vec3 offset{Vec3::Zero()};
    Mat3 J_cm{Mat3::Zero()};  ///< about the centre of mass, already rotated to the node frame
};

/// (1)-(3) for a list of masses.
NodeInertia CondenseMasses(const MassInput* masses, int count);

class Body final : public Element, public ElementOutput {
  public:
    /// node: model index of the node; inertia: (1)-(3), node frame.
    Body(int label, int node, const NodeInertia& inertia);

    void AddInertia(std::vector<NodeInertia>& inertia) const override;
    bool HasContribution() const override { return true; }
    bool ContributesOnlyWeight() const override { return true; }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    double PotentialEnergy(const ElementContext& ctx) const override;
    const ElementOutput* output() const override { return this; }
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

    const NodeInertia& inertia() const { return inertia_; }

  private:
    NodeInertia inertia_;
};

/// Reads `body: ...` after the label (ElementDescriptor::read).
std::unique_ptr<Element> ReadBody(ElementReadArgs& args);

}  // namespace mbstep::body
