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
        "al.; `arnold bruls`: equilibrium at t_n+1 (second order with q-dependent mass)";
    d.order = "2 (paper form with alpha < 0 and a q-dependent mass matrix: 1)";
    d.parameters = {{"alpha", "-0.1", "[-1/3, 0]"}, {"modified | arnold bruls", "off", "keyword"}};
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
            const std::string variant = in.GetKeyword("hht variant", {"modified", "arnold bruls"});
            if (variant == "arnold bruls") {
                // HHT as generalized alpha with alpha_m = 0, alpha_f = -alpha (hht.hpp).
                newmark::GeneralizedAlphaCoefficients k;
                k.alpha_m = 0.0;
                k.alpha_f = -alpha;
                k.gamma = 0.5 - alpha;
                k.beta = 0.25 * (1.0 - alpha) * (1.0 - alpha);
                return std::make_unique<newmark::GeneralizedAlpha>(k, "hht");
            }
            modified = true;
        }
        return std::make_unique<newmark::Hht>(alpha, modified);
    };
    r.Add(std::move(d));
    newmark::RegisterGeneralizedAlpha(r);
    return 0;
}
