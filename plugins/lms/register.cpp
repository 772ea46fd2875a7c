// mbstep — plugin entry point of the `lms` family: one descriptor per keyword.
#include "lms_methods.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

namespace {

using namespace mbstep;

IntegratorDescriptor Describe(std::string name, std::string description, std::string order,
                              std::vector<ParameterInfo> params,
                              std::function<std::unique_ptr<Integrator>(DeckInput&)> make) {
    IntegratorDescriptor d;
    d.name = std::move(name);
    d.family = "linear multistep (StepN)";
    d.description = std::move(description);
    d.order = std::move(order);
    d.parameters = std::move(params);
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

/// The tunable methods: rho_inf first (IntegratorDescriptor::tunable).
IntegratorDescriptor Tuned(IntegratorDescriptor d) {
    d.tunable = true;
    return d;
}

const std::vector<ParameterInfo> kRho = {{"rho_inf", "0", "[0, 1] (drive)"},
                                         {"algebraic rho_inf", "rho_inf", "[0, 1] (drive)"}};

}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    r.Add(Describe("implicit euler", "backward Euler, 1 step, order 1, L-stable", "1", {},
                   [](DeckInput&) -> std::unique_ptr<Integrator> {
                       return std::make_unique<lms::ImplicitEuler>();
                   }));
    IntegratorDescriptor cn =
        Describe("crank nicolson", "trapezoidal rule, 1 step, order 2, rho_inf = 1", "2", {},
                 [](DeckInput&) -> std::unique_ptr<Integrator> {
                     return std::make_unique<lms::CrankNicolson>();
                 });
    cn.fixed_rho_inf = 1.0;
    r.Add(std::move(cn));
    r.Add(Tuned(Describe("ms2", "LMS2: 2-step, order 2, tunable rho_inf, variable step", "2", kRho,
                         Tunable<lms::Ms2>("ms2"))));
    r.Add(Tuned(Describe("ms", "alias of ms2", "2", kRho, Tunable<lms::Ms2>("ms"))));
    r.Add(Tuned(Describe("ms3", "LMS3: 3-step, order 2, tunable rho_inf (constant step)", "2", kRho,
                         Tunable<lms::Ms3>("ms3"))));
    r.Add(Tuned(Describe("ms4", "LMS4: 4-step, order 2, tunable rho_inf (constant step)", "2", kRho,
                         Tunable<lms::Ms4>("ms4"))));
    r.Add(Describe(
        "bdf", "BDF [, order, 1|2]: order 2 = ms2 with rho_inf 0, order 1 = implicit euler", "2",
        {{"order", "2", "1 or 2"}}, [](DeckInput& in) -> std::unique_ptr<Integrator> {
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
        }));
    return 0;
}
