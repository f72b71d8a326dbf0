// Priority flow control (IEEE 802.1Qbb) over the shared-buffer MMU (net/mmu.h): a switch
// counts each admitted packet against its (ingress port, priority), sends XOFF upstream
// when that counter passes the threshold and XON when it falls below it minus the resume
// offset; a PAUSE received holds the queue of that priority for the time it carries
// (PfcPauseTiming: refreshed while XOFF holds, or as the ns-3 forks do). With pauses off
// the same buffer drops what it cannot hold (a lossy fabric). The lossless default of net/.
#pragma once

#include "net/flow_control.h"
#include "net/mmu.h"
#include "net/switch_config.h"
#include "sim/simulator.h"

namespace rocelab {

class Node;
struct NetContext;

class Pfc final : public FlowControl, public EventHandler {
 public:
  // A switch's PFC: sizes the headroom of each ingress from its link.
  explicit Pfc(Switch& sw, bool pause);
  // A host NIC's: obeys the ToR's PAUSE frames (hosts never drop).
  explicit Pfc(Host& host);

  bool admit(PortId in, PortId out, Packet& p) override;
  void on_dequeue(PortId out, size_t queue, Packet& p) override;
  bool on_frame(PortId in, const Packet& p) override;
  bool lossless() const override { return pause_; }
  Refusal why_refused(PortId in, const Packet& p) const override;
  const Mmu* buffer() const override { return &mmu_; }
  std::string check_drained() const override { return mmu_.check_drained(); }
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  // Timers per (port, priority); an event whose generation is no longer the slot's was
  // superseded (a later PAUSE, an XON) and does nothing.
  enum TimerKind : uint32_t {
    kExpire,   // receiver: the pause time of the last PAUSE ran out
    kRefresh,  // sender, kStandard: XOFF still holds, send it again
    kLapse,    // sender, kPerPacket: the switch's record of its pause lapses
  };
  void send_pfc(PortId in_port, Priority prio, bool xoff);
  void start_timer(TimerKind kind, PortId port, Priority prio, Delta after);
  void cancel_timer(TimerKind kind, PortId port, Priority prio);
  uint32_t& generation(TimerKind kind, PortId port, Priority prio);
  void end_pause(PortId port, Priority prio);
  void resume_sent(PortId in, Priority prio);

  Node& node_;
  NetContext& ctx_;
  // What admit and on_dequeue read on every packet, on the line of the vtable pointers
  // their calls load anyway: behind the MMU's config they cost 0.38 M L1 data misses of
  // 49.2 M (cachegrind, websearch-8x8 for 1 ms).
  PfcPauseTiming timing_;
  uint32_t lapsed_count_ = 0;
  bool pause_;
  bool egress_checked_ = false;     // mmu_.egress_checked()
  bool refused_at_egress_ = false;  // the last refusal was the egress threshold's
  Mmu mmu_;
  uint32_t handler_;
  std::vector<uint32_t> generations_;  // [port][priority][kind]
  // kPerPacket: [port][priority] 1 from a lapse of the switch's pause record while the
  // ingress stayed above the resume threshold (its sender sends again, though a standard
  // PAUSE would still hold it) until the ingress falls to that threshold.
  std::vector<uint8_t> lapsed_;  // by port_prio_slot, sized at the first lapse
  static size_t port_prio_slot(PortId in, Priority prio) {
    return size_t{in.index()} * 8 + (prio & 7);
  }
  void clear_lapse(PortId in, Priority prio);
};

class PfcConfigFactory final : public FlowControlConfig {
 public:
  explicit PfcConfigFactory(bool pause) : pause_(pause) {}
  bool lossless() const override { return pause_; }
  std::unique_ptr<FlowControl> build(Switch& sw) const override;
  std::unique_ptr<FlowControl> build(Host& host) const override;

 private:
  bool pause_;
};

}  // namespace rocelab
