// Congestion controls by name.
#pragma once

#include <functional>
#include <memory>

#include "sim/registry.h"
#include "transport/congestion_control.h"

namespace rocelab {

using CcFactory = std::function<std::unique_ptr<CongestionControl>()>;
const Registry<CcFactory>& cc_registry();

}  // namespace rocelab
