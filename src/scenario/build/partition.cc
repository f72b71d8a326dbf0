#include "scenario/build/partition.h"

#include <algorithm>
#include <numeric>

namespace rocelab {

namespace {

// Edge switches that must share a partition, as groups: each edge switch's group, by its
// place in `edges`, numbered in the order of each group's first edge switch.
std::vector<uint32_t> edge_groups(const Routing& routing, size_t node_count,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& together,
                                  uint32_t& group_count) {
  const std::vector<uint32_t>& edges = routing.edge_switches();
  std::vector<uint32_t> place(node_count, 0);
  for (uint32_t i = 0; i < edges.size(); ++i) place[edges[i]] = i;
  std::vector<uint32_t> parent(edges.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const auto& [a, b] : together) {
    const uint32_t ra = root(place[routing.edge_of_host(a)]);
    const uint32_t rb = root(place[routing.edge_of_host(b)]);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);  // the first edge leads
  }
  std::vector<uint32_t> group(edges.size()), number(edges.size(), UINT32_MAX);
  group_count = 0;
  for (uint32_t i = 0; i < edges.size(); ++i) {
    uint32_t& n = number[root(i)];
    if (n == UINT32_MAX) n = group_count++;
    group[i] = n;
  }
  return group;
}

}  // namespace

PartitionPlan plan_partitions(const Network& net, uint32_t partitions,
                              const std::vector<std::pair<uint32_t, uint32_t>>& together) {
  const Routing& routing = net.healthy_routing();
  const std::vector<uint32_t>& edges = routing.edge_switches();
  uint32_t groups = 0;
  const std::vector<uint32_t> group = edge_groups(routing, net.node_count(), together, groups);
  // Groups in runs of neighbours (a pod's, a rail's leaves are adjacent ids), each run about
  // the same number of edge switches; a partition a large group leaves empty is dropped.
  std::vector<uint32_t> group_size(groups, 0), group_partition(groups, 0);
  for (const uint32_t g : group) ++group_size[g];
  const uint32_t wanted = std::max<uint32_t>(1, std::min<uint32_t>(partitions, groups));
  uint32_t before = 0, used = 0, last = UINT32_MAX;
  for (uint32_t g = 0; g < groups; ++g) {
    const auto run = static_cast<uint32_t>(uint64_t{before} * wanted / edges.size());
    if (run != last) {
      last = run;
      ++used;
    }
    group_partition[g] = used - 1;
    before += group_size[g];
  }
  PartitionPlan plan;
  plan.count = std::max<uint32_t>(1, used);
  plan.node_partition.assign(net.node_count(), 0);
  for (size_t i = 0; i < edges.size(); ++i)
    plan.node_partition[edges[i]] = group_partition[group[i]];
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
