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
    // No snippets: the registry suite's snippets run on structural nodes; the element's
    // Jacobian is checked by tests/elements/lagrangian_test.cpp.
    r.Add(std::move(d));
    return 0;
}
