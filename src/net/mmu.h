// Shared-buffer memory management of one output-queued switch: accounting per
// (ingress port, priority) for PFC (IEEE 802.1Qbb), as in the switch MMUs the HPCC and
// ConWeave ns-3 simulators model. A packet is counted in the shared pool while its
// ingress counter stays under the XOFF threshold, in that ingress's headroom after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "net/packet.h"
#include "net/switch_config.h"
#include "sim/ids.h"

namespace rocelab {

// Headroom of one ingress port and lossless class (PfcConfig::headroom_bytes, or sized
// from the link when that is 0).
int64_t pfc_headroom_bytes(const PfcConfig& pfc, const WireModel& wire, BitsPerSec rate_bps,
                           Delta delay);

class Mmu {
 public:
  // `headroom_per_port` is the headroom of each ingress port (for each lossless class),
  // `rate_per_port` its link rate (for PfcConfig::alpha_rate_reference_bps).
  void init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
            const std::vector<BitsPerSec>& rate_per_port = {});

  // Accounts an arriving data packet; false means it is dropped.
  bool admit(PortId in, Priority prio, int64_t bytes);
  // The packet left the switch.
  void release(PortId in, Priority prio, int64_t bytes);
  // PfcConfig::egress_alpha > 0: whether egress queue (out, prio) may take `bytes` more, and
  // its accounting (release_egress as the packet leaves).
  // Inline: three calls per packet hop under the conweave-ns3 preset (out of line they cost
  // conweave-128 --arrival-ms 1 22.9 M instructions of 3,321 M).
  bool egress_checked() const { return egress_.alpha > 0; }
  // ConWeave ns-3 CheckEgressAdmission: the pool first, then the queue's dynamic threshold.
  bool egress_admits(PortId out, Priority prio, int64_t bytes) const {
    const int64_t free = egress_.capacity - egress_.used;
    if (bytes > free) return false;
    const int64_t shared = egress_shared(counters_[slot(out, prio)].egress_bytes);
    return static_cast<double>(shared + bytes) <= egress_.alpha * static_cast<double>(free);
  }
  void admit_egress(PortId out, Priority prio, int64_t bytes) {
    int64_t& q = counters_[slot(out, prio)].egress_bytes;
    egress_.used += egress_shared(q + bytes) - egress_shared(q);
    q += bytes;
  }
  void release_egress(PortId out, Priority prio, int64_t bytes) {
    int64_t& q = counters_[slot(out, prio)].egress_bytes;
    egress_.used -= egress_shared(q) - egress_shared(q - bytes);
    q -= bytes;
  }

  // PFC decisions for (in, prio), to be acted on by sending a frame; they update state.
  bool take_pause(PortId in, Priority prio);
  // PfcPauseStyle::kPerPacket: is (in, prio) over the XOFF threshold now, pause sent or
  // not; and the sender's record of its pause, which lapses with the pause time.
  bool over_xoff(PortId in, Priority prio) const;
  void set_pause_sent(PortId in, Priority prio, bool sent);
  bool take_resume(PortId in, Priority prio);

  int64_t xoff_threshold(PortId in) const;
  int64_t shared_capacity() const { return shared_capacity_; }
  int64_t headroom_of(PortId in) const { return counters_[slot(in, 0)].headroom_limit; }
  int64_t ingress_bytes(PortId in, Priority prio) const {
    const PortPrio& c = counters_[slot(in, prio)];
    return c.guaranteed + c.shared + c.headroom;
  }
  bool pause_sent(PortId in, Priority prio) const { return counters_[slot(in, prio)].pause_sent; }
  // What the XOFF test compares with xoff_threshold (the guaranteed bytes excluded).
  int64_t pfc_counter(PortId in, Priority prio) const {
    const PortPrio& c = counters_[slot(in, prio)];
    return c.shared + c.headroom;
  }
  // XON once the counter falls to this (take_resume).
  int64_t resume_threshold(PortId in) const {
    return xoff_threshold(in) - pfc_.resume_offset_bytes;
  }
  bool lossless(Priority prio) const {
    return pfc_.enabled && ((pfc_.lossless_priorities >> prio) & 1u);
  }
  // Whether the class's bytes take the guaranteed, pool and headroom path of admit. The
  // Broadcom-style MMU (headroom_when_pool_full) admits the same way with PFC off: ConWeave
  // ns-3's CheckIngressAdmission does not look at ENABLE_PFC, which only stops the PAUSEs.
  bool buffered_as_lossless(Priority prio) const {
    return ((pfc_.lossless_priorities >> prio) & 1u) &&
           (pfc_.enabled || pfc_.headroom_when_pool_full);
  }
  // Empty string when all counters are back to zero.
  std::string check_drained() const;

 private:
  static constexpr size_t kPriorities = 8;
  size_t slot(PortId in, Priority prio) const { return in.index() * kPriorities + (prio & 7); }

  // The counters of one (port, priority), side by side: as an ingress, admitting,
  // releasing and the PAUSE decision each read several of them, from one cache line. The
  // port's dynamic-threshold alpha and headroom are copied into each of its slots, so that
  // the threshold check reads no other line. Under egress_alpha the same line holds the
  // bytes of the port's egress queue of that priority: a port that both receives and sends
  // at a priority keeps one line warm, not two (cachegrind, conweave-128 --arrival-ms 1,
  // plain -O3: 65.52 M to 64.85 M L1 data misses against an array of their own).
  struct alignas(64) PortPrio {
    int64_t guaranteed = 0;
    int64_t shared = 0;
    int64_t headroom = 0;
    int64_t headroom_limit = 0;
    double alpha = 0;
    bool pause_sent = false;
    int64_t egress_bytes = 0;  // egress_alpha: bytes queued at (this port, priority)
  };
  int64_t xoff_threshold(const PortPrio& c) const;

  int64_t egress_shared(int64_t queue_bytes) const {
    return std::max<int64_t>(0, queue_bytes - egress_.queue_min_bytes);
  }

  PfcConfig pfc_;
  int64_t shared_capacity_ = 0;
  int64_t shared_total_ = 0;
  int64_t headroom_total_used_ = 0;
  std::vector<PortPrio> counters_;
  // egress_alpha: the pool's capacity, what the queues hold of it past their own minimum,
  // and the two parameters, on a line of their own
  // (placed among the other counters, or without the alignment, conweave-128 took 0.4-0.6 M
  // more L1 data misses; cachegrind, --arrival-ms 1).
  struct alignas(64) EgressPool {
    int64_t capacity = 0;
    int64_t used = 0;
    double alpha = 0;             // PfcConfig::egress_alpha
    int64_t queue_min_bytes = 0;  // PfcConfig::egress_queue_min_bytes
  } egress_;
};

}  // namespace rocelab
