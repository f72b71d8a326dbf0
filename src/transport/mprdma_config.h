// Parameters of the MP-RDMA host path policy (transport/mprdma.h), under transport.mprdma.
// The paper's text was not available here; the values are those of two public
// reimplementations (docs/schemes/mprdma.md).
#pragma once

#include "sim/params.h"

namespace rocelab {

struct MpRdmaConfig {
  uint32_t delta_packets = 32;      // Δ: ACKs further behind the highest acked prune their path
  double probe_probability = 0.01;  // a packet tries a new random path, at most once per RTT
  double initial_window_bdp = 0;    // cwnd at start, in BDPs (0: one packet)
};

void describe(ParamVisitor& v, MpRdmaConfig& c);

}  // namespace rocelab
