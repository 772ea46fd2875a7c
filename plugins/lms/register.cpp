// mbstep — plugin entry point of the `lms` family: one descriptor per keyword.
#include "lms_methods.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

namespace {

using namespace mbstep;

/// The descriptor of method class M under `name`: its declared order and tunability are M's
/// (one statement each, lms_methods.hpp); a tunable method's first parameter is rho_inf.
template <class M>
IntegratorDescriptor Describe(std::string name, std::string description,
                              std::function<std::unique_ptr<Integrator>(DeckInput&)> make) {
    IntegratorDescriptor d;
    d.name = std::move(name);
    d.family = "linear multistep (StepN)";
    d.description = std::move(description);
    d.order = std::to_string(M::kOrder);
    d.tunable = M::kTunable;
    if (M::kTunable)
        d.parameters = {{"rho_inf", "0", "[0, 1] (drive)"},
                        {"algebraic rho_inf", "rho_inf", "[0, 1] (drive)"}};
    d.reference = "Zhang, Masarati et al., eq. (2)-(3), (12)-(14); MBDyn stepsol/ms34stepsol";
    d.make = std::move(make);
    return d;
}

template <class M>
std::function<std::unique_ptr<Integrator>(DeckInput&)> Tunable(const std::string& name) {
    return [name](DeckInput& in) -> std::unique_ptr<Integrator> {
        auto [rho, alg] = RhoParameter::Read(in, 0.0, name);
        return std::make_unique<M>(name, rho, alg);
    };
}

}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    r.Add(Describe<lms::ImplicitEuler>("implicit euler", "backward Euler, 1 step, L-stable",
                                       [](DeckInput&) -> std::unique_ptr<Integrator> {
                                           return std::make_unique<lms::ImplicitEuler>();
                                       }));
    IntegratorDescriptor cn =
        Describe<lms::CrankNicolson>("crank nicolson", "trapezoidal rule, 1 step, rho_inf = 1",
                                     [](DeckInput&) -> std::unique_ptr<Integrator> {
                                         return std::make_unique<lms::CrankNicolson>();
                                     });
    cn.fixed_rho_inf = 1.0;
    r.Add(std::move(cn));
    r.Add(Describe<lms::Ms2>("ms2", "LMS2: 2 steps, variable step", Tunable<lms::Ms2>("ms2")));
    r.Add(Describe<lms::Ms2>("ms", "alias of ms2", Tunable<lms::Ms2>("ms")));
    r.Add(Describe<lms::Ms3>("ms3", "LMS3: 3 steps (constant step)", Tunable<lms::Ms3>("ms3")));
    r.Add(Describe<lms::Ms4>("ms4", "LMS4: 4 steps (constant step)", Tunable<lms::Ms4>("ms4")));
    // bdf, order 2 is ms2 with rho_inf = 0 (the descriptor states that default order).
    IntegratorDescriptor bdf = Describe<lms::Ms2>(
        "bdf", "BDF [, order, 1|2]: order 2 = ms2 with rho_inf 0, order 1 = implicit euler",
        [](DeckInput& in) -> std::unique_ptr<Integrator> {
            long order = 2;
            if (in.IsKeyword("order")) {
                const SourceLocation where = in.Where();
                order = in.GetInt("bdf order");
                if (order != 1 && order != 2)
                    in.Fail(where, "bdf order must be 1 or 2, got " + std::to_string(order));
            }
            if (order == 1) return std::make_unique<lms::ImplicitEuler>();
            return std::make_unique<lms::Ms2>("bdf",
                                              RhoParameter(std::make_shared<ConstDrive>(0.0)),
                                              RhoParameter(std::make_shared<ConstDrive>(0.0)));
        });
    bdf.tunable = false;
    bdf.parameters = {{"order", "2", "1 or 2"}};
    r.Add(std::move(bdf));
    return 0;
}
