// Switch load balancers by name.
#pragma once

#include <functional>
#include <memory>

#include "net/load_balancer.h"
#include "sim/registry.h"

namespace rocelab {

// Makes the scheme's default configuration (then read from the scenario, then built).
using LbConfigFactory = std::function<std::unique_ptr<LbConfig>()>;
const Registry<LbConfigFactory>& lb_registry();

}  // namespace rocelab
