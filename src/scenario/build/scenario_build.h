// Turns a ScenarioConfig into an ExperimentSpec: builds or imports the topology, resolves
// host names, generates every workload's flows from its own random stream.
#pragma once

#include <string>
#include <vector>

#include "scenario/build/experiment.h"
#include "scenario/config/scenario_config.h"

namespace rocelab {

// Throws ConfigError for problems only visible now (unknown host names, a missing file).
ExperimentSpec build_experiment(ScenarioConfig& c);
TopologySpec build_topology(const TopologyConfig& t);
// The node id of the host named `name`; ConfigError naming `key` when there is none.
uint32_t resolve_host(const TopologySpec& topo, const std::string& name, const std::string& key);
// Host node ids for names, "a..b" ranges and "all".
std::vector<uint32_t> resolve_hosts(const TopologySpec& topo, const std::vector<std::string>& names,
                                    const std::string& key);
// Shipped flow-size CDFs (name -> file).
std::vector<std::pair<std::string, std::string>> shipped_cdfs();
std::string resolve_cdf(const std::string& name_or_path);
// ConfigError when a switch's PFC headroom takes its whole buffer.
void check_buffer_covers_headroom(const ExperimentSpec& spec);
// transport.rto: 0 (no timer) in a fabric that may drop: a ConfigError.
void check_timer_or_lossless(const ExperimentSpec& spec);

}  // namespace rocelab
