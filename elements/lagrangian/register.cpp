// mbstep — registration of the `lagrangian` genel (STYLE.md §7).
#include "lagrangian.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d;
    d.statement = "genel";
    d.name = "lagrangian";
    d.description =
        "T(q, v), V(q) and holonomic constraints g(q) = 0 of abstract nodes as expressions "
        "(exact second derivatives; singular T_vv allowed)";
    d.read = mbstep::lagrangian::Read;
    // Read with abstract nodes 1, 2, 3 (tests/elements/element_builder.hpp); every block of
    // the Lagrangian contract is non-zero (T_qv through the last term).
    d.test_snippets = {
        "genel: 1, lagrangian, coordinates, 3, 1, \"a\", \"ua\", 2, \"b\", \"ub\", 3, \"c\", "
        "\"uc\", kinetic energy, \"0.5*(ua^2 + (1 + a^2)*ub^2 + uc^2) + 0.1*a*ua*uc*cos(b)\", "
        "potential energy, \"a^4 + exp(0.2*b)*c\", constraints, 1, \"a*cos(b) + c^2 - 0.5\";"};
    r.Add(std::move(d));
    return 0;
}
