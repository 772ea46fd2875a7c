// mbstep — plugin entry point of `half implicit [, jacobian, step | predicted]`.
#include "half_implicit.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    IntegratorDescriptor d;
    d.name = "half implicit";
    d.family = "half-implicit";
    d.description =
        "half-implicit symplectic Euler for index-3 DAEs: multipliers at t_n make the constraints "
        "hold at t_n+1, explicit velocities, R exp(h W); constant diagonal mass (principal "
        "central node frames); no force Jacobians";
    d.order = "1";
    d.parameters = {{"jacobian", "step", "step | predicted (B at q_n or at the predicted q_n+1)"}};
    d.reference = "Fang, Kissel, Zhang, Negrut, J. Comput. Nonlinear Dyn. 18 (2023) 014501";
    d.equations = "eqs. (3), (4a)-(4d), (11)-(12)";
    d.steps = "1 step";
    d.stability = "explicit in velocities: bounded stability region (h w < 2), symplectic";
    d.requires_interface = ProblemInterface::kSecondOrderDae;
    d.default_formulation = "lie group";
    d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
        bool predicted = false;
        if (in.HasArg()) {
            in.GetKeyword("half implicit option", {"jacobian"});
            predicted = in.GetKeyword("jacobian", {"step", "predicted"}) == "predicted";
        }
        return std::make_unique<half_implicit::HalfImplicitEuler>(predicted);
    };
    r.Add(std::move(d));
    return 0;
}
