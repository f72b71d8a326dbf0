#include "net/pfc.h"

#include "net/host_node.h"
#include "net/switch_node.h"

namespace rocelab {

Pfc::Pfc(Switch& sw, bool pause)
    : node_(sw),
      ctx_(sw.context()),
      timing_(ctx_.pfc_pause),
      pause_(pause),
      handler_(ctx_.sim.add_handler(this, sw.id().index())) {
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
  egress_checked_ = mmu_.egress_checked();
}

Pfc::Pfc(Host& host)
    : node_(host),
      ctx_(host.context()),
      timing_(ctx_.pfc_pause),
      pause_(true),
      handler_(ctx_.sim.add_handler(this, host.id().index())) {}

bool Pfc::admit(PortId in, PortId out, Packet& p) {
  // ConWeave ns-3 DoSwitchSend: the egress check comes first. refused_at_egress_ is
  // written only where admit refuses (why_refused reads it after a refusal).
  if (egress_checked_ && !mmu_.egress_admits(out, p.priority, p.wire_bytes)) {
    refused_at_egress_ = true;
    return false;
  }
  if (!mmu_.admit(in, p.priority, p.wire_bytes)) {
    refused_at_egress_ = false;
    return false;
  }
  if (egress_checked_) mmu_.admit_egress(out, p.priority, p.wire_bytes);
  p.ingress_port = in;
  const Priority prio = p.priority;
  if (timing_.style == PfcPauseStyle::kPerPacket) {
    // ConWeave-ns3 switch-node.cc CheckAndSendPfc: a PAUSE for each packet over the
    // threshold, each renewing the switch's record; then its resume check on arrival.
    if (mmu_.over_xoff(in, prio)) {
      mmu_.set_pause_sent(in, prio, true);
      send_pfc(in, prio, true);
      start_timer(kLapse, in, prio, timing_.pause_for(node_.port(in).rate_bps()));
    } else if (mmu_.take_resume(in, prio)) {
      resume_sent(in, prio);
    }
    return true;
  }
  if (mmu_.take_pause(in, prio)) {
    send_pfc(in, prio, true);
    if (timing_.style == PfcPauseStyle::kStandard)
      start_timer(kRefresh, in, prio, timing_.refresh_for(node_.port(in).rate_bps()));
  }
  return true;
}

void Pfc::on_dequeue(PortId out, size_t, Packet& p) {
  mmu_.release(p.ingress_port, p.priority, p.wire_bytes);
  if (egress_checked_) mmu_.release_egress(out, p.priority, p.wire_bytes);
  if (mmu_.take_resume(p.ingress_port, p.priority)) resume_sent(p.ingress_port, p.priority);
  if (lapsed_count_ != 0) [[unlikely]]
    clear_lapse(p.ingress_port, p.priority);
}

void Pfc::clear_lapse(PortId in, Priority prio) {
  uint8_t& lapsed = lapsed_[port_prio_slot(in, prio)];
  if (lapsed == 0 || mmu_.pfc_counter(in, prio) > mmu_.resume_threshold(in)) return;
  lapsed = 0;
  --lapsed_count_;
}

FlowControl::Refusal Pfc::why_refused(PortId in, const Packet& p) const {
  if (refused_at_egress_) return Refusal::kEgressThreshold;
  const bool lapsed = lapsed_count_ != 0 && lapsed_[port_prio_slot(in, p.priority)] != 0;
  return lapsed ? Refusal::kPauseLapse : Refusal::kBuffer;
}

// The XON goes out; the sender's timers for this pause end with it.
void Pfc::resume_sent(PortId in, Priority prio) {
  cancel_timer(kRefresh, in, prio);
  cancel_timer(kLapse, in, prio);
  send_pfc(in, prio, false);
}

bool Pfc::on_frame(PortId in, const Packet& p) {
  if (p.type != PacketType::kPause) return false;
  // The peer pauses (or resumes) our egress toward it, from the next packet boundary; a
  // PAUSE holds for its time from its arrival, restarted by each one (802.1Qbb; both
  // ns-3 forks' qbb-net-device.cc Receive), except under kUntilResume (HPCC-ns3).
  if (!p.pfc_xoff) {
    cancel_timer(kExpire, in, p.pfc_priority);
    node_.port(in).set_priority_paused(p.pfc_priority, false);
    return true;
  }
  node_.port(in).set_priority_paused(p.pfc_priority, true);
  const BitsPerSec rate = node_.port(in).rate_bps();
  // Under kStandard a refresh sooner than the pause time always comes first (frames take
  // the same time over the same link, and PAUSEs are never dropped): no timer needed.
  const bool may_expire = timing_.style == PfcPauseStyle::kPerPacket ||
                          (timing_.style == PfcPauseStyle::kStandard &&
                           timing_.refresh_for(rate) >= timing_.pause_for(rate));
  if (may_expire) start_timer(kExpire, in, p.pfc_priority, timing_.pause_for(rate));
  return true;
}

// The pause ran out with no XON: the port sends again, and the event names the link as
// the frames do, from the pausing side.
void Pfc::end_pause(PortId port, Priority prio) {
  EgressPort& ep = node_.port(port);
  ep.set_priority_paused(prio, false);
  if (ctx_.on_pfc)
    ctx_.on_pfc(PfcEvent{ctx_.sim.now(), ep.peer()->id(), ep.peer_port(), prio, false, true});
}

uint32_t& Pfc::generation(TimerKind kind, PortId port, Priority prio) {
  const size_t i = port_prio_slot(port, prio) * 3 + kind;
  if (i >= generations_.size()) generations_.resize(node_.port_count() * 8 * 3, 0);
  return generations_[i];
}

void Pfc::start_timer(TimerKind kind, PortId port, Priority prio, Delta after) {
  const uint32_t gen = ++generation(kind, port, prio);
  const uint64_t key = (uint64_t{port.index()} << 3) | (prio & 7);
  ctx_.sim.schedule_in(after, handler_, kind, (key << 32) | gen);
}

void Pfc::cancel_timer(TimerKind kind, PortId port, Priority prio) {
  ++generation(kind, port, prio);
}

void Pfc::on_event(uint32_t kind, uint64_t arg) {
  const uint64_t key = arg >> 32;
  const PortId port(static_cast<uint16_t>(key >> 3));
  const auto prio = static_cast<Priority>(key & 7);
  const auto k = static_cast<TimerKind>(kind);
  if (generation(k, port, prio) != static_cast<uint32_t>(arg)) return;  // superseded
  switch (k) {
    case kExpire:
      end_pause(port, prio);
      break;
    case kRefresh:
      if (!mmu_.pause_sent(port, prio)) break;
      send_pfc(port, prio, true);
      start_timer(kRefresh, port, prio, timing_.refresh_for(node_.port(port).rate_bps()));
      break;
    case kLapse: {
      // switch-mmu.cc SetResume from the timer: no XON will be sent for this pause.
      mmu_.set_pause_sent(port, prio, false);
      // Its sender sends again, though the ingress has not drained to where an XON would
      // have gone: what overflows its headroom from now on is the lapse's loss.
      if (mmu_.pfc_counter(port, prio) <= mmu_.resume_threshold(port)) break;
      if (lapsed_.empty()) lapsed_.assign(node_.port_count() * 8, 0);
      uint8_t& lapsed = lapsed_[port_prio_slot(port, prio)];
      if (lapsed == 0) ++lapsed_count_;
      lapsed = 1;
      break;
    }
  }
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
    ++ctx_.counters().pause_frames;
    ++ctx_.counters().pause_frames_by_node[node_.id().index()];
  } else {
    ++ctx_.counters().resume_frames;
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
