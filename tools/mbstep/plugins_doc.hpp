// mbstep — `mbstep plugins --markdown`: the tables of docs/plugins.md, generated from the plugin
// registry (methods with the formulations each one runs on, formulations, elements, drives,
// constitutive laws).
#pragma once

#include <iosfwd>

#include "mbstep/plugin/registry.hpp"

namespace mbstep {

/// True for a method whose first parameter is its rho_inf (the tunable LMS, SS, ESDIRK and
/// generalized-alpha families).
bool HasRhoParameter(const IntegratorDescriptor& d);

/// Writes docs/plugins.md: one Markdown table per plugin kind.
void PrintPluginsMarkdown(const Registry& r, std::ostream& os);

}  // namespace mbstep
