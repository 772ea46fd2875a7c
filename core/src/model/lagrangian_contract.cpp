// mbstep — the Lagrangian contract (lagrangian_contract.hpp): its vtable lives in the core.
#include "mbstep/model/lagrangian_contract.hpp"

namespace mbstep {

LagrangianContract::~LagrangianContract() = default;

}  // namespace mbstep
