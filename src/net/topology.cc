#include "net/topology.h"

#include <stdexcept>

#include <fmt/format.h>

namespace rocelab {

const char* layer_name(Layer layer) {
  switch (layer) {
    case Layer::kHost:
      return "host";
    case Layer::kEdge:
      return "edge";
    case Layer::kAggregation:
      return "aggregation";
    case Layer::kCore:
      return "core";
  }
  return "?";
}

uint32_t TopologySpec::add_node(NodeKind kind, Layer layer, std::string name) {
  nodes.push_back(NodeSpec{kind, layer, std::move(name), NodeSpec::kNoServer, 0});
  return static_cast<uint32_t>(nodes.size() - 1);
}

void TopologySpec::add_link(uint32_t a, uint32_t b, BitsPerSec rate_bps, Delta delay) {
  links.push_back(LinkSpec{a, b, rate_bps, delay});
}

int TopologySpec::set_link_rate(const std::string& a, const std::string& b, BitsPerSec rate_bps) {
  const uint32_t na = find(a), nb = find(b);
  int changed = 0;
  for (LinkSpec& l : links) {
    if ((l.a == na && l.b == nb) || (l.a == nb && l.b == na)) {
      l.rate_bps = rate_bps;
      ++changed;
    }
  }
  return changed;
}

std::vector<uint32_t> TopologySpec::hosts() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeKind::kHost) out.push_back(i);
  return out;
}

std::vector<uint32_t> TopologySpec::switches() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeKind::kSwitch) out.push_back(i);
  return out;
}

uint32_t TopologySpec::find(const std::string& name) const {
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return i;
  throw std::invalid_argument("topology has no node named '" + name + "'");
}

TopologySpec leaf_spine(const LeafSpineParams& p) {
  TopologySpec t;
  t.description = "leaf-spine " + std::to_string(p.leaves) + "x" + std::to_string(p.spines) + ", " +
                  std::to_string(p.hosts_per_leaf) + " hosts/leaf";
  for (uint32_t l = 0; l < p.leaves; ++l)
    for (uint32_t h = 0; h < p.hosts_per_leaf; ++h)
      t.add_node(NodeKind::kHost, Layer::kHost, fmt::format("h{}", l * p.hosts_per_leaf + h));
  const uint32_t first_leaf = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t l = 0; l < p.leaves; ++l)
    t.add_node(NodeKind::kSwitch, Layer::kEdge, fmt::format("leaf{}", l));
  const uint32_t first_spine = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t s = 0; s < p.spines; ++s)
    t.add_node(NodeKind::kSwitch, Layer::kAggregation, fmt::format("spine{}", s));
  for (uint32_t l = 0; l < p.leaves; ++l)
    for (uint32_t h = 0; h < p.hosts_per_leaf; ++h)
      t.add_link(l * p.hosts_per_leaf + h, first_leaf + l, p.host_rate_bps, p.link_delay);
  for (uint32_t l = 0; l < p.leaves; ++l)
    for (uint32_t s = 0; s < p.spines; ++s)
      t.add_link(first_leaf + l, first_spine + s, p.fabric_rate_bps, p.link_delay);
  return t;
}

TopologySpec rail_optimized(const RailParams& p) {
  TopologySpec t;
  const uint32_t groups = (p.servers + p.servers_per_group - 1) / p.servers_per_group;
  const uint32_t leaf_count = p.rail_layout ? groups * p.nics_per_server : groups;
  t.description = fmt::format("{} {} servers x {} NICs, {} leaves ({} servers each), {} spines",
                              p.rail_layout ? "rail-optimised" : "ToR", p.servers,
                              p.nics_per_server, leaf_count, p.servers_per_group, p.spines);
  for (uint32_t s = 0; s < p.servers; ++s)
    for (uint32_t n = 0; n < p.nics_per_server; ++n) {
      const uint32_t h =
          t.add_node(NodeKind::kHost, Layer::kHost, fmt::format("h{}", s * p.nics_per_server + n));
      t.nodes[h].server = s;
      t.nodes[h].nic = static_cast<uint16_t>(n);
    }
  const uint32_t first_leaf = static_cast<uint32_t>(t.nodes.size());
  const uint32_t leaves = p.rail_layout ? groups * p.nics_per_server : groups;
  for (uint32_t l = 0; l < leaves; ++l)
    t.add_node(NodeKind::kSwitch, Layer::kEdge,
               p.rail_layout
                   ? fmt::format("rail{}_g{}", l % p.nics_per_server, l / p.nics_per_server)
                   : fmt::format("tor{}", l));
  const uint32_t first_spine = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t k = 0; k < p.spines; ++k)
    t.add_node(NodeKind::kSwitch, Layer::kAggregation, fmt::format("spine{}", k));
  for (uint32_t s = 0; s < p.servers; ++s)
    for (uint32_t n = 0; n < p.nics_per_server; ++n) {
      const uint32_t group = s / p.servers_per_group;
      const uint32_t leaf = p.rail_layout ? group * p.nics_per_server + n : group;
      t.add_link(s * p.nics_per_server + n, first_leaf + leaf, p.host_rate_bps, p.link_delay);
    }
  for (uint32_t l = 0; l < leaves; ++l)
    for (uint32_t k = 0; k < p.spines; ++k)
      t.add_link(first_leaf + l, first_spine + k, p.fabric_rate_bps, p.link_delay);
  return t;
}

TopologySpec fat_tree(const FatTreeParams& p) {
  if (p.aggs_per_pod == 0 || p.cores % p.aggs_per_pod != 0)
    throw std::invalid_argument("fat_tree: cores must be a multiple of aggs_per_pod");
  TopologySpec t;
  t.description = "fat-tree " + std::to_string(p.pods) + " pods, " +
                  std::to_string(p.edges_per_pod) + " edge + " + std::to_string(p.aggs_per_pod) +
                  " agg/pod, " + std::to_string(p.cores) + " cores";
  const uint32_t hosts_per_pod = p.edges_per_pod * p.hosts_per_edge;
  for (uint32_t i = 0; i < p.pods * hosts_per_pod; ++i)
    t.add_node(NodeKind::kHost, Layer::kHost, fmt::format("h{}", i));
  const uint32_t first_edge = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t i = 0; i < p.pods * p.edges_per_pod; ++i)
    t.add_node(NodeKind::kSwitch, Layer::kEdge, fmt::format("edge{}", i));
  const uint32_t first_agg = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t i = 0; i < p.pods * p.aggs_per_pod; ++i)
    t.add_node(NodeKind::kSwitch, Layer::kAggregation, fmt::format("agg{}", i));
  const uint32_t first_core = static_cast<uint32_t>(t.nodes.size());
  for (uint32_t i = 0; i < p.cores; ++i)
    t.add_node(NodeKind::kSwitch, Layer::kCore, fmt::format("core{}", i));

  const uint32_t cores_per_agg = p.cores / p.aggs_per_pod;
  for (uint32_t pod = 0; pod < p.pods; ++pod) {
    for (uint32_t e = 0; e < p.edges_per_pod; ++e) {
      const uint32_t edge = first_edge + pod * p.edges_per_pod + e;
      for (uint32_t h = 0; h < p.hosts_per_edge; ++h)
        t.add_link(pod * hosts_per_pod + e * p.hosts_per_edge + h, edge, p.host_rate_bps,
                   p.link_delay);
      for (uint32_t a = 0; a < p.aggs_per_pod; ++a)
        t.add_link(edge, first_agg + pod * p.aggs_per_pod + a, p.fabric_rate_bps, p.link_delay);
    }
    for (uint32_t a = 0; a < p.aggs_per_pod; ++a)
      for (uint32_t c = 0; c < cores_per_agg; ++c)
        t.add_link(first_agg + pod * p.aggs_per_pod + a, first_core + a * cores_per_agg + c,
                   p.fabric_rate_bps, p.link_delay);
  }
  return t;
}

TopologySpec flb_testbed(BitsPerSec rate_bps, Delta link_delay) {
  TopologySpec t;
  t.description = "FLB testbed (Fig. 1): S0 -> {S1,S2,S3} -> S4";
  const char* hosts[] = {"H0", "H1", "H2", "R0", "R1", "R2"};
  for (const char* h : hosts) t.add_node(NodeKind::kHost, Layer::kHost, h);
  for (int i = 3; i <= 16; ++i) t.add_node(NodeKind::kHost, Layer::kHost, fmt::format("H{}", i));
  uint32_t s[5];
  for (int i = 0; i < 5; ++i) {
    const Layer layer = (i == 0 || i == 4) ? Layer::kEdge : Layer::kAggregation;
    s[i] = t.add_node(NodeKind::kSwitch, layer, fmt::format("S{}", i));
  }
  for (uint32_t h = 0; h < 3; ++h) t.add_link(h, s[0], rate_bps, link_delay);
  for (uint32_t r = 3; r < 6; ++r) t.add_link(r, s[4], rate_bps, link_delay);
  for (uint32_t h = 6; h < 20; ++h) t.add_link(h, s[4], rate_bps, link_delay);
  for (int mid = 1; mid <= 3; ++mid) {
    t.add_link(s[0], s[mid], rate_bps, link_delay);
    t.add_link(s[mid], s[4], rate_bps, link_delay);
  }
  return t;
}

}  // namespace rocelab
