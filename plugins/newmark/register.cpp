// mbstep — plugin entry point of the Newmark family (second-order formulations).
#include "generalized_alpha.hpp"
#include "hht.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    IntegratorDescriptor d;
    d.name = "hht";
    d.family = "newmark";
    d.description =
        "HHT-alpha, alpha in [-1/3, 0]; `modified`: Euler-parameter velocity update of Sherif et "
        "al.";
    d.order = "2";
    d.parameters = {{"alpha", "-0.1", "[-1/3, 0]"}, {"modified", "off", "keyword"}};
    d.reference = "Hilber, Hughes, Taylor 1977; Sherif, Nachbagauer, Steiner, Lauss 2019";
    d.equations = "eqs. (19), (33)-(34), (59)-(61), (69)-(70) of Sherif et al.";
    d.steps = "1 step";
    d.stability = "A-stable for alpha in [-1/3, 0]";
    d.requires_interface = ProblemInterface::kSecondOrderDae;
    d.default_formulation = "euler parameters";
    d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
        // `hht` alone means alpha = -0.1 (the registry-driven tests build every method by name).
        const SourceLocation where = in.Where();
        const double alpha = in.HasArg() ? in.GetReal("alpha") : -0.1;
        try {
            newmark::Hht::CheckAlpha(alpha);
        } catch (const RunError& e) {
            in.Fail(where, e.what());
        }
        bool modified = false;
        if (in.HasArg()) {
            if (!in.IsKeyword("modified"))
                in.Fail(in.Where(), "hht: expected `modified` after alpha");
            modified = true;
        }
        return std::make_unique<newmark::Hht>(alpha, modified);
    };
    r.Add(std::move(d));
    newmark::RegisterGeneralizedAlpha(r);
    return 0;
}
