// mbstep — plugin entry point of the `rk` family: `rk, <tableau> [, ...]` and every tableau
// under its own name (`dopri5, 1e-8, 1e-10;` = `rk, dopri5, 1e-8, 1e-10;`).
#include <sstream>

#include "explicit_rk.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"
#include "tableaus.hpp"

namespace {

using namespace mbstep;

constexpr double kDefaultTolerance = 1e-6;

// `[, fixed | rtol [, atol]]` after the tableau: embedded pairs run adaptively unless `fixed`
// is given (default rtol = atol = 1e-6; atol defaults to rtol); other tableaus take the deck's
// fixed time step and refuse tolerances.
std::unique_ptr<Integrator> ReadOptions(DeckInput& in, const ButcherTableau& t) {
    const SourceLocation where = in.Where();
    bool adaptive = t.embedded();
    double rtol = kDefaultTolerance, atol = kDefaultTolerance;
    if (in.HasArg()) {
        if (in.IsKeyword("fixed")) {
            adaptive = false;
        } else {
            adaptive = true;
            rtol = in.GetReal("rtol");
            atol = in.HasArg() ? in.GetReal("atol") : rtol;
        }
    }
    try {
        return std::make_unique<rk::ExplicitRk>(t, adaptive, rtol, atol);
    } catch (const RunError& e) {
        in.Fail(where, e.what());
    }
    return nullptr;  // not reached: Fail throws
}

std::string StagesText(const ButcherTableau& t) {
    std::ostringstream os;
    os << t.stages() << (t.stages() == 1 ? " stage" : " stages");
    if (t.fsal) os << " (FSAL: " << t.stages() - 1 << " evaluations per step)";
    return os.str();
}

std::string OrderText(const ButcherTableau& t) {
    std::string o = std::to_string(t.order);
    if (t.embedded()) o += "(" + std::to_string(t.embedded_order) + ")";
    return o;
}

}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    const char* kStability = "explicit: bounded stability region, not A-stable";
    const char* kEquations =
        "explicit RK, RKMK on lie group: Algorithms 2-3 of the Lie group paper";
    std::string names;
    for (const ButcherTableau& t : rk::Tableaus()) names += (names.empty() ? "" : ", ") + t.name;
    {
        IntegratorDescriptor d;
        d.name = "rk";
        d.family = "runge-kutta";
        d.description = "explicit Runge-Kutta / RKMK with a registered tableau (" + names +
                        "); embedded pairs with step-size control; no constraints; abstract "
                        "nodes with an invertible mass matrix on `lagrangian`";
        d.order = "1-6";
        d.parameters = {{"tableau", "dopri5", names},
                        {"rtol", "1e-6", "> 0, or `fixed` (embedded pairs)"},
                        {"atol", "rtol", ">= 0"}};
        d.reference = "Hairer, Norsett, Wanner, Solving ODEs I (1993); Munthe-Kaas, BIT 38 (1998)";
        d.equations = kEquations;
        d.steps = "tableau's stages";
        d.stability = kStability;
        d.requires_interface = ProblemInterface::kSecondOrderDae;
        d.default_formulation = "lie group";
        d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
            const ButcherTableau* t = rk::FindTableau("dopri5");
            if (in.HasArg()) {
                std::vector<std::string> accepted;
                for (const ButcherTableau& m : rk::Tableaus()) accepted.push_back(m.name);
                t = rk::FindTableau(in.GetKeyword("Butcher tableau", accepted));
            }
            return ReadOptions(in, *t);
        };
        r.Add(std::move(d));
    }
    for (const ButcherTableau& t : rk::Tableaus()) {
        IntegratorDescriptor d;
        d.name = t.name;
        d.family = "runge-kutta";
        d.description = t.description + (t.embedded() ? "; step-size control (rtol, atol)" : "") +
                        "; explicit RK / RKMK, no constraints";
        d.order = OrderText(t);
        if (t.embedded())
            d.parameters = {{"rtol", "1e-6", "> 0, or `fixed`"}, {"atol", "rtol", ">= 0"}};
        d.reference = t.reference;
        d.equations = kEquations;
        d.steps = StagesText(t);
        d.stability = kStability;
        d.requires_interface = ProblemInterface::kSecondOrderDae;
        d.default_formulation = "lie group";
        const ButcherTableau* tp = &t;
        d.make = [tp](DeckInput& in) -> std::unique_ptr<Integrator> {
            return ReadOptions(in, *tp);
        };
        r.Add(std::move(d));
    }
    return 0;
}
