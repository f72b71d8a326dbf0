// The `collective` workload type (docs/workloads.md): a job's collectives as flows with
// dependencies, its ranks placed on the topology's hosts.
#pragma once

#include <vector>

#include "scenario/config/workload_types.h"

namespace rocelab {

void describe_collective_workload(ParamVisitor& v, WorkloadConfig& w);
std::vector<FlowSpec> generate_collective_workload(const WorkloadConfig& w,
                                                   const WorkloadContext& ctx);

}  // namespace rocelab
