// mbstep — plugin entry point of the `cgr velocity` formulation.
#include "cgr_velocity_formulation.hpp"
#include "lagrangian_formulation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mixed_formulation.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    using mbstep::cgr::CgrFormulation;
    mbstep::FormulationDescriptor d;
    d.name = "cgr velocity";
    d.description =
        "cgr's momentum-form DAE with the momenta eliminated: Newton on (x', g') and the "
        "multipliers, 6 unknowns per node; force/moment rows times b0 h (impulse units)";
    d.provides = mbstep::ProblemInterface::kFirstOrderDae;
    d.solves_static_model = true;  // `model: static;` (cgr_formulation.hpp eq. (6))
    // Abstract nodes: the momentum form of lagrangian_formulation.hpp (the momenta stay
    // unknowns there: with a singular T_vv they cannot be eliminated).
    d.supports_abstract_nodes = true;
    // Beside structural nodes (mixed_formulation.hpp): the structural momenta eliminated, the
    // abstract ones unknowns.
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        if (!m.abstract_nodes().empty() && !m.nodes().empty())
            return std::make_unique<mbstep::cgr::MixedFormulation>(
                m,
                std::make_unique<CgrFormulation>(m, false, CgrFormulation::Momenta::kEliminated));
        if (!m.abstract_nodes().empty())
            return std::make_unique<mbstep::cgr::LagrangianFormulation>(m, "cgr velocity");
        return std::make_unique<CgrFormulation>(m, false, CgrFormulation::Momenta::kEliminated);
    };
    r.Add(d);
    d.name = "cgr velocity unscaled";
    d.description =
        "cgr velocity with cgr's force and moment rows unscaled (a ~1/(b0 h) stricter Newton "
        "test on the momenta; round-off floor eps |p| / (b0 h))";
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        if (!m.abstract_nodes().empty() && !m.nodes().empty())
            return std::make_unique<mbstep::cgr::MixedFormulation>(
                m, std::make_unique<CgrFormulation>(m, false,
                                                    CgrFormulation::Momenta::kEliminatedUnscaled));
        if (!m.abstract_nodes().empty())
            return std::make_unique<mbstep::cgr::LagrangianFormulation>(m, "cgr velocity unscaled");
        return std::make_unique<CgrFormulation>(m, false,
                                                CgrFormulation::Momenta::kEliminatedUnscaled);
    };
    r.Add(std::move(d));
    return 0;
}
