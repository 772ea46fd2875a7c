// mbstep — uniform gravity field.
//
// Summary: model-level load definition; the element itself writes nothing (HasContribution()
// is false). It sets the model's gravity acceleration, which every body reads from its
// element context and turns into its own load (elements/body/body.hpp, eqs. (4)-(8)).
//
//   (1) g(t) = d * a(t)      d direction (global frame, not normalised: its length scales
//                            a(t)), a(t) a drive [m/s^2 when |d| = 1]
//
// Deck syntax [MBDyn input manual, section "Gravity Element", manual/input/elements.tex]:
//   gravity: [ uniform, ] [ single, ] <direction>, <drive> ;
// The direction is read in the global frame (`reference, <frame>, ...` is accepted and
// rotated to global). MBDyn's `component` template and `central` fields are refused with a
// message. Only one gravity statement per model (the deck reader checks duplicates).
#pragma once

#include <memory>

#include "mbstep/model/element.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::gravity {

/// Placeholder element for the `gravity:` statement: no nodes, no contribution.
class UniformGravity final : public Element {
  public:
    explicit UniformGravity(int label) : Element(label, "uniform gravity") {
        set_statement("gravity");
    }
    bool HasContribution() const override { return false; }
    void Evaluate(const ElementContext& /*ctx*/, ElementBlock& /*out*/) const override {}
};

/// Reads `gravity: ...` (with or without the `uniform` keyword) and calls in.SetGravity.
std::unique_ptr<Element> ReadUniformGravity(ElementReadArgs& args);

}  // namespace mbstep::gravity
