// mbstep — plugin entry point of the Newmark family (second-order formulations). Each method is
// a coefficient set of SecondOrderStep (mbstep/integrator/second_order_step.hpp) in its own .cpp
// (every .cpp of this folder is a source) with a Register function: one row of the table below.
#include "generalized_alpha.hpp"
#include "hht.hpp"
#include "mbstep/plugin/registry.hpp"

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    using namespace mbstep;
    if (abi != kPluginAbi) return 1;
    for (void (*add)(Registry&) : {
             newmark::RegisterHht,
             newmark::RegisterGeneralizedAlpha,
         })
        add(r);
    return 0;
}
