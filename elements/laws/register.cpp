// mbstep — registration of the linear constitutive laws (STYLE.md §7; linear_laws.hpp).
#include "linear_laws.hpp"
#include "mbstep/plugin/registry.hpp"

namespace {
void AddLaw(mbstep::Registry& r, const char* name, const char* text,
            std::function<mbstep::ConstitutiveLawPtr(mbstep::DeckInput&, int)> read,
            std::vector<std::pair<int, std::string>> args) {
    mbstep::ConstitutiveLawDescriptor d;
    d.name = name;
    d.description = text;
    d.dimensions = {1, 3, 6};
    d.read = std::move(read);
    d.test_arguments = std::move(args);
    r.Add(std::move(d));
}
}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    namespace l = mbstep::laws;
    if (abi != mbstep::kPluginAbi) return 1;
    using D = mbstep::DeckInput;
    AddLaw(r, "linear elastic", "f = S e (isotropic stiffness)",
           [](D& in, int n) { return l::ReadLinearElastic(in, n, false); },
           {{1, "2.e3"}, {3, "40."}, {6, "1.e2"}});
    AddLaw(r, "linear elastic isotropic",
           "f = S e; 6-D also `section, E, nu, A, J, Iy, Iz` (isotropic beam section)",
           [](D& in, int n) { return l::ReadLinearElastic(in, n, true); },
           {{1, "2.e3"}, {3, "40."}, {6, "section, 2.1e11, 0.3, 1.e-4, 1.6e-9, 8.e-10, 9.e-10"}});
    AddLaw(
        r, "linear elastic generic", "f = K e (full stiffness matrix)", l::ReadLinearElasticGeneric,
        {{1, "3.e3"}, {3, "diag, 5., 10., 20."}, {6, "diag, 1.e6, 4.e5, 5.e5, 2.e2, 3.e2, 4.e2"}});
    AddLaw(r, "linear viscous", "f = c e' (isotropic viscosity)", l::ReadLinearViscous,
           {{1, "10."}, {3, "0.5"}, {6, "0.1"}});
    AddLaw(r, "linear viscous isotropic", "f = c e' (isotropic viscosity)", l::ReadLinearViscous,
           {{1, "10."}, {3, "0.5"}, {6, "0.1"}});
    AddLaw(r, "linear viscous generic", "f = C e' (full viscosity matrix)",
           l::ReadLinearViscousGeneric,
           {{1, "4."}, {3, "eye"}, {6, "diag, 1., 2., 3., 4., 5., 6."}});
    AddLaw(r, "linear viscoelastic", "f = S e + c e' (or c = f S: proportional, f)",
           [](D& in, int n) { return l::ReadLinearViscoelastic(in, n, false); },
           {{1, "100., 3."}, {3, "10., proportional, 0.05"}, {6, "50., 0.2"}});
    AddLaw(r, "linear viscoelastic isotropic", "f = S e + c e' (or c = f S: proportional, f)",
           [](D& in, int n) { return l::ReadLinearViscoelastic(in, n, true); },
           {{1, "100., 3."},
            {3, "10., proportional, 0.05"},
            {6, "section, 7.e10, 0.33, 2.e-4, 2.e-9, 1.e-9, 1.5e-9, proportional, 1.e-3"}});
    AddLaw(r, "linear viscoelastic generic",
           "f = K e + C e' (full matrices; or C = f K: proportional, f)",
           l::ReadLinearViscoelasticGeneric,
           {{1, "80., proportional, 0.1"},
            {3, "sym, 10., 1., 2., 20., 3., 30., proportional, 0.05"},
            {6, "diag, 1.e6, 4.e5, 5.e5, 2.e2, 3.e2, 4.e2, proportional, 1.e-2"}});
    return 0;
}
