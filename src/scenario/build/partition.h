// How a network is cut into partitions for a parallel run (issue 52, docs/parallel.md):
// each host with its edge switch, the edge switches in runs of neighbours, the switches
// above them spread round robin. Links between partitions are cut; the smallest delay of a
// cut link is the lookahead.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "net/network.h"

namespace rocelab {

struct PartitionPlan {
  uint32_t count = 1;
  std::vector<uint32_t> node_partition;  // by node id
  std::vector<uint32_t> cut_links;       // TopologySpec::links indices
  Delta lookahead = Delta::max();        // the smallest delay of a cut link
};

// At most `partitions` partitions (fewer when the network has fewer edge switches). Each
// pair of hosts in `together` (node ids) ends up in one partition, with their edge
// switches: hosts whose events act on each other's state at once (flow dependencies).
PartitionPlan plan_partitions(const Network& net, uint32_t partitions,
                              const std::vector<std::pair<uint32_t, uint32_t>>& together = {});

}  // namespace rocelab
