// mbstep — registration of the beam family (STYLE.md §7; beam.hpp).
#include "beam.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    namespace b = mbstep::beams;
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d3;
    d3.statement = "beam3";
    d3.description = "three-node finite-volume beam (geometrically exact, shear-deformable)";
    d3.read = b::ReadBeam3;
    d3.test_snippets = {
        "beam3: 1, 1, null, 2, null, 3, null, eye, linear elastic generic, diag, 1.e3, 4.e2, "
        "5.e2, 20., 30., 40., same, same;",
        "beam3: 1, 1, position, 0.1, -0.05, 0.02, 3, position, null, 2, 0., 0.03, 0.01, "
        "euler123, 0.1, -0.2, 0.3, linear viscoelastic generic, sym, 1.e3, 10., 0., 5., 0., 2., "
        "4.e2, 0., 0., 0., 0., 5.e2, 0., 0., 0., 20., 1., 0., 30., 0., 40., proportional, 0.05, "
        "from nodes, linear elastic generic, diag, 9.e2, 3.e2, 4.e2, 10., 20., 30.;",
        "beam3: 1, 2, null, orientation, euler123, 0.2, 0.1, -0.1, 1, null, orientation, eye, 3, "
        "null, from nodes, linear viscoelastic isotropic, section, 7.e4, 0.3, 1.e-2, 2.e-5, "
        "1.e-5, 1.5e-5, 50., same, same;"};
    r.Add(d3);
    mbstep::ElementDescriptor d2;
    d2.statement = "beam2";
    d2.description = "two-node finite-volume beam (geometrically exact, shear-deformable)";
    d2.read = b::ReadBeam2;
    d2.test_snippets = {
        "beam2: 1, 1, null, 2, null, eye, linear elastic generic, diag, 1.e3, 4.e2, 5.e2, 20., "
        "30., 40.;",
        "beam2: 1, 3, position, 0.1, 0.2, -0.1, 2, null, from nodes, linear viscoelastic generic, "
        "diag, 1.e3, 4.e2, 5.e2, 20., 30., 40., proportional, 0.1;"};
    r.Add(d2);
    return 0;
}
