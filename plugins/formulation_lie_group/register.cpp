// mbstep — plugin entry point of the `lie group` formulation.
#include "lie_group_formulation.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::FormulationDescriptor d;
    d.name = "lie group";
    d.description =
        "second-order DAE on R^3 x SO(3): rotation-vector increments, body angular velocities";
    d.provides = mbstep::ProblemInterface::kSecondOrderDae;
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        return std::make_unique<mbstep::lie_group::LieGroupFormulation>(m);
    };
    r.Add(std::move(d));
    return 0;
}
