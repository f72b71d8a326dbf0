// How a network is cut into partitions for a parallel run (issue 52, docs/parallel.md):
// each host with its edge switch, the edge switches in runs of neighbours, the switches
// above them spread round robin. Links between partitions are cut; the smallest delay of a
// cut link is the lookahead.
#pragma once

#include <cstdint>
#include <string>
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

// How a scenario asks to cut (parallel.partition). auto: runs of neighbouring edge switches,
// `partitions` of them, the switches above round robin. pod: a fat-tree's pods (edge and
// aggregation switches), the cores round robin. rail: a rail fabric's rails (the leaves
// whose hosts are NIC i of their servers). switch: every edge switch with its hosts, and
// every other switch, a partition of its own. With pod and rail a switch above the edge
// goes with the partition of all its downward neighbours when they share one.
enum class PartitionBy : uint8_t { kAuto, kPod, kRail, kSwitch };
const std::vector<std::string>& partition_by_names();  // in enum order
PartitionBy partition_by(const std::string& name);

// At most `partitions` partitions with kAuto (fewer when the network has fewer edge
// switches); as many as the structure gives otherwise. Each pair of hosts in `together`
// (node ids) ends up in one partition, with their edge switches: hosts whose events act on
// each other's state at once (flow dependencies). Throws std::invalid_argument when the
// network has no such structure (pods on a leaf-spine).
PartitionPlan plan_partitions(const Network& net, uint32_t partitions,
                              const std::vector<std::pair<uint32_t, uint32_t>>& together = {},
                              PartitionBy by = PartitionBy::kAuto);

}  // namespace rocelab
