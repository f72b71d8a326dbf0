// Switch load balancers by name.
#pragma once

#include <functional>
#include <memory>

#include "net/load_balancer.h"
#include "net/switch_node.h"
#include "sim/registry.h"

namespace rocelab {

// Builds the instance for one switch; nullptr means "plain ECMP hashing" on that switch.
using LbFactory = std::function<std::unique_ptr<LoadBalancer>(Switch&)>;
const Registry<LbFactory>& lb_registry();

}  // namespace rocelab
