// mbstep — `hht, alpha [, modified | arnold bruls]` (equations in hht.hpp): a coefficient set of
// SecondOrderStep.
#include "hht.hpp"

#include <memory>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/io/deck_input.hpp"

namespace mbstep::newmark {

void Hht::CheckAlpha(double alpha) {
    if (!(alpha >= -1.0 / 3.0 && alpha <= 0.0)) {
        std::ostringstream os;
        os << "hht: alpha must be in [-1/3, 0], got " << alpha;
        throw RunError(os.str());
    }
}

// eq. (19); gamma = (1 - 2 alpha) / 2 written as 1/2 - alpha (the same double: halving is exact).
NewmarkCoefficients Hht::Coefficients(double alpha) {
    NewmarkCoefficients k;
    k.alpha_m = 0.0;
    k.alpha_f = -alpha;
    k.gamma = 0.5 - alpha;
    k.beta = 0.25 * (1.0 - alpha) * (1.0 - alpha);
    return k;
}

Hht::Hht(double alpha, Variant variant) : variant_(variant) {
    CheckAlpha(alpha);
    k_ = Coefficients(alpha);
}

// Deck: `method: hht [, alpha [, modified | arnold bruls]];`
void RegisterHht(Registry& r) {
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
            Hht::CheckAlpha(alpha);
        } catch (const RunError& e) {
            in.Fail(where, e.what());
        }
        Hht::Variant variant = Hht::Variant::kPaper;
        if (in.HasArg())
            variant = in.GetKeyword("hht variant", {"modified", "arnold bruls"}) == "arnold bruls"
                          ? Hht::Variant::kArnoldBruls
                          : Hht::Variant::kModified;
        return std::make_unique<Hht>(alpha, variant);
    };
    r.Add(std::move(d));
}

}  // namespace mbstep::newmark
