// mbstep — plugin entry point of the `euler angles` formulation.
#include "euler_angles_formulation.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::FormulationDescriptor d;
    d.name = "euler angles";
    d.description =
        "second-order index-3 DAE in (x, theta) per node, Cardan/Tait-Bryan xyz angles "
        "(Rxyz; stops near theta2 = +-pi/2) (Newmark family)";
    d.provides = mbstep::ProblemInterface::kSecondOrderDae;
    d.make = [](const mbstep::Model& m) -> std::unique_ptr<mbstep::Formulation> {
        return std::make_unique<mbstep::euler_angles::EulerAnglesFormulation>(m);
    };
    r.Add(std::move(d));
    return 0;
}
