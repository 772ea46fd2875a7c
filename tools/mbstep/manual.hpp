// mbstep — `mbstep manual`: the input manual (docs/input.md) from the deck reader's description
// and the registry.
#pragma once

#include <iosfwd>

#include "mbstep/plugin/registry.hpp"

namespace mbstep {

/// Writes the input manual in Markdown.
void PrintInputManual(const Registry& registry, std::ostream& os);

}  // namespace mbstep
