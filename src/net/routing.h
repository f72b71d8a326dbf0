// Shortest-path routing over the switch graph. Edge switches are the switches with hosts
// attached. For every switch and destination edge switch it stores the equal-cost next-hop
// ports; a path ID names one end-to-end choice sequence between two edge switches
// (mixed radix: at each hop the digit `path % n` picks among n sorted candidates), which
// is what explicit source routing (FLB, Proteus) pins a packet to.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/packet.h"
#include "net/topology.h"
#include "sim/ids.h"

namespace rocelab {

struct PortPeer {
  uint32_t node;
  PortId port;        // local port index on this node
  PortId peer_port;   // port index on the peer
  uint32_t link = 0;  // index of the link in TopologySpec::links
};

// Each node's ports with their peers, as Network numbers them (a port per link, in the
// topology's link order): the adjacency Routing::build reads, known from the topology alone.
// Throws std::invalid_argument for a link that names a missing node or is a loop.
std::vector<std::vector<PortPeer>> port_adjacency(const TopologySpec& topo);

class Routing {
 public:
  // adjacency[node] lists each port of the node with its peer, in port order. Links whose
  // entry in `link_down` (by link index; empty: none) is non-zero carry no route: shortest
  // paths over what is left, as a fabric's routing converges after a failure. With links
  // down, edge switches may be cut off from each other: their next-hop lists are empty
  // (packets for them are lost, Switch::route) instead of an error.
  void build(const TopologySpec& topo, const std::vector<std::vector<PortPeer>>& adjacency,
             const std::vector<uint8_t>& link_down = {});

  bool is_edge(uint32_t node) const { return edge_index_[node] != kNone; }
  // The edge switch a packet addressed to `node`'s port `port` leaves the fabric at: the one
  // that port links to, or an edge switch itself (switch-to-switch control messages).
  uint32_t edge_of_host(uint32_t host, uint32_t port = 0) const {
    return host_edge_[port * nodes_ + host];
  }
  PortId host_port_at_edge(uint32_t host, uint32_t port = 0) const {
    return host_port_[port * nodes_ + host];
  }
  // The edge switches a packet enters and leaves the fabric at: its QP's port at either end
  // (Packet::nic_port), read only when some NIC has more than one port.
  uint32_t src_edge(const Packet& p) const {
    return host_edge_[(multi_port_ ? p.nic_port * nodes_ : 0) + p.src.index()];
  }
  uint32_t dst_edge(const Packet& p) const {
    return host_edge_[(multi_port_ ? p.nic_port * nodes_ : 0) + p.dst.index()];
  }
  PortId dst_port_at_edge(const Packet& p) const {
    return host_port_[(multi_port_ ? p.nic_port * nodes_ : 0) + p.dst.index()];
  }
  // Some host has more than one port (planes, dual ToR); ports_per_host() is the most any has.
  bool multi_port() const { return multi_port_; }
  uint32_t ports_per_host() const { return ports_per_host_; }
  // Ports of host `host` (1 for a switch).
  uint32_t port_count(uint32_t host) const { return host_ports_.empty() ? 1 : host_ports_[host]; }
  const std::vector<uint32_t>& edge_switches() const { return edges_; }
  uint32_t edge_index(uint32_t edge_switch) const { return edge_index_[edge_switch]; }

  // Equal-cost next hops at switch `node` toward edge switch `dst_edge` (empty at dst_edge).
  std::span<const PortId> next_hops(uint32_t node, uint32_t dst_edge) const {
    const Range r =
        table_[static_cast<size_t>(switch_row_[node]) * edges_.size() + edge_index_[dst_edge]];
    return {ports_.data() + r.offset, r.count};
  }
  // The ns-3 forks' ECMP pick among next hops `hops` of `node`: the candidate whose peer
  // node has rank `rank` by node id, as their BFS-ordered tables list it (see
  // Switch::ecmp_index). Precomputed for the spans next_hops returns; worked out for others.
  size_t candidate_by_peer_rank(uint32_t node, std::span<const PortId> hops, size_t rank) const {
    if (hops.data() >= ports_.data() && hops.data() < ports_.data() + ports_.size())
      return by_peer_rank_[static_cast<size_t>(hops.data() - ports_.data()) + rank];
    return pick_by_peer_rank((*adjacency_)[node], hops, rank);
  }
  // Switch hops between two edge switches (0 when equal).
  uint32_t edge_distance(uint32_t src_edge, uint32_t dst_edge) const;
  // The most switch hops from `node` to an edge switch it reaches (another plane's are not
  // reached): what a scheme's longest path spans.
  uint32_t farthest_edge_distance(uint32_t node) const;
  // Number of distinct shortest paths between two edge switches; 1 for a pair cut off by
  // failed links (one dead path: schemes that index paths need at least one).
  uint64_t path_count(uint32_t src_edge, uint32_t dst_edge) const;
  // The sequence of switches path `path` visits from src_edge to dst_edge (inclusive); it
  // stops where a failure leaves no next hop.
  std::vector<uint32_t> path_nodes(uint32_t src_edge, uint32_t dst_edge, uint32_t path) const;
  // The peer reached through `port` of `node`.
  const PortPeer& peer(uint32_t node, PortId port) const {
    return (*adjacency_)[node][port.index()];
  }

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  struct Range {
    uint32_t offset = 0;
    uint32_t count = 0;
  };
  static size_t pick_by_peer_rank(const std::vector<PortPeer>& ports_of_node,
                                  std::span<const PortId> hops, size_t rank);
  void add_peer_ranks(const std::vector<PortPeer>& ports_of_node, Range r);
  // The range of ports_ listing `hops` for a switch: one of its `distinct` lists when equal,
  // else a new one (added to `distinct`).
  Range list_range(const std::vector<PortPeer>& ports_of_node, const std::vector<PortId>& hops,
                   std::vector<Range>& distinct);
  void place_hosts(const TopologySpec& topo, const std::vector<std::vector<PortPeer>>& adjacency);
  // Throws unless every two edge switches some QP could join (hosts' ports of one index
  // under each) are connected.
  void check_connected(const TopologySpec& topo) const;
  std::vector<uint32_t> edges_;
  std::vector<uint32_t> edge_index_;
  // [port * nodes + node]: a host's port `port`'s edge switch and that switch's port to it.
  std::vector<uint32_t> host_edge_;
  std::vector<PortId> host_port_;
  std::vector<uint16_t> host_ports_;       // [node] a host's port count; empty: one each
  std::vector<uint32_t> edge_port_masks_;  // [edge index] bit k: some host's port k is here
  bool multi_port_ = false;
  uint32_t ports_per_host_ = 1;
  std::vector<uint32_t> switch_row_;  // [node] its row of table_ (the empty last row: a host)
  std::vector<Range> table_;          // [row * edges + edge index]
  std::vector<PortId> ports_;
  std::vector<uint16_t> by_peer_rank_;  // parallel to ports_: see candidate_by_peer_rank
  std::vector<uint32_t> dist_;          // [edge_index * nodes + node] hops to that edge switch
  const std::vector<std::vector<PortPeer>>* adjacency_ = nullptr;
  size_t nodes_ = 0;
};

}  // namespace rocelab
