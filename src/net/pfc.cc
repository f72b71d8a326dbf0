#include "net/pfc.h"

#include "net/host_node.h"
#include "net/switch_node.h"

namespace rocelab {

Pfc::Pfc(Switch& sw, bool pause) : node_(sw), ctx_(sw.context()), pause_(pause) {
  SwitchConfig cfg = sw.config();
  cfg.pfc.enabled = pause;
  std::vector<int64_t> headroom;
  std::vector<BitsPerSec> rates;
  for (size_t i = 0; i < sw.port_count(); ++i) {
    const EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
    rates.push_back(port.rate_bps());
    headroom.push_back(pfc_headroom_bytes(cfg.pfc, ctx_.wire, port.rate_bps(), port.delay()));
  }
  mmu_.init(cfg, headroom, rates);
}

Pfc::Pfc(Host& host) : node_(host), ctx_(host.context()), pause_(true) {}

bool Pfc::admit(PortId in, PortId, Packet& p) {
  if (!mmu_.admit(in, p.priority, p.wire_bytes)) return false;
  p.ingress_port = in;
  if (mmu_.take_pause(in, p.priority)) send_pfc(in, p.priority, true);
  return true;
}

void Pfc::on_dequeue(PortId, Packet& p) {
  mmu_.release(p.ingress_port, p.priority, p.wire_bytes);
  if (mmu_.take_resume(p.ingress_port, p.priority)) send_pfc(p.ingress_port, p.priority, false);
}

bool Pfc::on_frame(PortId in, const Packet& p) {
  if (p.type != PacketType::kPause) return false;
  // The peer pauses (or resumes) our egress toward it, from the next packet boundary.
  node_.port(in).set_priority_paused(p.pfc_priority, p.pfc_xoff);
  return true;
}

void Pfc::send_pfc(PortId in_port, Priority prio, bool xoff) {
  const PacketId id = ctx_.alloc_packet();
  Packet& f = ctx_.pkt(id);
  f.type = PacketType::kPause;
  f.pfc_priority = prio;
  f.pfc_xoff = xoff;
  f.ecn_capable = false;
  f.wire_bytes = ctx_.wire.control_wire_bytes(PacketType::kPause);
  f.src = node_.id();
  EgressPort& port = node_.port(in_port);
  port.count_pfc_frame_sent(xoff);
  if (xoff) {
    ++ctx_.counters.pause_frames;
    ++ctx_.counters.pause_frames_by_node[node_.id().index()];
  } else {
    ++ctx_.counters.resume_frames;
  }
  port.enqueue(id);
  if (ctx_.on_pfc) ctx_.on_pfc(PfcEvent{ctx_.sim.now(), node_.id(), in_port, prio, xoff});
}

std::unique_ptr<FlowControl> PfcConfigFactory::build(Switch& sw) const {
  return std::make_unique<Pfc>(sw, pause_);
}

std::unique_ptr<FlowControl> PfcConfigFactory::build(Host& host) const {
  return std::make_unique<Pfc>(host);
}

}  // namespace rocelab
