// Switch parameters. Each default names its source.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace rocelab {

enum class PfcThresholdMode : uint8_t { kDynamic, kStatic };

struct PfcConfig {
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
  // 2 x delay x rate (data on the wire both ways while the PAUSE travels) + 3 MTU frames
  // (the trigger packet, our frame in transmission ahead of the PAUSE, the upstream's
  // frame in transmission when it arrives) + the PAUSE frame itself.
  int64_t headroom_bytes = 0;
  // Classes that are lossless (PFC-protected, headroom reserved); bit i = priority i.
  // RoCE deployments commonly run RDMA on priority 3.
  uint32_t lossless_priorities = 1u << 3;
};

struct EcnConfig {
  bool enabled = true;
  // RED on the instantaneous egress queue, checked when a packet leaves the queue (as the
  // HPCC/ConWeave ns-3 simulators do). DCQCN paper (Zhu et al., SIGCOMM'15, §6):
  // Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%.
  int64_t kmin_bytes = 5 * 1000;
  int64_t kmax_bytes = 200 * 1000;
  double pmax = 0.01;
};

struct SwitchConfig {
  // Shared buffer per switch. 12 MB: Broadcom Trident 3 class; FLB testbed uses 22 MB,
  // FLB simulations 9 MB.
  int64_t buffer_bytes = 12 * 1000 * 1000;
  uint32_t num_queues = 8;  // data queues per egress port (802.1p classes)
  PfcConfig pfc;
  EcnConfig ecn;
};

}  // namespace rocelab
