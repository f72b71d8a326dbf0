// Switch buffer occupancy on request (outputs.buffer_sample_interval): every interval, the
// bytes each switch holds in its egress queues. The distribution over (switch, sample)
// goes to summary.json's `switch_buffer`: the CDF of BFC Fig. 6a and the tail of Fig. 8.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/build/experiment.h"

namespace rocelab {

class BufferSampler final : public EventHandler {
 public:
  BufferSampler(Experiment& exp, Delta interval);
  void on_event(uint32_t kind, uint64_t arg) override;
  void finish() { stopped_ = true; }  // the run is over; the drain is not sampled
  // Over several ranks each samples its own switches: every rank's samples, on every rank
  // (a collective). Before summary().
  void gather_over_ranks(RankGroup& ranks);
  // interval_ns, samples, mean/p50/p90/p99/max in KB, and cdf_kb: the 0th, 5th, ...,
  // 100th percentiles. Nearest-rank percentiles, as every other in summary.json.
  nlohmann::json summary() const;

 private:
  Experiment& exp_;
  Delta interval_;
  uint32_t handler_;
  bool stopped_ = false;
  std::vector<int64_t> samples_bytes_;
};

}  // namespace rocelab
