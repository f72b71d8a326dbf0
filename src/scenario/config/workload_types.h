// Workload types by name (workloads[].type). Each type reads and checks its own keys of a
// workload and generates its flows; adding a type is a describe/generate pair (plus its
// fields in WorkloadConfig) and one line in workload_registry().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "net/routing.h"
#include "net/topology.h"
#include "scenario/config/scenario_config.h"
#include "sim/params.h"
#include "sim/random.h"
#include "sim/registry.h"
#include "workload/collective.h"
#include "workload/flow_spec.h"

namespace rocelab {

// What a workload's flows are generated against.
struct WorkloadContext {
  const TopologySpec& topo;
  const std::vector<uint32_t>& rack;  // node id -> the edge switch a host hangs off
  const std::string& key;             // "workloads.<i>": errors name their key under it
  RandomStream& rng;                  // the workload's own stream (by its name and index)
  // The topology's routing (path IDs between edge switches), built on first use.
  const std::function<const Routing&()>& routing;
  // Where a workload of collectives lists them (first_flow indexes its own flows).
  std::vector<CollectiveSpec>& collectives;
  size_t index = 0;  // the workload's place in workloads
};

struct WorkloadType {
  // The type's keys of a workload (read, written back, listed by `params`).
  std::function<void(ParamVisitor&, WorkloadConfig&)> describe;
  // The flows; ConfigError, naming a key under context.key, for what only shows now.
  std::function<std::vector<FlowSpec>(const WorkloadConfig&, const WorkloadContext&)> generate;
};

const Registry<WorkloadType>& workload_registry();

}  // namespace rocelab
