// mbstep — registration of the forces family (STYLE.md §7).
#include "mbstep/plugin/registry.hpp"
#include "structural_force.hpp"

namespace {
void AddLoad(mbstep::Registry& r, const char* statement, const char* name, const char* text,
             std::function<std::unique_ptr<mbstep::Element>(mbstep::ElementReadArgs&)> read,
             std::vector<std::string> snippets) {
    mbstep::ElementDescriptor d;
    d.statement = statement;
    d.name = name;
    d.description = text;
    d.read = std::move(read);
    d.test_snippets = std::move(snippets);
    r.Add(std::move(d));
}
}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    namespace f = mbstep::forces;
    if (abi != mbstep::kPluginAbi) return 1;
    AddLoad(r, "force", "absolute", "force fixed in the global frame, applied at an arm of a node",
            f::ReadAbsoluteForce,
            {"force: 1, absolute, 1, position, 0.3, -0.1, 0.2, 1.5, -2., 0.5, 3.;",
             "force: 1, absolute, 3, position, -0.2, 0.4, 0.1, single, 0., 1., 1., -2.;",
             "force: 1, absolute, 2, 0.1, 0.2, 0.3, component, 1., inactive, 2.;"});
    AddLoad(r, "force", "follower", "force fixed in the node frame, applied at an arm of a node",
            f::ReadFollowerForce,
            {"force: 1, follower, 2, position, 0.2, 0.5, -0.3, 0.4, 1., -0.7, 2.;",
             "force: 1, follower, 3, position, 0.1, -0.1, 0.6, single, 1., 0., 0.5, 4.;"});
    AddLoad(r, "couple", "absolute", "couple fixed in the global frame on a node",
            f::ReadAbsoluteCouple, {"couple: 1, absolute, 1, 0.3, -1., 2., 1.5;"});
    AddLoad(r, "couple", "follower", "couple fixed in the node frame on a node",
            f::ReadFollowerCouple,
            {"couple: 1, follower, 2, position, 0.1, 0.2, 0.3, 1., 2., -0.5, 2.;",
             "couple: 1, follower, 3, -0.4, 0.2, 1., -3.;"});
    return 0;
}
