#include "net/network.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "net/drr_scheduler.h"
#include "net/pfc.h"

namespace rocelab {

Network::Network(Simulator& sim, const TopologySpec& topo, const NetworkConfig& cfg)
    : sim_(sim), topo_(topo), cfg_(cfg) {
  if (!cfg_.flow_control)
    cfg_.flow_control = std::make_shared<PfcConfigFactory>(cfg.switch_config.pfc.enabled);
  if (!cfg_.scheduler) cfg_.scheduler = std::make_shared<DrrSchedulerConfig>();
  ctx_ = std::unique_ptr<NetContext>(new NetContext{
      sim, pool_, cfg.wire, {}, {}, cfg.seed, {}, cfg.switch_config.pfc.pause, {}, {}, {}, {}, {}});
  ctx_->counter_lanes.merged().pause_frames_by_node.assign(topo.nodes.size(), 0);
  pool_.reserve(1 << 14);

  for (uint32_t i = 0; i < topo.nodes.size(); ++i) {
    const NodeSpec& spec = topo.nodes[i];
    if (spec.kind == NodeKind::kHost) {
      nodes_.push_back(std::make_unique<Host>(*ctx_, NodeId(i), spec));
      hosts_.push_back(NodeId(i));
    } else {
      SwitchConfig sc = cfg.switch_config;
      sc.buffer_bytes = cfg.switch_config.buffer_of(spec.name);
      nodes_.push_back(std::make_unique<Switch>(*ctx_, NodeId(i), spec, sc));
      switches_.push_back(NodeId(i));
    }
  }

  // Ports are made below in the same order, one per link end: their ids are these.
  adjacency_ = port_adjacency(topo);
  const uint32_t quantum = cfg.wire.mtu_wire_bytes();
  const size_t switch_queues = cfg_.flow_control->switch_queues(cfg.switch_config.num_queues);
  std::shared_ptr<const SchedulerConfig> switch_scheduler = cfg_.flow_control->switch_scheduler();
  if (!switch_scheduler) switch_scheduler = cfg_.scheduler;
  auto make_port = [&](uint32_t n) {
    Node& node = *nodes_[n];
    const bool host = node.kind() == NodeKind::kHost;
    const size_t queues = host ? cfg.host_queues : switch_queues;
    const SchedulerConfig& sched = host ? *cfg_.scheduler : *switch_scheduler;
    const PortId idx(static_cast<uint16_t>(node.port_count()));
    return node.add_port(
        std::make_unique<EgressPort>(sim, pool_, node, idx, queues, sched.build(queues, quantum)));
  };
  for (const LinkSpec& l : topo.links) {
    if (l.rate_bps <= 0) throw std::invalid_argument("link rate must be positive");
    const PortId pa = make_port(l.a);
    const PortId pb = make_port(l.b);
    link_ports_.emplace_back(pa, pb);
    const Delta res = cfg.wire.serialization_resolution;
    nodes_[l.a]->port(pa).connect(nodes_[l.b].get(), pb, l.rate_bps, l.delay, res);
    nodes_[l.b]->port(pb).connect(nodes_[l.a].get(), pa, l.rate_bps, l.delay, res);
    // HoL blocking is counted where the fabric holds packets: a switch paused by a switch.
    if (nodes_[l.a]->kind() == NodeKind::kSwitch && nodes_[l.b]->kind() == NodeKind::kSwitch) {
      nodes_[l.a]->port(pa).watch_hol_blocking(&ctx_->counter_lanes);
      nodes_[l.b]->port(pb).watch_hol_blocking(&ctx_->counter_lanes);
    }
  }
  ctx_->routing.build(topo_, adjacency_);
  // Most events fall within a link delay plus a frame of now: the event list's wheel should
  // reach that far, with room.
  Delta longest_hop;
  for (const LinkSpec& l : topo.links)
    longest_hop = std::max(longest_hop, l.delay + serialization_delay(quantum, l.rate_bps));
  sim.set_event_horizon(longest_hop * 2);
  for (NodeId s : switches_) {
    Switch& sw = switch_at(s);
    sw.finalize();
    sw.set_flow_control(cfg_.flow_control->build(sw));
  }
  for (NodeId h : hosts_) host(h).set_flow_control(cfg_.flow_control->build(host(h)));
}

Network::~Network() = default;

void Network::set_host_agent(HostAgent* agent) {
  for (NodeId h : hosts_) host(h).set_agent(agent);
}

void Network::install_load_balancers(const LbConfig& cfg) {
  for (NodeId s : switches_) switch_at(s).set_load_balancer(cfg.build(switch_at(s).view()));
}

void Network::install_switch_feature(const SwitchFeatureConfig& cfg) {
  for (NodeId s : switches_) switch_at(s).add_feature(cfg.build(switch_at(s).view()));
}

std::span<const Network::Link> Network::edge_route_links(uint32_t src_edge,
                                                         uint32_t dst_edge) const {
  const Routing& r = healthy_routing();
  auto [it, added] =
      edge_route_links_.try_emplace((uint64_t{src_edge} << 32) | dst_edge, std::vector<Link>{});
  if (added) {
    const auto path = r.path_nodes(src_edge, dst_edge, 0);
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      const EgressPort& p = nodes_[path[i]]->port(r.next_hops(path[i], dst_edge)[0]);
      it->second.emplace_back(p.nominal_rate_bps(), p.delay());
    }
  }
  return it->second;
}

Network::RouteLinks Network::route_links(NodeId a, NodeId b, uint32_t port) const {
  const Routing& r = healthy_routing();
  const uint32_t dst_edge = r.edge_of_host(b.index(), port);
  const EgressPort& nic = nodes_[a.index()]->port(PortId(static_cast<uint16_t>(port)));
  const EgressPort& last = nodes_[dst_edge]->port(r.host_port_at_edge(b.index(), port));
  return RouteLinks{{nic.nominal_rate_bps(), nic.delay()},
                    edge_route_links(r.edge_of_host(a.index(), port), dst_edge),
                    {last.nominal_rate_bps(), last.delay()}};
}

Delta Network::max_route_sum(const std::function<Delta(BitsPerSec, Delta)>& link_term) const {
  const Routing& r = healthy_routing();
  // Per edge switch, the two largest terms of its hosts' first link (NIC) and last link
  // (edge to host): a pair on one edge must be two distinct hosts.
  struct Top2 {
    Delta best{-1}, second{-1};  // terms are never negative
    NodeId best_host;
    void add(Delta d, NodeId h) {
      if (d > best) {
        second = best;
        best = d;
        best_host = h;
      } else if (d > second) {
        second = d;
      }
    }
  };
  // (port index, edge) -> (first links, last links): a QP uses one port index at both ends.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<Top2, Top2>> edges;
  for (NodeId h : hosts_) {
    for (uint32_t k = 0; k < r.port_count(h.index()); ++k) {
      const uint32_t edge = r.edge_of_host(h.index(), k);
      const EgressPort& nic = nodes_[h.index()]->port(PortId(static_cast<uint16_t>(k)));
      const EgressPort& down = nodes_[edge]->port(r.host_port_at_edge(h.index(), k));
      edges[{k, edge}].first.add(link_term(nic.nominal_rate_bps(), nic.delay()), h);
      edges[{k, edge}].second.add(link_term(down.nominal_rate_bps(), down.delay()), h);
    }
  }
  Delta best = Delta::zero();
  for (const auto& [src_key, src] : edges) {
    for (const auto& [dst_key, dst] : edges) {
      if (src_key.first != dst_key.first) continue;
      const uint32_t src_edge = src_key.second, dst_edge = dst_key.second;
      const Top2& up = src.first;
      const Top2& down = dst.second;
      if (src_edge == dst_edge) {
        if (up.second < Delta::zero()) continue;  // one host: no pair
        best = std::max(best, up.best_host != down.best_host
                                  ? up.best + down.best
                                  : std::max(up.best + down.second, up.second + down.best));
        continue;
      }
      Delta sum = up.best + down.best;
      for (const auto& [rate, delay] : edge_route_links(src_edge, dst_edge))
        sum += link_term(rate, delay);
      best = std::max(best, sum);
    }
  }
  return best;
}

void NetCounters::add(const NetCounters& o) {
  drops += o.drops;
  ack_drops += o.ack_drops;
  drop_bytes += o.drop_bytes;
  lapse_drops.add(o.lapse_drops);
  egress_threshold_drops.add(o.egress_threshold_drops);
  pause_frames += o.pause_frames;
  resume_frames += o.resume_frames;
  ecn_marks += o.ecn_marks;
  cnps_suppressed += o.cnps_suppressed;
  stale_lb_choices += o.stale_lb_choices;
  auto add_elements = [](auto& into, const auto& from, auto combine) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i) into[i] = combine(into[i], from[i]);
  };
  add_elements(pause_frames_by_node, o.pause_frames_by_node, [](auto a, auto b) { return a + b; });
  add_elements(hol_blocked_flows, o.hol_blocked_flows,
               [](auto a, auto b) { return std::max(a, b); });
  add_elements(fault_flows, o.fault_flows, [](auto a, auto b) { return std::max(a, b); });
  for (size_t c = 0; c < fault_losses.size(); ++c) {
    fault_losses[c].data_packets += o.fault_losses[c].data_packets;
    fault_losses[c].data_bytes += o.fault_losses[c].data_bytes;
    fault_losses[c].control_frames += o.fault_losses[c].control_frames;
  }
  last_fault_loss = std::max(last_fault_loss, o.last_fault_loss);
}

NetCounters Network::blank_counters() const {
  NetCounters blank;
  blank.pause_frames_by_node.assign(nodes_.size(), 0);
  return blank;
}

void Network::set_lanes(uint32_t partitions) {
  pool_.set_lanes(partitions);
  ctx_->state.prepare_lanes(pool_.max_objects());
  ctx_->counter_lanes.set_lanes(partitions, blank_counters());
}

void Network::fold_counters() {
  ctx_->counter_lanes.fold([](NetCounters& into, const NetCounters& from) { into.add(from); },
                           blank_counters());
}

uint64_t Network::data_packet_hops() const {
  uint64_t hops = 0;
  for (const auto& node : nodes_)
    for (size_t p = 0; p < node->port_count(); ++p)
      hops += node->port(PortId(static_cast<uint16_t>(p))).counters().tx_data_packets;
  return hops;
}

Delta Network::one_way_delay(NodeId a, NodeId b, uint32_t wire_bytes, uint32_t port) const {
  const RouteLinks links = route_links(a, b, port);
  Delta total;
  for (size_t i = 0; i < links.size(); ++i)
    total += links[i].second + ctx_->wire.serialize(wire_bytes, links[i].first);
  return total;
}

BitsPerSec Network::bottleneck_rate_bps(NodeId a, NodeId b, uint32_t port) const {
  const RouteLinks links = route_links(a, b, port);
  BitsPerSec slowest = 0;
  for (size_t i = 0; i < links.size(); ++i)
    if (slowest == 0 || links[i].first < slowest) slowest = links[i].first;
  return slowest;
}

Delta Network::message_delay(NodeId a, NodeId b, uint64_t frames, uint32_t frame_wire_bytes,
                             uint32_t last_wire_bytes, uint32_t port) const {
  // Frame k leaves link i when it has arrived there and frame k-1 has left: finish(i, k) =
  // max(finish(i-1, k) + delay(i-1), finish(i, k-1)) + serialization(i, k). Unrolled, the
  // last frame's finish on the last link is the sum of the delays plus the heaviest
  // staircase through the (link, frame) grid. The frames before the last are all full, so
  // the heaviest one takes links 1..j with full frames, spends the other frames - 2 on the
  // slowest of those links, then carries the last frame over links j..end: a short last
  // frame waits behind the full one before it on every link up to j.
  const RouteLinks links = route_links(a, b, port);
  const size_t n = links.size();
  // The last frame over links j..end: all of them, less those before j.
  Delta last_all, propagation;
  for (size_t j = 0; j < n; ++j) {
    last_all += ctx_->wire.serialize(last_wire_bytes, links[j].first);
    propagation += links[j].second;
  }
  if (frames == 1) return propagation + last_all;
  Delta heaviest, full_to_j, slowest_full, last_before_j;
  for (size_t j = 0; j < n; ++j) {
    const Delta full = ctx_->wire.serialize(frame_wire_bytes, links[j].first);
    full_to_j += full;
    slowest_full = std::max(slowest_full, full);
    heaviest = std::max(heaviest, full_to_j + slowest_full * static_cast<int64_t>(frames - 2) +
                                      (last_all - last_before_j));
    last_before_j += ctx_->wire.serialize(last_wire_bytes, links[j].first);
  }
  return propagation + heaviest;
}

Delta Network::slowest_serialization(NodeId a, NodeId b, uint32_t wire_bytes, uint32_t port) const {
  const RouteLinks links = route_links(a, b, port);
  Delta slowest;
  for (size_t i = 0; i < links.size(); ++i)
    slowest = std::max(slowest, ctx_->wire.serialize(wire_bytes, links[i].first));
  return slowest;
}

EgressPort& Network::link_port(uint32_t link, bool from_a) {
  const LinkSpec& l = topo_.links.at(link);
  return from_a ? nodes_[l.a]->port(link_ports_[link].first)
                : nodes_[l.b]->port(link_ports_[link].second);
}

void Network::reroute(const std::vector<uint8_t>& link_down) {
  // Moving a vector keeps its buffer: the spans schemes were handed stay valid.
  retired_routing_.push_back(std::make_unique<Routing>(std::move(ctx_->routing)));
  ctx_->routing = Routing{};
  ctx_->routing.build(topo_, adjacency_, link_down);
  ctx_->rerouted = true;
  ctx_->healthy_routing = retired_routing_.front().get();
}

std::string Network::check_drained() const {
  for (const auto& n : nodes_) {
    for (size_t p = 0; p < n->port_count(); ++p) {
      const EgressPort& port = n->port(PortId(static_cast<uint16_t>(p)));
      if (port.queued_packets() != 0 || port.in_flight_packets() != 0 || port.busy())
        return n->name() + " port " + std::to_string(p) + " still holds packets";
      for (size_t q = 0; q < port.num_queues(); ++q)
        if (port.paused(q)) return n->name() + " port " + std::to_string(p) + " left paused";
    }
    if (n->kind() == NodeKind::kSwitch) {
      const std::string mmu = static_cast<const Switch&>(*n).flow_control().check_drained();
      if (!mmu.empty()) return n->name() + ": " + mmu;
    }
  }
  return {};
}

}  // namespace rocelab
