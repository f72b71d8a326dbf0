// Congestion controls by name.
#pragma once

#include <functional>
#include <memory>

#include "sim/registry.h"
#include "transport/congestion_control.h"

namespace rocelab {

using CcConfigFactory = std::function<std::unique_ptr<CcConfig>()>;
const Registry<CcConfigFactory>& cc_registry();

}  // namespace rocelab
