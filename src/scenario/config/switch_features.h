// Switch features by name (`switch.features`; RED/ECN is `ecn`, on with switch.ecn.enabled).
// The registry lives in the scenario layer because features come from every scheme
// family: ECN from net/, INT stamping with HPCC (cc/), utilisation estimators with CONGA
// (lb/).
#pragma once

#include <functional>
#include <memory>

#include "net/net_context.h"
#include "net/switch_feature.h"
#include "sim/registry.h"

namespace rocelab {

using SwitchFeatureFactory =
    std::function<std::unique_ptr<SwitchFeatureConfig>(NetCounterLanes& counters)>;
// Mutable, as the loss recoveries': a test (or a user's own build) registers a feature.
Registry<SwitchFeatureFactory>& switch_feature_registry();

}  // namespace rocelab
