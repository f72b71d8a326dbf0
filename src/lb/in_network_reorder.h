// In-network reordering at the destination ToR, as ConWeave (Song et al., SIGCOMM'23 §4.3)
// builds it and ConWeave-ns3 implements it (conweave-routing.cc, ConWeaveVOQ), shared by
// every scheme that moves a flow mid-stream and restores its order before the host:
// ConWeave, and LBoDSN ("reordered at the destination switch like ConWeave", §3.3).
//
// A flow's packets carry an epoch and a phase: a reroute sends one last old-path packet,
// the TAIL, then moves the flow, its later packets in phase 1. Phase-1 packets that
// overtake the TAIL wait in a reorder queue of their own, taken from a pool, until the
// TAIL arrives or until a deadline predicted from the departure gap between the last
// old-path packet and the TAIL (+ flush_extra; default_wait with no old-path timing).
// Held packets live in the switch buffer, charged to their ingress port (held_in_buffer:
// PFC sees them), or beside it until released (ConWeave-ns3). The caller answers the TAIL
// (CLEAR) itself: the reply protocol is the scheme's.
//
// Statistics: packets held, flushes (by TAIL or deadline), the pool's and the buffer's
// peaks, and per host-facing egress port the time spent with k live reorder queues, the
// continuous form of ConWeave-ns3's queueAnalysis.py (10 us samples, zero-filled).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "net/scheme_stat.h"
#include "net/switch_view.h"
#include "sim/flat_map.h"
#include "sim/simulator.h"

namespace rocelab {

// What the reorder logic reads from a data packet's scheme header.
struct ReorderTag {
  Time tx_time;    // departure from the source ToR
  Time tail_time;  // when this epoch's TAIL left the source ToR (zero: none yet)
  uint32_t epoch = 0;
  uint8_t phase = 0;  // 1 = REROUTED (sent after the TAIL)
  bool tail = false;  // the TAIL itself
};

struct InNetworkReorderConfig {
  Delta flush_extra;   // slack on the predicted TAIL arrival
  Delta default_wait;  // hold time when no old-path packet was seen
  bool held_in_buffer = true;
};

class InNetworkReorder {
 public:
  // Flush timers are armed for `handler` with event kind `flush_event`; the owner hands
  // such events back through on_flush_event.
  InNetworkReorder(const SwitchView& sw, const InNetworkReorderConfig& cfg, uint32_t handler,
                   uint32_t flush_event);

  // A tagged data packet from the fabric for a local host: updates the flow's epoch and
  // phase and its flush deadline. kHold: the packet overtook its TAIL (then call hold());
  // kOldEpoch: it belongs to an epoch the flow has left, and passes untouched.
  enum class Verdict : uint8_t { kForward, kHold, kOldEpoch };
  Verdict arrive(const ReorderTag& tag, const Packet& p);
  // Puts the packet arrive() marked into its flow's reorder queue (or drops it, freed and
  // counted by the switch, when the buffer refuses it under held_in_buffer).
  void hold(Packet& p, PortId in_port);
  void on_flush_event(uint64_t arg);
  // Flow state idle longer than `idle` and without a live queue is dropped.
  void drop_idle(Time now, Delta idle);

  struct Counters {
    uint64_t held_packets = 0;  // out-of-order packets put in reorder queues
    uint64_t flushes = 0, flushes_by_tail = 0;
    uint64_t max_queues = 0, max_held_packets = 0, max_held_bytes = 0;
  };
  const Counters& counters() const { return stats_; }
  // Counters as `<prefix>_held_packets` ..., and the per-port occupancy histogram as
  // `<prefix>_port_queues_us_<kk>` (kk = 00..16, two digits; 16 means 16 or more),
  // summed over ports and switches, and `<prefix>_max_queues_per_port`.
  void add_stats(const std::string& prefix, std::vector<SchemeStat>& out) const;
  static constexpr uint32_t kHistogramTop = 16;

 private:
  struct RxFlow {
    Time active;
    Time phase0_tx, phase0_rx, tail_time;
    uint32_t epoch = 1;
    uint32_t queue = kNoQueue;
    uint8_t phase = 0;
    bool phase0_seen = false;
    bool reordering = false;
  };
  struct Held {
    PacketId pkt;
    PortId in_port;
  };
  struct ReorderQueue {
    FlowId flow;
    PortId port;  // the host-facing egress port its packets leave by
    TimerSlot flush;
    std::vector<Held> held;
  };
  // Occupancy of one host-facing egress port: live queues, time with k of them.
  struct PortOccupancy {
    uint32_t live = 0;
    uint32_t max = 0;
    Time since;
    std::array<int64_t, kHistogramTop + 1> time_ps{};
  };
  static constexpr uint32_t kNoQueue = 0xffffffffu;

  void schedule_flush(RxFlow& f, const Packet& p, Time when);
  void flush(uint32_t queue);
  void port_change(PortId port, int delta);

  const SwitchView sw_;
  InNetworkReorderConfig cfg_;
  uint32_t handler_;
  uint32_t flush_event_;
  FlatMap<uint32_t, RxFlow> rx_;
  std::vector<ReorderQueue> queues_;
  std::vector<uint32_t> free_queues_;
  std::vector<Held> scratch_held_;
  std::vector<PortOccupancy> ports_;  // by port index; host-facing ports only are reported
  std::vector<uint8_t> host_port_;
  uint64_t live_queues_ = 0, live_held_packets_ = 0, live_held_bytes_ = 0;
  Counters stats_;
};

}  // namespace rocelab
