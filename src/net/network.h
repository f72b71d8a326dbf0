// A built network: nodes and ports from a TopologySpec, routing, the packet pool and the
// counters. Owns everything in net/; schemes attach through HostAgent and LoadBalancer.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/host_node.h"
#include "net/net_context.h"
#include "net/scheme_stat.h"
#include "net/switch_node.h"
#include "net/topology.h"

namespace rocelab {

struct NetworkConfig {
  SwitchConfig switch_config;
  WireModel wire;
  uint32_t host_queues = 8;  // NIC egress classes
  uint64_t seed = 1;
  // Plug points; null = the defaults of net/: PFC (pauses on when switch_config.pfc.enabled)
  // and deficit round robin.
  std::shared_ptr<const FlowControlConfig> flow_control;
  std::shared_ptr<const SchedulerConfig> scheduler;
};

class Network {
 public:
  Network(Simulator& sim, const TopologySpec& topo, const NetworkConfig& cfg);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  Simulator& sim() { return sim_; }
  NetContext& context() { return *ctx_; }
  const NetContext& context() const { return *ctx_; }
  const TopologySpec& topology() const { return topo_; }
  const NetworkConfig& config() const { return cfg_; }
  const Routing& routing() const { return ctx_->routing; }
  // Every partition's counts once fold_counters() has run (Experiment::run does).
  const NetCounters& counters() const { return ctx_->counter_lanes.merged(); }
  // A parallel run of `partitions` partitions: the packet pool, the packets' scheme fields
  // and the counters get a lane each (sim/lane.h). Before the run.
  void set_lanes(uint32_t partitions);
  // Folds the partitions' counters into the ones counters() reads. Between runs.
  void fold_counters();
  // Whether this process runs node n's events (all, but in a run over several ranks).
  bool owns(NodeId n) const { return sim_.owns_lp(n.index()); }
  // After a run over several ranks (net/network_ranks.cc), on every rank alike: the other
  // ranks' counters added to this one's, and the counters of the ports and the scheme
  // figures of the switches they ran taken from them (ports' paused time up to `now`).
  void gather_over_ranks(RankGroup& group, Time now);
  // After the drain that follows: the flows any rank marked HOL-blocked (flows.csv).
  void gather_hol_blocked_over_ranks(RankGroup& group);
  // Switch s's load balancer, flow control and switch features' figures: its own, or
  // those of the rank that ran it.
  void add_switch_stats(NodeId s, std::vector<SchemeStat>& lb, std::vector<SchemeStat>& fc,
                        std::vector<SchemeStat>& features) const;
  Pool<Packet>& pool() { return pool_; }

  size_t node_count() const { return nodes_.size(); }
  // Data frames sent by all ports so far: the data-packet hops simulated.
  uint64_t data_packet_hops() const;
  Node& node(NodeId id) { return *nodes_[id.index()]; }
  const Node& node(NodeId id) const { return *nodes_[id.index()]; }
  Host& host(NodeId id) { return static_cast<Host&>(*nodes_[id.index()]); }
  Switch& switch_at(NodeId id) { return static_cast<Switch&>(*nodes_[id.index()]); }
  const std::vector<NodeId>& hosts() const { return hosts_; }
  const std::vector<NodeId>& switches() const { return switches_; }
  // Line rate of a host's NIC port `port` (its port-th link).
  BitsPerSec host_rate_bps(NodeId host, uint32_t port = 0) const {
    return nodes_[host.index()]->port(PortId(static_cast<uint16_t>(port))).rate_bps();
  }
  // That port's rate as built (a degraded link's fault aside): what ideal times are of.
  BitsPerSec host_nominal_rate_bps(NodeId host, uint32_t port = 0) const {
    return nodes_[host.index()]->port(PortId(static_cast<uint16_t>(port))).nominal_rate_bps();
  }
  // A NIC's rate as built, all of its ports together.
  BitsPerSec nic_nominal_rate_bps(NodeId host) const {
    BitsPerSec sum = 0;
    for (size_t k = 0; k < nodes_[host.index()]->port_count(); ++k)
      sum += nodes_[host.index()]->port(PortId(static_cast<uint16_t>(k))).nominal_rate_bps();
    return sum;
  }

  void set_host_agent(HostAgent* agent);
  // Installs the load balancer `cfg` builds for each switch (nullptr keeps ECMP hashing).
  void install_load_balancers(const LbConfig& cfg);
  // Appends the feature `cfg` builds to each switch's pipeline (after the ones there).
  void install_switch_feature(const SwitchFeatureConfig& cfg);
  const FlowControlConfig& flow_control() const { return *cfg_.flow_control; }

  // Sum of propagation and serialization delays of one `wire_bytes` frame along the
  // default (path 0) route from host a's NIC port `port` to host b's (the same index),
  // store-and-forward at every hop. So for the route helpers below.
  Delta one_way_delay(NodeId a, NodeId b, uint32_t wire_bytes, uint32_t port = 0) const;
  // Slowest link rate on that route.
  BitsPerSec bottleneck_rate_bps(NodeId a, NodeId b, uint32_t port = 0) const;
  // Time from host a's NIC starting `frames` (>= 1) frames back to back at its line rate,
  // all of `frame_wire_bytes` but the last, of `last_wire_bytes`, until the last has fully
  // arrived at host b, along the idle default route, store-and-forward at every hop.
  Delta message_delay(NodeId a, NodeId b, uint64_t frames, uint32_t frame_wire_bytes,
                      uint32_t last_wire_bytes, uint32_t port = 0) const;
  // Serialization of one `wire_bytes` frame on the slowest link of that route.
  Delta slowest_serialization(NodeId a, NodeId b, uint32_t wire_bytes, uint32_t port = 0) const;
  // The largest, over ordered pairs of distinct hosts, of the sum of `link_term(rate,
  // delay)` over the links of the default route (HPCC's network-wide base RTT). Costs one
  // route per pair of edge switches, not per pair of hosts.
  Delta max_route_sum(const std::function<Delta(BitsPerSec, Delta)>& link_term) const;
  // Switches on that route (what a packet's TTL counts down).
  uint32_t switch_hops(NodeId a, NodeId b, uint32_t port = 0) const {
    const Routing& r = healthy_routing();
    return r.edge_distance(r.edge_of_host(a.index(), port), r.edge_of_host(b.index(), port)) + 1;
  }

  // Invariants after a drained run: empty buffers and queues; empty string when they hold.
  std::string check_drained() const;

  // Faults (net/faults.h). The port that sends over link `link` (TopologySpec::links) from
  // its end a (from_a) or from its end b.
  EgressPort& link_port(uint32_t link, bool from_a);
  // Routing converges to shortest paths over the links not marked in `link_down` (by link
  // index). Next-hop lists handed out before stay valid (the old tables are kept).
  void reroute(const std::vector<uint8_t>& link_down);
  // The routing of the fabric as built, before any failure: what ideal times are of.
  const Routing& healthy_routing() const {
    return retired_routing_.empty() ? ctx_->routing : *retired_routing_.front();
  }

 private:
  using Link = std::pair<BitsPerSec, Delta>;
  // The links of the default route from host a to host b: the NIC's, the switches' (shared
  // by every pair of hosts under the same two edge switches), the last edge port's.
  struct RouteLinks {
    Link first;
    std::span<const Link> middle;
    Link last;
    size_t size() const { return middle.size() + 2; }
    Link operator[](size_t i) const {
      return i == 0 ? first : i <= middle.size() ? middle[i - 1] : last;
    }
  };
  RouteLinks route_links(NodeId a, NodeId b, uint32_t port) const;
  // Counters with nothing counted yet: a lane's start (pause frames by node sized).
  NetCounters blank_counters() const;
  // The switch links of the default route between two edge switches (cached).
  std::span<const Link> edge_route_links(uint32_t src_edge, uint32_t dst_edge) const;

  Simulator& sim_;
  TopologySpec topo_;
  NetworkConfig cfg_;
  Pool<Packet> pool_;
  std::unique_ptr<NetContext> ctx_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::vector<PortPeer>> adjacency_;
  std::vector<NodeId> hosts_;
  std::vector<NodeId> switches_;
  // The switch links of the default route between two edge switches, by (src << 32 | dst):
  // every flow asks for its route several times when it is added (base RTT, ideal FCT).
  mutable std::unordered_map<uint64_t, std::vector<Link>> edge_route_links_;
  std::vector<std::unique_ptr<Routing>> retired_routing_;  // oldest (healthy) first
  std::vector<std::pair<PortId, PortId>> link_ports_;      // by link: (a's port, b's port)
  // By node id, for switches another rank ran: their lb, fc and feature figures.
  std::vector<std::array<std::vector<SchemeStat>, 3>> remote_switch_stats_;
};

}  // namespace rocelab
