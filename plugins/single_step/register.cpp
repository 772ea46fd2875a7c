// mbstep — plugin entry point of the `single_step` family: one descriptor per keyword.
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"
#include "ss_methods.hpp"

namespace {

using namespace mbstep;

template <class M>
IntegratorDescriptor Describe(const std::string& name, std::string description) {
    IntegratorDescriptor d;
    d.name = name;
    d.family = "equivalent single-step (SingleStep)";
    d.description = std::move(description);
    d.order = std::to_string(M::kOrder);  // M's declared order and tunability (ss_methods.hpp)
    d.tunable = M::kTunable;
    d.parameters = {{"rho_inf", "0", "[0, 1] (drive)"},
                    {"algebraic rho_inf", "rho_inf", "[0, 1] (drive)"}};
    d.reference = "Zhang, Masarati et al., section 2.2 and ref. [36]; MBDyn singlestepsol";
    d.equations = "eqs. (4a)-(4e), (9)-(11), (15), (18)-(20)";
    d.make = [name](DeckInput& in) -> std::unique_ptr<Integrator> {
        auto [rho, alg] = RhoParameter::Read(in, 0.0, name);
        return std::make_unique<M>(name, rho, alg);
    };
    return d;
}

}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    r.Add(Describe<single_step::Ss2>("ss2",
                                     "SS2: single-step equivalent of ms2, 1 auxiliary variable"));
    r.Add(Describe<single_step::Ss3>(
        "ss3", "SS3: single-step equivalent of ms3, 2 complex auxiliary variables"));
    r.Add(Describe<single_step::Ss4>(
        "ss4", "SS4: single-step equivalent of ms4, 3 complex auxiliary variables"));
    return 0;
}
