// The scenario's `events:` and `faults:` resolved against its topology (node names to
// links and hosts) and checked: an unknown node, a link that is not there, a time after
// the run's end or a rate above the link's is a ConfigError naming the key.
#pragma once

#include "net/faults.h"
#include "scenario/config/scenario_config.h"

namespace rocelab {

// `data_priority`: the class a stalled NIC's PAUSEs hold unless its event says.
FaultsConfig build_faults(const ScenarioConfig& c, const TopologySpec& topo, Time stop,
                          Priority data_priority);

}  // namespace rocelab
