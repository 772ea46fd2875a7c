// mbstep — MBDyn's `driven:` element: another element that acts only while a drive is
// non-zero [MBDyn input manual, "Driven Element"]:
//   (1) f, K, C = those of the wrapped element if d(t) != 0, else 0
// The wrapped element is evaluated in both cases (so that its declared Jacobian blocks, part
// of its structure, do not depend on d) and its output zeroed when inactive. Elements with
// multipliers (an inactive joint would need lambda = 0 rows, which the element contract cannot
// express) and elements that attach inertia (constant in every formulation) are refused by
// the deck reader.
#pragma once

#include <memory>

#include "mbstep/model/drive.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"

namespace mbstep {

/// Its output is the wrapped element's (that element's ElementOutput, or the interface's
/// defaults when it has none), and a .log description of its own.
class DrivenElement final : public Element, public ElementOutput {
  public:
    DrivenElement(std::unique_ptr<Element> inner, DrivePtr drive);

    bool active(double t) const { return drive_->Value(t) != 0.0; }
    const Element& inner() const { return *inner_; }

    bool HasContribution() const override { return inner_->HasContribution(); }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    double PotentialEnergy(const ElementContext& ctx) const override;
    const ElementOutput* output() const override { return this; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override {
        inner_output_->WriteReaction(os, ctx);
    }
    bool HasReactionOutput() const override { return inner_output_->HasReactionOutput(); }
    const char* output_extension() const override { return inner_output_->output_extension(); }
    void OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                       std::vector<Vec3>& moment) const override {
        inner_output_->OutputVectors(ctx, force, moment);
    }
    NetcdfGroup NetcdfDescription(const Element& /*element*/) const override {
        return inner_output_->NetcdfDescription(*inner_);
    }
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override {
        return inner_output_->NetcdfValues(ctx, out);
    }
    std::string LogDescription() const override;
    /// MBDyn writes the wrapped element's line (a `driven:` element has none of its own).
    std::string MbdynLogLine(const LogLineContext& ctx) const override {
        return inner_output_->MbdynLogLine(ctx);
    }
    void AfterConvergence(const ElementContext& ctx) override { inner_->AfterConvergence(ctx); }
    bool NeedsConvergedState() const override { return inner_->NeedsConvergedState(); }

  private:
    std::unique_ptr<Element> inner_;
    const ElementOutput* inner_output_;  // inner_->output(), or the defaults
    DrivePtr drive_;
};

}  // namespace mbstep
