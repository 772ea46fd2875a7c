// mbstep — the tableau integrators' interface (butcher_tableau.hpp).
#include "mbstep/integrator/butcher_tableau.hpp"

#include "mbstep/integrator/integrator.hpp"

namespace mbstep {

TableauIntegrator::~TableauIntegrator() = default;

const ButcherTableau* ButcherTableauOf(const Integrator& integrator) {
    const auto* t = dynamic_cast<const TableauIntegrator*>(&integrator);
    return t ? &t->tableau() : nullptr;
}

}  // namespace mbstep
