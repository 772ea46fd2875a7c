// mbstep — registration of the gravity family (STYLE.md §7).
#include "gravity.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d;
    d.statement = "gravity";
    d.name = "uniform";
    d.description = "uniform gravity field g(t) = direction * drive(t) acting on all bodies";
    d.read = mbstep::gravity::ReadUniformGravity;
    d.test_snippets = {
        "gravity: uniform, 0.1, -0.2, -1., 9.81;",
        "gravity: 0., 0., -1., 9.81;",
    };
    r.Add(std::move(d));
    return 0;
}
