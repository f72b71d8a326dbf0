#include "scenario/build/partition.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rocelab {

namespace {

// Edge switches that must share a partition, as groups: each edge switch's group, by its
// place in `edges`, numbered in the order of each group's first edge switch.
// `same_edges`: pairs of edge switches (node ids) that share a partition too (a pod's).
std::vector<uint32_t> edge_groups(const Routing& routing, size_t node_count,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& together,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& same_edges,
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
  auto join = [&](uint32_t edge_a, uint32_t edge_b) {
    const uint32_t ra = root(place[edge_a]), rb = root(place[edge_b]);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);  // the first edge leads
  };
  for (const auto& [a, b] : together) join(routing.edge_of_host(a), routing.edge_of_host(b));
  for (const auto& [a, b] : same_edges) join(a, b);
  std::vector<uint32_t> group(edges.size()), number(edges.size(), UINT32_MAX);
  group_count = 0;
  for (uint32_t i = 0; i < edges.size(); ++i) {
    uint32_t& n = number[root(i)];
    if (n == UINT32_MAX) n = group_count++;
    group[i] = n;
  }
  return group;
}

// Edge switches of one pod: those that share an aggregation switch below a core (a
// leaf-spine's spines are aggregation switches with nothing above them: no pods).
std::vector<std::pair<uint32_t, uint32_t>> pod_edges(const Network& net) {
  const TopologySpec& topo = net.topology();
  std::vector<uint8_t> below_core(topo.nodes.size(), 0);
  for (const LinkSpec& l : topo.links) {
    if (topo.nodes[l.a].layer == Layer::kCore) below_core[l.b] = 1;
    if (topo.nodes[l.b].layer == Layer::kCore) below_core[l.a] = 1;
  }
  std::vector<uint32_t> first_edge(topo.nodes.size(), UINT32_MAX);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  bool any = false;
  for (const LinkSpec& l : topo.links) {
    for (const auto& [edge, up] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (!net.healthy_routing().is_edge(edge) || topo.nodes[up].layer != Layer::kAggregation ||
          !below_core[up])
        continue;
      any = true;
      if (first_edge[up] == UINT32_MAX)
        first_edge[up] = edge;
      else
        pairs.emplace_back(first_edge[up], edge);
    }
  }
  if (!any)
    throw std::invalid_argument(
        "parallel.partition: pod: this topology has no pods (no aggregation switches between its "
        "edge and core switches; a fat-tree has them)");
  return pairs;
}

// Edge switches of one rail: those whose hosts are NIC i of their servers.
std::vector<std::pair<uint32_t, uint32_t>> rail_edges(const Network& net) {
  const TopologySpec& topo = net.topology();
  const Routing& routing = net.healthy_routing();
  std::vector<uint32_t> rail_of_edge(topo.nodes.size(), UINT32_MAX);
  std::vector<uint32_t> first_of_rail;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  // Every port of a NIC is on its rail (a plane's copy of the rail, a ToR of a pair).
  for (const NodeId h : net.hosts())
    for (uint32_t port = 0; port < routing.port_count(h.index()); ++port) {
      const NodeSpec& host = topo.nodes[h.index()];
      const uint32_t edge = routing.edge_of_host(h.index(), port);
      if (host.server == NodeSpec::kNoServer)
        throw std::invalid_argument("parallel.partition: rail: host " + host.name +
                                    " is not a NIC of a multi-NIC server (a rail_optimized "
                                    "topology's hosts are)");
      uint32_t& rail = rail_of_edge[edge];
      if (rail == UINT32_MAX) {
        rail = host.nic;
        if (first_of_rail.size() <= rail) first_of_rail.resize(rail + 1, UINT32_MAX);
        if (first_of_rail[rail] == UINT32_MAX)
          first_of_rail[rail] = edge;
        else
          pairs.emplace_back(first_of_rail[rail], edge);
      } else if (rail != host.nic) {
        throw std::invalid_argument("parallel.partition: rail: switch " + topo.nodes[edge].name +
                                    " holds NICs of several rails (layout: tor?)");
      }
    }
  return pairs;
}

// pod, rail: a switch above the edge whose downward neighbours all lie in one partition
// joins it; the others go round robin.
void place_upper_switches(const Network& net, PartitionPlan& plan, bool follow_below,
                          bool own_partitions) {
  const TopologySpec& topo = net.topology();
  const Routing& routing = net.healthy_routing();
  std::vector<uint32_t> below(topo.nodes.size(), UINT32_MAX);  // UINT32_MAX - 1: several
  if (follow_below) {
    // Layer by layer upwards, so an aggregation switch's partition is known to its cores.
    for (const Layer layer : {Layer::kAggregation, Layer::kCore}) {
      for (const LinkSpec& l : topo.links) {
        for (const auto& [up, down] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
          if (topo.nodes[up].layer != layer || topo.nodes[down].layer >= layer) continue;
          if (topo.nodes[down].kind != NodeKind::kSwitch) continue;
          // An edge switch's partition; a switch above the edge's if it followed its own
          // (one that did not counts as several).
          const uint32_t p = routing.is_edge(down) ? plan.node_partition[down] : below[down];
          uint32_t& b = below[up];
          b = p < UINT32_MAX - 1 && (b == UINT32_MAX || b == p) ? p : UINT32_MAX - 1;
        }
      }
      for (const NodeId sw : net.switches())
        if (topo.nodes[sw.index()].layer == layer && below[sw.index()] < UINT32_MAX - 1)
          plan.node_partition[sw.index()] = below[sw.index()];
    }
  }
  uint32_t next = 0;
  const uint32_t lower = plan.count;
  for (const NodeId sw : net.switches()) {
    if (routing.is_edge(sw.index()) || below[sw.index()] < UINT32_MAX - 1) continue;
    plan.node_partition[sw.index()] = own_partitions ? plan.count++ : next++ % lower;
  }
}

}  // namespace

const std::vector<std::string>& partition_by_names() {
  static const std::vector<std::string> names = {"auto", "pod", "rail", "switch"};
  return names;
}

PartitionBy partition_by(const std::string& name) {
  const auto& names = partition_by_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument("parallel.partition: '" + name +
                                "' is not one of auto, pod, rail, switch");
  return static_cast<PartitionBy>(it - names.begin());
}

PartitionPlan plan_partitions(const Network& net, uint32_t partitions,
                              const std::vector<std::pair<uint32_t, uint32_t>>& together,
                              PartitionBy by) {
  const Routing& routing = net.healthy_routing();
  const std::vector<uint32_t>& edges = routing.edge_switches();
  std::vector<std::pair<uint32_t, uint32_t>> same_edges =
      by == PartitionBy::kPod    ? pod_edges(net)
      : by == PartitionBy::kRail ? rail_edges(net)
                                 : std::vector<std::pair<uint32_t, uint32_t>>{};
  // A host goes with its edge switch: with a port per plane or ToR, with all of them, so no
  // host link is cut (a NIC's ports share its transport).
  for (const NodeId h : net.hosts())
    for (uint32_t port = 1; port < routing.port_count(h.index()); ++port)
      same_edges.emplace_back(routing.edge_of_host(h.index()),
                              routing.edge_of_host(h.index(), port));
  uint32_t groups = 0;
  const std::vector<uint32_t> group =
      edge_groups(routing, net.node_count(), together, same_edges, groups);
  if (by != PartitionBy::kAuto) partitions = groups;  // a partition per group
  // Groups in runs of neighbours (a pod's, a rail's leaves are adjacent ids), each run about
  // the same number of edge switches; a partition a large group leaves empty is dropped.
  std::vector<uint32_t> group_size(groups, 0), group_partition(groups, 0);
  for (const uint32_t g : group) ++group_size[g];
  const uint32_t wanted = std::max<uint32_t>(1, std::min<uint32_t>(partitions, groups));
  uint32_t before = 0, used = 0, last = UINT32_MAX;
  for (uint32_t g = 0; g < groups; ++g) {
    const auto run = by == PartitionBy::kAuto
                         ? static_cast<uint32_t>(uint64_t{before} * wanted / edges.size())
                         : g;
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
  if (by == PartitionBy::kAuto) {
    uint32_t next = 0;
    for (const NodeId sw : net.switches())
      if (!routing.is_edge(sw.index())) plan.node_partition[sw.index()] = next++ % plan.count;
  } else {
    place_upper_switches(net, plan, by != PartitionBy::kSwitch, by == PartitionBy::kSwitch);
  }
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
