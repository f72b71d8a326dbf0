#include "net/switch_node.h"

#include "net/ecn.h"
#include "net/ns3_ecmp_hash.h"

namespace rocelab {

Switch::Switch(NetContext& ctx, NodeId id, const NodeSpec& spec, const SwitchConfig& cfg)
    : Node(ctx, id, spec),
      cfg_(cfg),
      rng_(ctx.seed, "switch", id.index()),
      ecmp_seed_(mix64(ctx.seed ^ hash_name("ecmp") ^ (uint64_t{id.index()} << 20))),
      ns3_hash_(cfg.ecmp_hash == "ns3") {}

void Switch::finalize() {
  std::vector<int64_t> headroom;
  std::vector<BitsPerSec> rates;
  const WireModel& w = ctx_.wire;
  for (const auto& port : ports_) {
    rates.push_back(port->rate_bps());
    peer_node_.push_back(port->peer()->id().index());
    const int64_t h = pfc_headroom_bytes(cfg_.pfc, w, port->rate_bps(), port->delay());
    headroom.push_back(h);
    port_ecn_.push_back(cfg_.ecn.for_port(port->rate_bps()));
  }
  mmu_.init(cfg_, headroom, rates);
  for (auto& port : ports_) port->set_acks_in_data_queues(cfg_.ack_queue == "data");
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
  // The candidate whose peer has rank h % n among them (n is a handful of ports).
  const size_t rank = h % n;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t peer = peer_node_[hops[i].index()];
    size_t below = 0;
    for (size_t j = 0; j < n; ++j) below += peer_node_[hops[j].index()] < peer;
    if (below == rank) return i;
  }
  return rank;
}

PortId Switch::route(PacketId pkt, Packet& p) {
  const Routing& r = ctx_.routing;
  const uint32_t dst_edge = r.edge_of_host(p.dst.index());
  if (dst_edge == id_.index()) return r.host_port_at_edge(p.dst.index());
  const std::span<const PortId> hops = r.next_hops(id_.index(), dst_edge);
  if (hops.size() == 1) return hops[0];
  if (p.source_routed) {
    // Explicit source routing: consume one mixed-radix digit of the pinned path.
    const uint32_t n = static_cast<uint32_t>(hops.size());
    const PortId out = hops[p.path_digits % n];
    p.path_digits /= n;
    return out;
  }
  if (p.type == PacketType::kData && lb_) return lb_->choose_egress(*this, pkt, hops);
  return hops[ecmp_index(p, hops)];
}

void Switch::receive(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  if (p.type == PacketType::kPause) {
    port_of(in_port).set_priority_paused(p.pfc_priority, p.pfc_xoff);
    ctx_.free_packet(pkt);
    return;
  }
  if (lb_ && lb_->on_receive(*this, pkt, in_port)) return;
  forward(pkt, in_port);
}

void Switch::forward(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  ++p.hop_count;
  const PortId out = route(pkt, p);
  EgressPort& egress = port_of(out);
  if (egress.queued_as_data(p)) {  // data, and ACK/NAK under ack_queue: data
    if (!mmu_.admit(in_port, p.priority, p.wire_bytes)) {
      ++ctx_.counters.drops;
      ctx_.counters.drop_bytes += p.wire_bytes;
      ctx_.free_packet(pkt);
      return;
    }
    p.ingress_port = in_port;
    if (mmu_.take_pause(in_port, p.priority)) send_pfc(in_port, p.priority, true);
  }
  egress.enqueue(pkt);
}

void Switch::on_dequeue(PortId port, PacketId pkt) {
  Packet& p = ctx_.pkt(pkt);
  if (!port_of(port).queued_as_data(p)) return;
  mmu_.release(p.ingress_port, p.priority, p.wire_bytes);
  if (mmu_.take_resume(p.ingress_port, p.priority)) send_pfc(p.ingress_port, p.priority, false);
  if (p.type != PacketType::kData) return;
  maybe_mark_ecn(p, port_of(port));
  if (lb_) lb_->on_dequeue(*this, port, pkt);
}

void Switch::maybe_mark_ecn(Packet& p, const EgressPort& port) {
  if (!cfg_.ecn.enabled || !p.ecn_capable || p.ecn_ce) return;
  if (red_should_mark(port.queue_bytes(port.queue_of(p)), port_ecn_[port.index().index()], rng_)) {
    p.ecn_ce = true;
    ++ctx_.counters.ecn_marks;
  }
}

void Switch::send_pfc(PortId in_port, Priority prio, bool xoff) {
  const PacketId id = ctx_.alloc_packet();
  Packet& f = ctx_.pkt(id);
  f.type = PacketType::kPause;
  f.pfc_priority = prio;
  f.pfc_xoff = xoff;
  f.ecn_capable = false;
  f.wire_bytes = ctx_.wire.control_wire_bytes(PacketType::kPause);
  f.src = id_;
  PortCounters& pc = port_of(in_port).counters();
  if (xoff) {
    ++pc.pause_frames_sent;
    ++pause_frames_sent_;
    ++ctx_.counters.pause_frames;
    ++ctx_.counters.pause_frames_by_node[id_.index()];
  } else {
    ++pc.resume_frames_sent;
    ++ctx_.counters.resume_frames;
  }
  port_of(in_port).enqueue(id);
  if (ctx_.on_pfc) ctx_.on_pfc(PfcEvent{ctx_.sim.now(), id_, in_port, prio, xoff});
}

}  // namespace rocelab
