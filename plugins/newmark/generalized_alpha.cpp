// mbstep — `generalized alpha` (equations in generalized_alpha.hpp): a coefficient set of
// SecondOrderStep.
#include "generalized_alpha.hpp"

#include <memory>
#include <sstream>

#include "mbstep/io/deck_input.hpp"

namespace mbstep::newmark {

// (1), (2)
NewmarkCoefficients GeneralizedAlpha::FromRho(double rho) {
    NewmarkCoefficients k;
    k.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
    k.alpha_f = rho / (rho + 1.0);
    k.gamma = 0.5 + k.alpha_f - k.alpha_m;
    k.beta = 0.25 * (k.gamma + 0.5) * (k.gamma + 0.5);
    return k;
}

// Deck: `method: generalized alpha [, rho_inf] [, tangent operator, yes|no];`
void RegisterGeneralizedAlpha(Registry& r) {
    IntegratorDescriptor d;
    d.name = "generalized alpha";
    d.family = "newmark";
    d.description =
        "generalized-alpha (Chung-Hulbert / Arnold-Bruls); Lie group generalized-alpha on `lie "
        "group`";
    d.order = "2";
    d.tunable = true;
    d.parameters = {{"rho_inf", "0.9", "[0, 1] (drive)"},
                    {"tangent operator", "yes", "yes | no (T_exp in the iteration matrix)"}};
    d.reference =
        "Chung & Hulbert 1993; Arnold & Bruls 2007; Bruls, Cardona & Arnold 2012; Bottasso et al. "
        "2007";
    d.equations = "Chung & Hulbert eqs. (17), (20), (25); Arnold & Bruls eqs. (9)-(12)";
    d.steps = "1 step";
    d.stability = "unconditionally stable (linear); rho_inf at h omega -> inf";
    d.requires_interface = ProblemInterface::kSecondOrderDae;
    d.default_formulation = "lie group";
    d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
        RhoParameter rho(std::make_shared<ConstDrive>(0.9));
        if (in.HasArg() && !in.IsKeyword("tangent operator")) {
            const SourceLocation where = in.Where();
            DrivePtr drive = in.GetDrive("rho_inf");
            if (drive->IsConstant()) {
                const double v = drive->Value(0.0);
                if (!(v >= 0.0 && v <= 1.0)) {
                    std::ostringstream os;
                    os << "generalized alpha: rho_inf must be in [0, 1], got " << v;
                    in.Fail(where, os.str());
                }
            }
            rho = RhoParameter(drive);
            if (in.HasArg() && !in.IsKeyword("tangent operator"))
                in.Fail(in.Where(),
                        "generalized alpha: expected `tangent operator, yes|no` after rho_inf");
            else if (!in.HasArg())
                return std::make_unique<GeneralizedAlpha>(rho, true);
        } else if (!in.HasArg()) {
            return std::make_unique<GeneralizedAlpha>(rho, true);
        }
        // `tangent operator` was consumed.
        const bool tangent = in.GetKeyword("tangent operator", {"yes", "no"}) == "yes";
        return std::make_unique<GeneralizedAlpha>(rho, tangent);
    };
    r.Add(std::move(d));
}

}  // namespace mbstep::newmark
