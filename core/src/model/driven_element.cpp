// mbstep — the `driven:` element (driven_element.hpp).
#include "mbstep/model/driven_element.hpp"

namespace mbstep {

namespace {

const ElementOutput kNoOutput{};  // the interface's defaults, for a wrapped element without output

}  // namespace

DrivenElement::DrivenElement(std::unique_ptr<Element> inner, DrivePtr drive)
    : Element(inner->label(), inner->type()),
      inner_(std::move(inner)),
      inner_output_(inner_->output() ? inner_->output() : &kNoOutput),
      drive_(std::move(drive)) {
    nodes_ = inner_->nodes();
    set_statement(inner_->statement());
    set_where(inner_->where());
}

void DrivenElement::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    inner_->Evaluate(ctx, out);
    if (active(ctx.t)) return;  // eq. (1)
    out.f.setZero();
    if (out.want_jacobian) {
        out.K.setZero();
        out.C.setZero();
    }
}

double DrivenElement::PotentialEnergy(const ElementContext& ctx) const {
    return active(ctx.t) ? inner_->PotentialEnergy(ctx) : 0.0;
}

std::string DrivenElement::LogDescription() const {
    const std::string d = inner_output_->LogDescription();
    return "driven " + inner_->statement() + " " + std::to_string(label()) + " (" + type() + ")" +
           (d.empty() ? "" : ": " + d);
}

}  // namespace mbstep
