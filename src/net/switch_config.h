// Switch parameters. Each default names its source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

enum class PfcThresholdMode : uint8_t { kDynamic, kStatic };

// How long a PAUSE holds and how it ends (docs/validation.md, "PFC over seeds";
// docs/schemes/pfc.md).
enum class PfcPauseStyle : uint8_t {
  // IEEE 802.1Qbb: a PAUSE holds its class for the time it carries, restarted by each
  // PAUSE received; the sender sends one at the XOFF crossing, re-sends it every
  // `refresh` while XOFF holds and ends it with a PAUSE of time 0 (XON).
  kStandard,
  // ConWeave-ns3: a PAUSE for every packet admitted over the threshold; the switch's own
  // record of the pause lapses with the pause time after its last PAUSE, and no XON is
  // sent once it has (switch-node.cc CheckAndSendPfc, switch-mmu.cc SetPause/GetResume).
  kPerPacket,
  // HPCC-ns3: one PAUSE per crossing, obeyed until the XON (qbb-net-device.cc Receive
  // ignores the time the frame carries).
  kUntilResume,
};

struct PfcPauseTiming {
  PfcPauseStyle style = PfcPauseStyle::kStandard;
  // 802.1Qbb: quanta of 512 bit times at the link's rate; 0xFFFF, the largest, is what
  // switches send (335.5 us at 100 Gb/s).
  uint32_t quanta = 65535;
  // > 0: every PAUSE carries this time instead of `quanta` (both ns-3 forks: 5 us).
  Delta time;
  // kStandard: XOFF re-sent this often while it holds; 0 = half the pause time (a MAC
  // must re-send before the previous time runs out: Intel Ethernet IP guides, "PFC Holdoff
  // Quanta").
  Delta refresh;
  Delta pause_for(BitsPerSec rate_bps) const;
  Delta refresh_for(BitsPerSec rate_bps) const;
};

struct PfcConfig {
  // Pauses on (lossless) or off (a lossy shared buffer): set by the flow-control scheme
  // (`fc: pfc | none`), not a parameter of its own.
  bool enabled = true;
  PfcThresholdMode mode = PfcThresholdMode::kDynamic;
  // Dynamic XOFF = alpha x free shared buffer. 1/8: HPCC ns-3 simulator default
  // (SwitchMmu pfc_a_shift = 3).
  double alpha = 1.0 / 8;
  // Static XOFF per (ingress port, priority); FLB §4.3 uses 256 KB.
  int64_t static_xoff_bytes = 256 * 1024;
  // XON when the ingress counter falls below XOFF minus this. 3 KB: HPCC ns-3 resume_offset.
  int64_t resume_offset_bytes = 3 * 1024;
  // Headroom per (ingress port, lossless priority); 0 = size it from the link:
  // headroom_delay_factor x delay x rate + headroom_mtus x MTU frame + the PAUSE frame.
  // Defaults 2 and 3: data on the wire both ways while the PAUSE travels, plus the
  // trigger packet, our frame in transmission ahead of the PAUSE and the upstream's frame
  // in transmission when it arrives. (HPCC ns-3: 3 x delay x rate; ConWeave: 2 and 2.)
  int64_t headroom_bytes = 0;
  double headroom_delay_factor = 2;
  uint32_t headroom_mtus = 3;
  // Bytes of each (ingress, lossless class) that are its own and do not count against the
  // XOFF threshold or the shared pool (HPCC ns-3 switch-mmu.cc reserve 4 KiB; ConWeave
  // ns-3 pg_min + port_min = 2 MTU frames of 1048 B).
  int64_t guaranteed_bytes = 0;
  // Taken off the shared pool per switch port (HPCC ns-3 total_rsrv: 4 KiB per port;
  // ConWeave ns-3: 8 queues x 1048 B per port).
  int64_t pool_reserve_per_port_bytes = 0;
  // When set, the dynamic alpha of an ingress port doubles for each doubling of its rate
  // over this reference, up to 1 (HPCC ns-3 third.cc: pfc_a_shift drops by one per
  // doubling over the NIC rate). 0 = the same alpha on every port.
  BitsPerSec alpha_rate_reference_bps = 0;
  // When an ingress counter is over XOFF, what its next bytes use. false: its headroom
  // (HPCC ns-3 switch-mmu.cc: bytes past the threshold are headroom bytes). true: still the
  // shared pool, headroom only once the pool is full, and the pool counts every byte, the
  // guaranteed ones too (ConWeave ns-3's Broadcom-style switch-mmu.cc), with PFC off as on
  // (`fc: none` then only sends no PAUSE: ConWeave ns-3's ENABLE_PFC 0).
  bool headroom_when_pool_full = false;
  // > 0: each packet is also checked at its egress queue, before its ingress, as a
  // Broadcom-style MMU does: dropped when the queue's bytes past its own `egress_queue_min`
  // would pass egress_alpha x what is free of the egress pool (the buffer less
  // pool_reserve_per_port per port). A lossy check PFC does not stop (ConWeave ns-3
  // switch-mmu.cc CheckEgressAdmission, EgressAlpha 1, q_min 1 + 1048 B). 0 = none.
  double egress_alpha = 0;
  int64_t egress_queue_min_bytes = 0;
  // PAUSE frames jump the ACK/NAK/CNP frames waiting in the control queue (a MAC sends its
  // control frames ahead; the headroom above counts at most one frame ahead of the PAUSE).
  // The ns-3 forks enqueue them FIFO in queue 0 (qbb-net-device.cc SendPfc -> SwitchSend).
  bool pause_ahead_of_control = true;
  // Classes that are lossless (PFC-protected, headroom reserved); bit i = priority i.
  // RoCE deployments commonly run RDMA on priority 3.
  uint32_t lossless_priorities = 1u << 3;
  PfcPauseTiming pause;
};

struct EcnConfig {
  bool enabled = true;
  // RED on the instantaneous egress queue, checked when a packet leaves the queue (as the
  // HPCC/ConWeave ns-3 simulators do). DCQCN paper (Zhu et al., SIGCOMM'15, §6):
  // Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%.
  int64_t kmin_bytes = 5 * 1000;
  int64_t kmax_bytes = 200 * 1000;
  double pmax = 0.01;
  // When set, kmin/kmax are for a port of this rate and scale linearly with each port's
  // rate (HPCC ns-3 KMIN/KMAX maps: 100/400 KB at 25G ... 400/1600 KB at 100G).
  BitsPerSec reference_rate_bps = 0;
  // Settings for ports of exactly these rates, ahead of the above (the ns-3 simulators'
  // KMIN_MAP / KMAX_MAP / PMAX_MAP, one entry per link speed).
  struct RateSetting {
    BitsPerSec rate_bps = 0;
    int64_t kmin_bytes = 0;
    int64_t kmax_bytes = 0;
    double pmax = 0;
  };
  std::vector<RateSetting> per_rate;
  // The thresholds of a port of this rate.
  EcnConfig for_port(BitsPerSec rate_bps) const;
};

// A switch whose buffer differs from the others' (BFC §5: the gateways' 60 MB).
struct SwitchBufferOverride {
  std::string switch_name;
  int64_t buffer_bytes = 0;
};

struct SwitchConfig {
  // Shared buffer per switch. 12 MB: Broadcom Trident 3 class; FLB testbed uses 22 MB,
  // FLB simulations 9 MB.
  int64_t buffer_bytes = 12 * 1000 * 1000;
  // Switches with a buffer of their own size, by name (checked against the topology when
  // the scenario is built).
  std::vector<SwitchBufferOverride> buffers;
  // The buffer of the switch named `name`.
  int64_t buffer_of(const std::string& name) const {
    for (const SwitchBufferOverride& b : buffers)
      if (b.switch_name == name) return b.buffer_bytes;
    return buffer_bytes;
  }
  uint32_t num_queues = 8;  // data queues per egress port (802.1p classes)
  // Which hash picks among equal-cost next hops: rocelab's own (a 64-bit mix of the 5-tuple
  // and a per-switch seed) or the ns-3 simulators' (net/ns3_ecmp_hash.h).
  std::string ecmp_hash = "rocelab";
  // Where ACK/NAK frames wait at switch egress: "control", the strict-priority control
  // queue (ConWeave ns-3 sets AckHighPrio 1), or "data", their class's data queue, FIFO
  // with data and counted by the MMU like data (HPCC ns-3 switches, AckHighPrio 0).
  std::string ack_queue = "control";
  PfcConfig pfc;
  EcnConfig ecn;
};

void describe(ParamVisitor& v, PfcConfig& c);  // without `enabled`: the fc scheme sets it
void describe(ParamVisitor& v, EcnConfig& c);
void describe(ParamVisitor& v, SwitchConfig& c);  // buffer, queues, ecn

}  // namespace rocelab
