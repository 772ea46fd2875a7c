// mbstep — the registry of explicit Butcher tableaus of the `rk` family (a method is a table
// plus a name). Coefficients and sources in tableaus.cpp; the order conditions of every entry
// are checked up to its order (and the embedded weights up to theirs) in
// tests/integrators/rk_test.cpp.
#pragma once

#include <vector>

#include "mbstep/integrator/butcher_tableau.hpp"

namespace mbstep::rk {

/// Every registered tableau, in registration order.
const std::vector<ButcherTableau>& Tableaus();
/// The tableau with the given (normalised) name, or nullptr.
const ButcherTableau* FindTableau(const std::string& name);

}  // namespace mbstep::rk
