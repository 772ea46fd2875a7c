// mbstep — registration of the `lagrangian` genel (STYLE.md §7).
#include "lagrangian.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d;
    d.statement = "genel";
    d.name = "lagrangian";
    d.description =
        "T(q, v), V(q, x) and holonomic constraints g(q, x) = 0 of abstract nodes q as "
        "expressions, x the positions of structural nodes (a force at their reference points); "
        "exact second derivatives; singular T_vv allowed";
    d.read = mbstep::lagrangian::Read;
    // Read with abstract nodes 1, 2, 3 (tests/elements/element_builder.hpp); every block of
    // the Lagrangian contract is non-zero (T_qv through the last term).
    d.test_snippets = {
        "genel: 1, lagrangian, coordinates, 3, 1, \"a\", \"ua\", 2, \"b\", \"ub\", 3, \"c\", "
        "\"uc\", kinetic energy, \"0.5*(ua^2 + (1 + a^2)*ub^2 + uc^2) + 0.1*a*ua*uc*cos(b)\", "
        "potential energy, \"a^4 + exp(0.2*b)*c\", constraints, 1, \"a*cos(b) + c^2 - 0.5\";",
        // With positions of structural nodes 1 and 2 (the test nodes; the deck has both node
        // kinds): every twist-space block (K's force x translation quadrants, L, phi_q) and the
        // mixed blocks V_qx, G_x, g_qx are non-zero.
        "genel: 1, lagrangian, coordinates, 2, 1, \"a\", \"ua\", 2, \"b\", \"ub\", positions, 2, "
        "1, \"x1\", \"y1\", \"z1\", 2, \"x2\", \"y2\", \"z2\", kinetic energy, \"0.5*(ua^2 + (1 + "
        "a^2)*ub^2)\", potential energy, \"1.5*(a - x1)^2 + b*y1*z2 + 0.1*(x2 - x1)^2*a + cos(b + "
        "y2)\", constraints, 2, \"a*x1 + b^2*z1 - y2\", \"x1*x2 + sin(a*z2)\";"};
    r.Add(std::move(d));
    return 0;
}
