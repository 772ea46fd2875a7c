// mbstep — plugin entry point of `eml [, reduced | null space]`: the Livens-principle
// energy-momentum scheme with unit quaternions (Kinon & Betsch 2024).
#include "eml.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    IntegratorDescriptor d;
    d.name = "eml";
    d.family = "energy-momentum";
    d.description =
        "Livens-principle energy-momentum scheme, unit quaternions, singular mass matrix; "
        "variants `reduced` (q, lambda unknowns) and `null space` (rotation-vector increments); "
        "abstract nodes (T, V, g of `lagrangian` elements) on the `lagrangian` formulation";
    d.order = "2";
    d.parameters = {{"variant", "full", "full, reduced, null space"}};
    d.reference = "Kinon, Betsch, Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9";
    d.equations = "eqs. (72a)-(72d), (86a)-(86d), (101)-(105)";
    d.steps = "1 step (implicit)";
    d.stability = "energy conserving: no numerical dissipation";
    d.fixed_rho_inf = 1.0;
    d.requires_interface = ProblemInterface::kSecondOrderDae;
    d.default_formulation = "euler parameters";
    d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
        eml::Variant v = eml::Variant::kFull;
        if (in.HasArg()) {
            const std::string k = in.GetKeyword("eml variant", {"full", "reduced", "null space"});
            if (k == "reduced") v = eml::Variant::kReduced;
            if (k == "null space") v = eml::Variant::kNullSpace;
        }
        return std::make_unique<eml::Eml>(v);
    };
    r.Add(std::move(d));
    return 0;
}
