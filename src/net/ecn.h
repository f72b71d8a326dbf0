// RED-style ECN marking on the instantaneous queue (the DCQCN congestion point): no mark
// at or below Kmin, probability rising linearly to Pmax at Kmax, always above Kmax.
#pragma once

#include <cstdint>

#include "net/switch_config.h"
#include "sim/random.h"

namespace rocelab {

inline double red_mark_probability(int64_t queue_bytes, const EcnConfig& ecn) {
  if (queue_bytes <= ecn.kmin_bytes) return 0.0;
  if (queue_bytes > ecn.kmax_bytes) return 1.0;
  return ecn.pmax * static_cast<double>(queue_bytes - ecn.kmin_bytes) /
         static_cast<double>(ecn.kmax_bytes - ecn.kmin_bytes);
}

inline bool red_should_mark(int64_t queue_bytes, const EcnConfig& ecn, RandomStream& rng) {
  const double p = red_mark_probability(queue_bytes, ecn);
  return p >= 1.0 || (p > 0.0 && rng.uniform() < p);
}

}  // namespace rocelab
