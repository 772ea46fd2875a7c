// mbstep — plugin entry point of the formulation `lagrangian` (mbstep/formulation/
// abstract_formulation.hpp): models of abstract nodes for `eml`, `rk`, `hht` and
// `generalized alpha`.
#include "mbstep/formulation/abstract_formulation.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    FormulationDescriptor f;
    f.name = "lagrangian";
    f.description =
        "state (q, v) of a model of abstract nodes and `lagrangian` elements, for the methods "
        "that form their equations from the elements' T, V, g themselves: `eml` (72a)-(72d), "
        "`rk` (M(q) a = T_q - V_q - T_vq v); and the second-order DAE T_vv a + T_vq v - T_q + "
        "V_q + G^T lambda = 0, g = 0 with exact Jacobians (third derivatives of T) for `hht` "
        "and `generalized alpha`";
    f.provides = ProblemInterface::kSecondOrderDae;
    f.supports_abstract_nodes = true;
    f.make = [](const Model& m) -> std::unique_ptr<Formulation> {
        return std::make_unique<AbstractFormulation>(m);
    };
    r.Add(std::move(f));
    return 0;
}
