// mbstep — the element output interface's defaults (element_output.hpp).
#include "mbstep/model/element_output.hpp"

#include <algorithm>
#include <cstring>

#include "../io/output_columns.hpp"

namespace mbstep {

ElementOutput::~ElementOutput() = default;

void ElementOutput::OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                                  std::vector<Vec3>& moment) const {
    if (std::strcmp(output_extension(), "jnt") != 0) return;
    // MBDyn's .jnt line: label, f (local), m (local), F (global), M (global), then
    // joint-specific columns; the global ones are columns 8-13 counting the label as 1.
    double v[13];
    if (!output_columns::JntColumns(*this, ctx, v)) return;  // not the .jnt layout
    force.emplace_back(v[7], v[8], v[9]);
    moment.emplace_back(v[10], v[11], v[12]);
}

NetcdfGroup ElementOutput::NetcdfDescription(const Element& element) const {
    NetcdfGroup g;
    if (element.statement() != "joint" || !HasReactionOutput() ||
        std::strcmp(output_extension(), "jnt") != 0)
        return g;
    g.prefix = "elem.joint";
    g.type = element.type();
    g.variables = {{"f", OutputQuantity::kForce, "local reaction force (fx, fy, fz)"},
                   {"m", OutputQuantity::kMoment, "local reaction moment (mx, my, mz)"},
                   {"F", OutputQuantity::kForce, "global reaction force (FX, FY, FZ)"},
                   {"M", OutputQuantity::kMoment, "global reaction moment (MX, MY, MZ)"}};
    return g;
}

bool ElementOutput::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    out = output_columns::ReactionNumbers(*this, ctx);
    if (out.empty()) return false;
    out.erase(out.begin());  // the label
    return true;
}

}  // namespace mbstep
