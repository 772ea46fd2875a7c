// mbstep — registration of the joint family (STYLE.md §7).
#include "clamp.hpp"
#include "mbstep/plugin/registry.hpp"
#include "revolute.hpp"
#include "spherical.hpp"

namespace {
void AddJoint(mbstep::Registry& r, const char* name, const char* text,
              std::function<std::unique_ptr<mbstep::Element>(mbstep::ElementReadArgs&)> read,
              std::vector<std::string> snippets) {
    mbstep::ElementDescriptor d;
    d.statement = "joint";
    d.name = name;
    d.description = text;
    d.read = std::move(read);
    d.test_snippets = std::move(snippets);
    r.Add(std::move(d));
}
}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    namespace j = mbstep::joints;
    if (abi != mbstep::kPluginAbi) return 1;
    AddJoint(r, "clamp", "fixes a node's position and orientation (6 multipliers)", j::ReadClamp,
             {"joint: 1, clamp, 1, node, node;",
              "joint: 1, clamp, 2, position, 0.1, -0.2, 0.3, "
              "orientation, euler123, 0.2, -0.4, 0.7;"});
    AddJoint(r, "spherical hinge", "common point of two nodes (3 multipliers)",
             j::ReadSphericalHinge,
             {"joint: 1, spherical hinge, 1, position, 0.1, 0.2, 0.3, "
              "2, position, -0.2, 0.1, 0.4;",
              "joint: 1, spherical hinge, 1, position, 0.3, -0.1, 0.2, "
              "orientation, euler123, 0.1, 0.2, 0.3, 3, position, 0.2, 0.2, -0.5;"});
    AddJoint(r, "spherical pin", "node point fixed to a ground point (3 multipliers)",
             j::ReadSphericalPin,
             {"joint: 1, spherical pin, 2, position, 0.4, -0.3, 0.2, "
              "position, 1., 2., -0.5;"});
    AddJoint(r, "revolute hinge",
             "relative rotation of two nodes about a common axis "
             "(5 multipliers)",
             j::ReadRevoluteHinge,
             {"joint: 1, revolute hinge, 1, position, 0.1, 0.2, 0.3, "
              "orientation, euler123, 0.3, -0.2, 0.1, "
              "2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2;",
              "joint: 1, revolute hinge, 3, position, 0.2, -0.3, 0.1, "
              "2, position, 0.1, 0.1, -0.2, hinge, euler123, 0.6, 0.1, -0.3;"});
    AddJoint(r, "revolute pin", "rotation of a node about a ground axis (5 multipliers)",
             j::ReadRevolutePin,
             {"joint: 1, revolute pin, 1, position, 0.3, 0.1, -0.2, "
              "orientation, euler123, 0.2, 0.5, -0.1, "
              "position, 0.5, -1., 2., orientation, euler123, -0.3, 0.2, 0.4;"});
    return 0;
}
