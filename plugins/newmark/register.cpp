// mbstep — plugin entry point of the Newmark family (second-order formulations). Each method is
// a coefficient set of SecondOrderStep (mbstep/integrator/second_order_step.hpp) in its own .cpp
// (every .cpp of this folder is a source) that defines `void newmark::Register<Name>(Registry&)`;
// adding a method adds that file and one row to the table below, nothing else.
#include "mbstep/plugin/registry.hpp"

// The table: one X(...) row per method, in the order `mbstep plugins` lists them.
#define MBSTEP_NEWMARK_METHODS(X) \
    X(RegisterHht)                \
    X(RegisterGeneralizedAlpha)

namespace mbstep::newmark {
#define MBSTEP_DECLARE_REGISTER(f) void f(Registry& r);
MBSTEP_NEWMARK_METHODS(MBSTEP_DECLARE_REGISTER)
#undef MBSTEP_DECLARE_REGISTER
}  // namespace mbstep::newmark

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
#define MBSTEP_CALL_REGISTER(f) newmark::f(r);
    MBSTEP_NEWMARK_METHODS(MBSTEP_CALL_REGISTER)
#undef MBSTEP_CALL_REGISTER
    return 0;
}
