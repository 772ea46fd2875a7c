// mbstep — plugin entry point of the `cgr` formulation.
#include "cgr_formulation.hpp"
#include "lagrangian_formulation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mixed_formulation.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::FormulationDescriptor d;
    d.name = "cgr";
    d.description =
        "first-order DAE r(y, y', t) = 0 with momenta and CGR rotation increments (MBDyn)";
    d.provides = mbstep::ProblemInterface::kFirstOrderDae;
    d.solves_static_model = true;  // `model: static;` (cgr_formulation.hpp eq. (6))
    // Abstract nodes: lagrangian_formulation.hpp; beside structural nodes:
    // mixed_formulation.hpp.
    d.supports_abstract_nodes = true;
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        using mbstep::cgr::CgrFormulation;
        if (!m.abstract_nodes().empty() && !m.nodes().empty())
            return std::make_unique<mbstep::cgr::MixedFormulation>(
                m, std::make_unique<CgrFormulation>(m));
        if (!m.abstract_nodes().empty())
            return std::make_unique<mbstep::cgr::LagrangianFormulation>(m, "cgr");
        return std::make_unique<CgrFormulation>(m);
    };
    r.Add(d);
    d.name = "mbdyn cgr";
    d.description =
        "cgr with MBDyn's re-referencing at the predicted orientation (for comparison with MBDyn)";
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        using mbstep::cgr::CgrFormulation;
        if (!m.abstract_nodes().empty() && !m.nodes().empty())
            return std::make_unique<mbstep::cgr::MixedFormulation>(
                m, std::make_unique<CgrFormulation>(m, true));
        if (!m.abstract_nodes().empty())
            return std::make_unique<mbstep::cgr::LagrangianFormulation>(m, "mbdyn cgr");
        return std::make_unique<CgrFormulation>(m, true);
    };
    r.Add(d);
    d.name = "cgr rotation vector";
    d.description =
        "cgr with rotation-vector increments (exp/log) instead of CGR parameters: exact for "
        "rotation at constant rate about a fixed axis";
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        using mbstep::cgr::CgrFormulation;
        // Abstract nodes carry no rotation: the chart does not enter.
        if (!m.abstract_nodes().empty() && !m.nodes().empty())
            return std::make_unique<mbstep::cgr::MixedFormulation>(
                m, std::make_unique<CgrFormulation>(m, false, CgrFormulation::Momenta::kUnknowns,
                                                    CgrFormulation::Chart::kRotationVector));
        if (!m.abstract_nodes().empty())
            return std::make_unique<mbstep::cgr::LagrangianFormulation>(m, "cgr rotation vector");
        return std::make_unique<CgrFormulation>(m, false, CgrFormulation::Momenta::kUnknowns,
                                                CgrFormulation::Chart::kRotationVector);
    };
    r.Add(std::move(d));
    return 0;
}
