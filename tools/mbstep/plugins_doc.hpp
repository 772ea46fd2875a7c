// mbstep — `mbstep plugins --markdown`: the tables of docs/plugins.md, generated from the plugin
// registry (methods with the formulations each one runs on, formulations, elements, drives,
// constitutive laws).
#pragma once

#include <iosfwd>

#include "mbstep/plugin/registry.hpp"

namespace mbstep {

/// Writes docs/plugins.md: one Markdown table per plugin kind.
void PrintPluginsMarkdown(const Registry& r, std::ostream& os);

}  // namespace mbstep
