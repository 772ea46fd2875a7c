// mbstep — registration of the springs family (STYLE.md §7).
#include "mbstep/plugin/registry.hpp"
#include "springs.hpp"

namespace {
void AddSpring(mbstep::Registry& r, const char* name, const char* text,
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
    namespace s = mbstep::springs;
    if (abi != mbstep::kPluginAbi) return 1;
    AddSpring(r, "rod", "axial spring-damper between two points (linear (visco)elastic law)",
              s::ReadRod,
              {"joint: 1, rod, 1, position, 0.1, 0.2, 0.3, 2, position, -0.2, 0.1, 0.4, 1.5, "
               "linear viscoelastic, 100., 3.;",
               "joint: 1, rod, 3, 2, from nodes, linear elastic, 50.;",
               "joint: 1, rod, 1, 2, position, 0.3, 0., 0., 2., linear viscoelastic, 80., "
               "proportional, 0.1;"});
    AddSpring(r, "deformable hinge",
              "rotational spring-damper between two nodes (linear (visco)elastic law)",
              s::ReadDeformableHinge,
              {"joint: 1, deformable hinge, 1, hinge, euler123, 0.3, -0.2, 0.1, 2, hinge, eye, "
               "linear viscoelastic, 10., 2.;",
               "joint: 1, deformable hinge, 1, position, 0.1, 0., 0., 3, orientation, euler123, "
               "0.1, 0.2, 0.3, linear elastic generic, diag, 5., 10., 20.;",
               "joint: 1, deformable hinge, 2, 1, linear viscoelastic generic, "
               "sym, 10., 1., 2., 20., 3., 30., proportional, 0.05;"});
    return 0;
}
