// CONGA's discounting rate estimator (Alizadeh et al., SIGCOMM'14 §3.5): a register X that
// grows by the bytes sent on a link and decays by a factor (1 - alpha) every T_dre, so
// X / (C tau), tau = T_dre / alpha, estimates the link's utilisation. The decay is applied
// when X is next read (a timer per port would cost an event per period whether or not
// anything changed); each step truncates to whole bytes, as the register does.
#pragma once

#include <cstdint>

#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

class DiscountingRateEstimator {
 public:
  // X now: decayed for every period boundary crossed since the last read, counting
  // periods from `origin` (the phase of the decay timer).
  uint64_t& bytes_at(Time now, Time origin, Delta period, double alpha) {
    const int64_t epoch = (now - origin).ps / period.ps;
    for (int64_t steps = epoch - epoch_; steps > 0 && bytes_ > 0; --steps)
      bytes_ = static_cast<uint64_t>(static_cast<double>(bytes_) * (1 - alpha));
    epoch_ = epoch;
    return bytes_;
  }
  // The utilisation X stands for on a link of `rate_bps`: X / (C tau).
  static double utilization(uint64_t bytes, BitsPerSec rate_bps, Delta period, double alpha) {
    const double tau_s = period.seconds() / alpha;
    return static_cast<double>(bytes) * 8 / (static_cast<double>(rate_bps) * tau_s);
  }

 private:
  uint64_t bytes_ = 0;  // X; 64 bits: X ~ rate x tau, and tau may be long
  int64_t epoch_ = 0;   // decay steps applied so far
};

}  // namespace rocelab
