// Parameters of the Hermes host path policy (transport/hermes.h), under transport.path_policy
// (name: hermes). Hermes' thresholds are queueing delays measured at 10 Gb/s in its authors'
// simulations (their ns-3 code, snowzjx/ns3-load-balance, where Hermes is "TLB"); the defaults here
// keep the same queue in bytes at 100 Gb/s, i.e. a tenth of the time
// (docs/schemes/hermes.md gives each value's source and the sensitivity).
#pragma once

#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

struct HermesConfig {
  // Path classes by smoothed RTT above the path's base RTT (T_RTT_low, T_RTT_high) and by
  // the fraction of ECN-marked ACKs (T_ECN; 1 = RTT alone, as the authors' simulations).
  Delta rtt_low = Delta::from_us(2);    // 20 us at 10G: "20 + base one-way delay"
  Delta rtt_high = Delta::from_us(14);  // 140 us above base at 10G (T_RTT_high 180 us)
  double ecn_threshold = 1.0;
  Delta delta_rtt = Delta::from_us(10);  // a gray path must beat the current by this (100 us)
  uint64_t min_bytes_before_reroute = 600'000;  // S: acked on the current path (600 KB)
  double max_rate_fraction = 0.5;  // R: reroute only flows at or below this share of line rate
  Delta reroute_gap = Delta::from_us(100);   // between two attempts of a flow
  double reroute_probability = 0.5;          // against herding
  Delta sample_window = Delta::from_us(60);  // T1: ECN counting window; samples older are stale
  uint32_t ecn_min_packets = 14;             // ECN fraction only over at least this many ACKs
  uint32_t timeouts_to_fail = 3;             // retransmission timeouts that mark a path failed
  Delta failure_hold = Delta::from_ms(100);  // a failed or timed-out path stays so this long
};

void describe(ParamVisitor& v, HermesConfig& c);

}  // namespace rocelab
