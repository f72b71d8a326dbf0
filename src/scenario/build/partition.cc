#include "scenario/build/partition.h"

#include <algorithm>

namespace rocelab {

PartitionPlan plan_partitions(const Network& net, uint32_t partitions) {
  const Routing& routing = net.healthy_routing();
  const std::vector<uint32_t>& edges = routing.edge_switches();
  PartitionPlan plan;
  plan.count = std::max<uint32_t>(1, std::min<uint32_t>(partitions, edges.size()));
  plan.node_partition.assign(net.node_count(), 0);
  // Edge switches in runs of neighbours (a pod's, a rail's leaves are adjacent ids).
  for (size_t i = 0; i < edges.size(); ++i)
    plan.node_partition[edges[i]] = static_cast<uint32_t>(i * plan.count / edges.size());
  uint32_t next = 0;
  for (const NodeId sw : net.switches())
    if (!routing.is_edge(sw.index())) plan.node_partition[sw.index()] = next++ % plan.count;
  for (const NodeId h : net.hosts())
    plan.node_partition[h.index()] = plan.node_partition[routing.edge_of_host(h.index())];
  const auto& links = net.topology().links;
  for (uint32_t l = 0; l < links.size(); ++l) {
    if (plan.node_partition[links[l].a] == plan.node_partition[links[l].b]) continue;
    plan.cut_links.push_back(l);
    plan.lookahead = std::min(plan.lookahead, links[l].delay);
  }
  return plan;
}

}  // namespace rocelab
