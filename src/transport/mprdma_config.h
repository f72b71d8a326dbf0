// Parameters of the MP-RDMA host path policy (transport/mprdma.h), under transport.path_policy
// (name: mprdma). The paper's text was not available here; the values are those of the first
// author's ns-3 code and two public reimplementations (docs/schemes/mprdma.md).
#pragma once

#include "sim/params.h"

namespace rocelab {

struct MpRdmaConfig {
  uint32_t delta_packets = 32;      // Δ: ACKs further behind the highest acked prune their path
  double probe_probability = 0.01;  // a packet tries a new random path, at most once per RTT
  double initial_window_bdp = 0;    // cwnd at start, in BDPs (0: one packet)
  // +1 packet per unmarked ACK until the first ECN echo or retransmission; a timeout goes
  // back to the initial window and slow start (the authors' ns-3 code).
  bool slow_start = true;
};

void describe(ParamVisitor& v, MpRdmaConfig& c);

}  // namespace rocelab
