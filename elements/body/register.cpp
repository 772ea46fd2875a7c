// mbstep — registration of the body family (STYLE.md §7).
#include "body.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d;
    d.statement = "body";
    d.name = "";
    d.description = "rigid body: mass, centre of mass offset and inertia on a node, gravity load";
    d.read = mbstep::body::ReadBody;
    d.test_snippets = {
        // Offset centre of mass, full symmetric inertia rotated by a non-trivial orientation.
        "body: 1, 1, 2.5, 0.1, -0.2, 0.3, sym, 0.9, 0.05, -0.02, 1.1, 0.03, 1.3, "
        "inertial, euler123, 0.3, -0.2, 0.5;",
        // Two condensed masses, one a point mass (null inertia), on the second node.
        "body: 1, 2, condense, 2, 1.5, -0.3, 0.2, 0.1, diag, 0.2, 0.3, 0.4, "
        "0.7, 0.4, 0.0, -0.25, null;",
    };
    r.Add(std::move(d));
    return 0;
}
