#include "net/switch_node.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "net/ns3_ecmp_hash.h"
#include "sim/random.h"

namespace rocelab {

Switch::Switch(NetContext& ctx, NodeId id, const NodeSpec& spec, const SwitchConfig& cfg)
    : Node(ctx, id, spec),
      ecmp_seed_(mix64(ctx.seed ^ hash_name("ecmp") ^ (uint64_t{id.index()} << 20))),
      ns3_hash_(cfg.ecmp_hash == "ns3"),
      view_(*this),
      cfg_(cfg) {}

void Switch::finalize() {
  for (auto& port : ports_) {
    port->set_acks_in_data_queues(cfg_.ack_queue == "data");
    port->set_pause_ahead_of_control(cfg_.pfc.pause_ahead_of_control);
  }
}

void Switch::add_feature(std::unique_ptr<SwitchFeature> feature) {
  if (!feature) return;
  const uint32_t hooks = feature->hooks();
  if (hooks & SwitchFeature::kOnReceive) on_receive_.push_back(feature.get());
  if (hooks & SwitchFeature::kOnEnqueue) on_enqueue_.push_back(feature.get());
  if (hooks & SwitchFeature::kOnDequeue) on_dequeue_.push_back(feature.get());
  features_.push_back(std::move(feature));
}

size_t Switch::ecmp_index(const Packet& p, std::span<const PortId> hops) const {
  const size_t n = hops.size();
  if (!ns3_hash_ ||
      (p.type != PacketType::kData && p.type != PacketType::kAck && p.type != PacketType::kNak))
    return static_cast<size_t>(mix64(ecmp_seed_ ^ p.flow_hash) % n);
  // ns-3: an ACK/NAK carries the data's ports swapped (rdma-hw.cc ReceiveUdp).
  const bool reply = p.type != PacketType::kData;
  const uint32_t h = ns3_ecmp_hash(p.src.index(), p.dst.index(), reply ? p.dport : p.sport,
                                   reply ? p.sport : p.dport, id_.index());
  // Their routing table lists next hops in the order their BFS from the destination found
  // them, which is neighbour node-id order in leaf-spines and fat-trees.
  // The candidate whose peer has rank h % n among them.
  return ctx_.routing.candidate_by_peer_rank(id_.index(), hops, h % n);
}

PortId Switch::route(Packet& p) {
  const Routing& r = ctx_.routing;
  const uint32_t dst_edge = r.dst_edge(p);
  if (dst_edge == id_.index()) return r.dst_port_at_edge(p);
  const std::span<const PortId> hops = r.next_hops(id_.index(), dst_edge);
  if (hops.size() <= 1)
    return hops.empty() ? PortId::invalid() : hops[0];  // none: failures cut the fabric
  if (p.source_routed) {
    // Explicit source routing: consume one mixed-radix digit of the pinned path.
    const uint32_t n = static_cast<uint32_t>(hops.size());
    const PortId out = hops[p.path_digits % n];
    p.path_digits /= n;
    return out;
  }
  if (lb_ && (p.type == PacketType::kData || lb_->routes_control())) {
    const PortId out = lb_->choose_egress(view_, p, hops);
    if (ctx_.rerouted) [[unlikely]]
      return current_hop(p, hops, out);
    return out;
  }
  return hops[ecmp_index(p, hops)];
}

// A switch forwards only to the next hops routing lists now: a scheme whose path state
// predates a failure's convergence may name a port that left the group (the forwarding
// table has no such entry), and the packet takes the equal-cost hash.
PortId Switch::current_hop(const Packet& p, std::span<const PortId> hops, PortId chosen) {
  if (std::find(hops.begin(), hops.end(), chosen) != hops.end()) return chosen;
  ++ctx_.counters().stale_lb_choices;
  return hops[ecmp_index(p, hops)];
}

void Switch::receive(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  // Flow-control frames are control frames: data never needs the look.
  if (p.type != PacketType::kData && fc_->on_frame(in_port, p)) {
    ctx_.free_packet(pkt);
    return;
  }
  for (SwitchFeature* f : on_receive_)
    if (f->on_receive(view_, p, in_port)) return;
  if (lb_ && lb_->on_receive(view_, p, in_port)) return;
  if (p.dst == id_)  // a scheme addressed this switch but none here took the message
    throw std::logic_error("control packet addressed to switch " + std::to_string(id_.index()) +
                           " reached it and no scheme consumed it");
  forward(pkt, in_port);
}

void Switch::forward(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  p.ingress_port = in_port;  // this switch's, before a scheme routes it (DRILL's engines)
  const PortId out = route(p);
  if (!out.valid()) [[unlikely]] {
    ctx_.counters().count_fault_loss(FaultLoss::kNoRoute, p, ctx_.sim.now());
    ctx_.free_packet(pkt);
    return;
  }
  EgressPort& egress = port_of(out);
  if (!egress.queued_as_data(p)) {
    egress.enqueue(pkt);
    return;
  }
  // Data (and ACK/NAK under ack_queue: data): buffered and flow-controlled.
  if (!admit(p, in_port, out)) return;
  egress.enqueue(pkt, fc_->classify(egress, p));
}

bool Switch::admit(Packet& p, PortId in_port, PortId out) {
  if (!fc_->admit(in_port, out, p)) {
    NetCounters& c = ctx_.counters();
    const auto why = fc_->why_refused(in_port, p);
    if (why == FlowControl::Refusal::kPauseLapse) {
      c.lapse_drops.count(layer(), p.wire_bytes);
    } else if (why == FlowControl::Refusal::kEgressThreshold) {
      c.egress_threshold_drops.count(layer(), p.wire_bytes);
    } else {
      ++c.drops;
      if (p.type != PacketType::kData) ++c.ack_drops;
      c.drop_bytes += p.wire_bytes;
    }
    ctx_.free_packet(p.self);
    return false;
  }
  for (SwitchFeature* f : on_enqueue_) f->on_enqueue(view_, p, out);
  if (lb_on_enqueue_ && p.type == PacketType::kData) lb_->on_enqueue(view_, p, out);
  return true;
}

// A scheme holding data in the switch buffer (ConWeave's reorder queues): admitted and
// accounted now, on its ingress port, so it counts toward PFC; put on its egress queue
// later. Only for packets to a local host, whose route has no choice to make twice.
bool Switch::admit_held(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  if (ctx_.routing.dst_edge(p) != id_.index())
    throw std::logic_error("admit_held: only packets for a host of this switch can be held");
  const PortId out = route(p);
  return !port_of(out).queued_as_data(p) || admit(p, in_port, out);
}

void Switch::enqueue_held(PacketId pkt) {
  Packet& p = ctx_.pkt(pkt);
  EgressPort& egress = port_of(route(p));
  if (!egress.queued_as_data(p)) {
    egress.enqueue(pkt);
    return;
  }
  egress.enqueue(pkt, fc_->classify(egress, p));
}

void Switch::on_dequeue(PortId port, PacketId pkt, size_t queue) {
  Packet& p = ctx_.pkt(pkt);
  if (queue == EgressPort::kNotDataQueue) return;
  fc_->on_dequeue(port, queue, p);
  if (p.type != PacketType::kData) return;
  for (SwitchFeature* f : on_dequeue_) f->on_dequeue(view_, p, port, queue);
  if (lb_) lb_->on_dequeue(view_, p, port, queue);
}

// ---------------------------------------------------------------- the schemes' view

SwitchView::SwitchView(Switch& sw) : sw_(&sw), node_(&sw), ctx_(&sw.context()) {}

const SwitchConfig& SwitchView::config() const {
  return sw_->config();
}
const FlowControl& SwitchView::flow_control() const {
  return sw_->flow_control();
}
size_t SwitchView::ecmp_index(const Packet& p, std::span<const PortId> hops) const {
  return sw_->ecmp_index(p, hops);
}
Packet& SwitchView::new_control(ControlKind kind, NodeId dst, FlowId flow,
                                uint32_t flow_hash) const {
  Packet& m = ctx_->pkt(ctx_->alloc_packet());
  m.type = PacketType::kControl;
  m.control_kind = kind;
  m.ecn_capable = false;
  m.wire_bytes = ctx_->wire.control_wire_bytes(PacketType::kControl);
  m.src = node_->id();
  m.dst = dst;
  m.flow = flow;
  m.flow_hash = flow_hash;
  return m;
}
void SwitchView::send_control(PacketId pkt, PortId port) const {
  sw_->send_control(pkt, port);
}
void SwitchView::forward(PacketId pkt, PortId in_port) const {
  sw_->forward(pkt, in_port);
}
bool SwitchView::admit_held(PacketId pkt, PortId in_port) const {
  return sw_->admit_held(pkt, in_port);
}
void SwitchView::enqueue_held(PacketId pkt) const {
  sw_->enqueue_held(pkt);
}
bool SwitchView::suppress_cnp(Packet& p) const {
  if (p.type == PacketType::kCnp) {
    ++ctx_->counters().cnps_suppressed;
    ctx_->free_packet(p.self);
    return true;
  }
  if ((p.type == PacketType::kAck || p.type == PacketType::kNak) && p.cnp_flag) {
    ++ctx_->counters().cnps_suppressed;
    p.cnp_flag = false;
  }
  return false;
}

void SwitchView::free_packet(PacketId pkt) const {
  ctx_->free_packet(pkt);
}

}  // namespace rocelab
