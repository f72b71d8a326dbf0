// Topology types by name (topology.type). Each type reads and checks its own keys of the
// `topology` section and builds its fabric; adding a type is a describe/build pair and one
// line in topology_registry().
#pragma once

#include <functional>

#include "net/topology.h"
#include "scenario/config/scenario_config.h"
#include "sim/params.h"
#include "sim/registry.h"

namespace rocelab {

struct TopologyType {
  // The type's keys of the `topology` section (read, written back, listed by `params`).
  std::function<void(ParamVisitor&, TopologyConfig&)> describe;
  // The fabric; ConfigError for what only shows now (e.g. a malformed topology file).
  std::function<TopologySpec(const TopologyConfig&)> build;
};

const Registry<TopologyType>& topology_registry();

}  // namespace rocelab
