#include "net/routing.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace rocelab {

std::vector<std::vector<PortPeer>> port_adjacency(const TopologySpec& topo) {
  std::vector<std::vector<PortPeer>> adjacency(topo.nodes.size());
  for (uint32_t link = 0; link < topo.links.size(); ++link) {
    const LinkSpec& l = topo.links[link];
    if (l.a >= topo.nodes.size() || l.b >= topo.nodes.size() || l.a == l.b)
      throw std::invalid_argument("link " + std::to_string(l.a) + "-" + std::to_string(l.b) +
                                  " names a missing node or is a loop");
    const PortId pa(static_cast<uint16_t>(adjacency[l.a].size()));
    const PortId pb(static_cast<uint16_t>(adjacency[l.b].size()));
    adjacency[l.a].push_back(PortPeer{l.b, pa, pb, link});
    adjacency[l.b].push_back(PortPeer{l.a, pb, pa, link});
  }
  return adjacency;
}

void Routing::build(const TopologySpec& topo, const std::vector<std::vector<PortPeer>>& adjacency,
                    const std::vector<uint8_t>& link_down) {
  adjacency_ = &adjacency;
  auto carries = [&](const PortPeer& pp) {
    return topo.nodes[pp.node].kind == NodeKind::kSwitch &&
           (link_down.empty() || link_down[pp.link] == 0);
  };
  nodes_ = topo.nodes.size();
  place_hosts(topo, adjacency);

  // BFS over switches from every edge switch.
  const size_t ne = edges_.size();
  dist_.assign(ne * nodes_, kNone);
  for (size_t e = 0; e < ne; ++e) {
    uint32_t* dist = dist_.data() + e * nodes_;
    std::deque<uint32_t> frontier{edges_[e]};
    dist[edges_[e]] = 0;
    while (!frontier.empty()) {
      const uint32_t u = frontier.front();
      frontier.pop_front();
      for (const PortPeer& pp : adjacency[u]) {
        if (!carries(pp) || dist[pp.node] != kNone) continue;
        dist[pp.node] = dist[u] + 1;
        frontier.push_back(pp.node);
      }
    }
  }

  // One row of next hops per switch, and a last, empty row for every other node. A
  // switch's rows share each distinct list of ports (a fat-tree switch has one list of up
  // ports and one port per child), so the tables stay small enough to stay in cache.
  switch_row_.assign(nodes_, 0);
  uint32_t rows = 0;
  for (uint32_t u = 0; u < nodes_; ++u)
    if (topo.nodes[u].kind == NodeKind::kSwitch) switch_row_[u] = rows++;
  for (uint32_t u = 0; u < nodes_; ++u)
    if (topo.nodes[u].kind != NodeKind::kSwitch) switch_row_[u] = rows;
  table_.assign(static_cast<size_t>(rows + 1) * ne, Range{});
  ports_.clear();
  by_peer_rank_.clear();
  std::vector<PortId> hops;
  std::vector<Range> distinct;  // this switch's lists so far
  for (uint32_t u = 0; u < nodes_; ++u) {
    if (topo.nodes[u].kind != NodeKind::kSwitch) continue;
    distinct.clear();
    for (size_t e = 0; e < ne; ++e) {
      const uint32_t* dist = dist_.data() + e * nodes_;
      hops.clear();
      if (dist[u] != kNone && dist[u] > 0) {
        for (const PortPeer& pp : adjacency[u])
          if (carries(pp) && dist[pp.node] == dist[u] - 1) hops.push_back(pp.port);
      }
      table_[static_cast<size_t>(switch_row_[u]) * ne + e] =
          list_range(adjacency[u], hops, distinct);
    }
  }
  if (!link_down.empty()) return;  // a failure may cut the fabric: see Switch::route
  check_connected(topo);
}

// A host's port k is its k-th link; hosts of one port keep the tables of one row.
void Routing::place_hosts(const TopologySpec& topo,
                          const std::vector<std::vector<PortPeer>>& adjacency) {
  ports_per_host_ = 1;
  for (uint32_t h = 0; h < nodes_; ++h) {
    if (topo.nodes[h].kind != NodeKind::kHost) continue;
    if (adjacency[h].empty())
      throw std::invalid_argument("host '" + topo.nodes[h].name + "' has no link");
    ports_per_host_ =
        std::max<uint32_t>(ports_per_host_, static_cast<uint32_t>(adjacency[h].size()));
  }
  if (ports_per_host_ > 255)
    throw std::invalid_argument("a host has more than 255 links (NIC ports)");
  multi_port_ = ports_per_host_ > 1;
  edge_index_.assign(nodes_, kNone);
  host_edge_.assign(ports_per_host_ * nodes_, kNone);
  host_port_.assign(ports_per_host_ * nodes_, PortId::invalid());
  host_ports_.clear();
  if (multi_port_) host_ports_.assign(nodes_, 1);
  edges_.clear();
  edge_port_masks_.clear();
  for (uint32_t h = 0; h < nodes_; ++h) {
    if (topo.nodes[h].kind != NodeKind::kHost) continue;
    if (multi_port_) host_ports_[h] = static_cast<uint16_t>(adjacency[h].size());
    for (uint32_t k = 0; k < adjacency[h].size(); ++k) {
      const PortPeer& up = adjacency[h][k];
      if (topo.nodes[up.node].kind != NodeKind::kSwitch)
        throw std::invalid_argument("host '" + topo.nodes[h].name + "' must connect to a switch");
      host_edge_[k * nodes_ + h] = up.node;
      host_port_[k * nodes_ + h] = up.peer_port;
      if (edge_index_[up.node] == kNone) {
        edge_index_[up.node] = static_cast<uint32_t>(edges_.size());
        edges_.push_back(up.node);
        edge_port_masks_.push_back(0);
      }
      edge_port_masks_[edge_index_[up.node]] |= k < 32 ? 1u << k : 0u;
    }
  }
  // An edge switch is its own edge, whatever port a packet names: a control packet
  // addressed to it routes there.
  for (uint32_t k = 0; k < ports_per_host_; ++k)
    for (uint32_t e : edges_) host_edge_[k * nodes_ + e] = e;
}

void Routing::check_connected(const TopologySpec& topo) const {
  for (uint32_t a : edges_)
    for (uint32_t b : edges_) {
      // A QP uses one port index at both ends: planes need not reach each other.
      if ((edge_port_masks_[edge_index_[a]] & edge_port_masks_[edge_index_[b]]) == 0) continue;
      if (dist_[edge_index_[b] * nodes_ + a] == kNone)
        throw std::invalid_argument("edge switches '" + topo.nodes[a].name + "' and '" +
                                    topo.nodes[b].name + "' are not connected");
    }
}

// The first candidate with exactly `rank` peers of lower node id below it, or `rank`
// itself when parallel links leave that rank to nobody (n is a handful of ports).
size_t Routing::pick_by_peer_rank(const std::vector<PortPeer>& ports_of_node,
                                  std::span<const PortId> hops, size_t rank) {
  auto peer = [&](size_t i) { return ports_of_node[hops[i].index()].node; };
  for (size_t i = 0; i < hops.size(); ++i) {
    size_t below = 0;
    for (size_t j = 0; j < hops.size(); ++j) below += peer(j) < peer(i);
    if (below == rank) return i;
  }
  return rank;
}

Routing::Range Routing::list_range(const std::vector<PortPeer>& ports_of_node,
                                   const std::vector<PortId>& hops, std::vector<Range>& distinct) {
  if (hops.empty()) return Range{};
  for (const Range r : distinct) {
    if (r.count == hops.size() && std::equal(hops.begin(), hops.end(), ports_.begin() + r.offset))
      return r;
  }
  if (ports_.size() + hops.size() > UINT32_MAX)
    throw std::invalid_argument("routing: more than 2^32 ports in all next-hop lists");
  const Range r{static_cast<uint32_t>(ports_.size()), static_cast<uint32_t>(hops.size())};
  ports_.insert(ports_.end(), hops.begin(), hops.end());
  add_peer_ranks(ports_of_node, r);
  distinct.push_back(r);
  return r;
}

void Routing::add_peer_ranks(const std::vector<PortPeer>& ports_of_node, Range r) {
  by_peer_rank_.resize(ports_.size());
  const std::span<const PortId> hops(ports_.data() + r.offset, r.count);
  for (size_t rank = 0; rank < r.count; ++rank)
    by_peer_rank_[r.offset + rank] =
        static_cast<uint16_t>(pick_by_peer_rank(ports_of_node, hops, rank));
}

uint32_t Routing::edge_distance(uint32_t src_edge, uint32_t dst_edge) const {
  return dist_[edge_index_[dst_edge] * nodes_ + src_edge];
}

uint32_t Routing::farthest_edge_distance(uint32_t node) const {
  uint32_t farthest = 0;
  for (size_t e = 0; e < edges_.size(); ++e) {
    const uint32_t d = dist_[e * nodes_ + node];
    if (d != kNone) farthest = std::max(farthest, d);
  }
  return farthest;
}

uint64_t Routing::path_count(uint32_t src_edge, uint32_t dst_edge) const {
  // Paths to dst from each node on the shortest-path DAG, counted from dst outwards.
  if (src_edge == dst_edge) return 1;
  std::vector<uint64_t> memo(nodes_, 0);
  // Depth-first with memo: the DAG is shallow (a few tiers), recursion depth is tiny.
  struct Counter {
    const Routing& r;
    uint32_t dst;
    std::vector<uint64_t>& memo;
    uint64_t operator()(uint32_t u) {
      if (u == dst) return 1;
      if (memo[u]) return memo[u];
      uint64_t total = 0;
      for (PortId p : r.next_hops(u, dst)) total += (*this)(r.peer(u, p).node);
      return memo[u] = total;
    }
  };
  return std::max<uint64_t>(1, Counter{*this, dst_edge, memo}(src_edge));
}

std::vector<uint32_t> Routing::path_nodes(uint32_t src_edge, uint32_t dst_edge,
                                          uint32_t path) const {
  std::vector<uint32_t> nodes{src_edge};
  uint32_t u = src_edge;
  while (u != dst_edge) {
    const auto hops = next_hops(u, dst_edge);
    const uint32_t n = static_cast<uint32_t>(hops.size());
    if (n == 0) break;  // cut off by a failure
    u = peer(u, hops[path % n]).node;
    path /= n;
    nodes.push_back(u);
  }
  return nodes;
}

}  // namespace rocelab
