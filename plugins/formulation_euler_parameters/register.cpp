// mbstep — plugin entry point of the `euler parameters` formulation.
#include "euler_parameters_formulation.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::FormulationDescriptor d;
    d.name = "euler parameters";
    d.description =
        "second-order index-3 DAE in (x, e) per node, unit-length constraint per node (Newmark "
        "family)";
    d.provides = mbstep::ProblemInterface::kSecondOrderDae;
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        return std::make_unique<mbstep::ep::EulerParametersFormulation>(m);
    };
    r.Add(std::move(d));
    return 0;
}
