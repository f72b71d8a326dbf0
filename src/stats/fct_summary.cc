#include "stats/fct_summary.h"

#include <algorithm>
#include <cmath>

namespace rocelab {

SizeBucket size_bucket(uint64_t size_bytes) {
  if (size_bytes <= 100 * 1000) return SizeBucket::kSmall;
  if (size_bytes <= 1000 * 1000) return SizeBucket::kMedium;
  return SizeBucket::kLarge;
}

const char* size_bucket_name(SizeBucket b) {
  switch (b) {
    case SizeBucket::kSmall:
      return "small";
    case SizeBucket::kMedium:
      return "medium";
    case SizeBucket::kLarge:
      return "large";
  }
  return "?";
}

// Not floored at 1: the ideal is exact for a lone flow, so a value below 1 is a finding (a
// flow on a faster path than the default one), not noise to hide. A flow with nothing to
// send (ideal 0, FCT 0) counts as 1.
double slowdown(const FctSample& s) {
  return s.ideal_fct_us > 0 ? s.fct_us / s.ideal_fct_us : 1.0;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  const size_t rank =
      static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  const size_t idx = rank == 0 ? 0 : rank - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(idx), values.end());
  return values[idx];
}

FctSummary summarize(const std::vector<FctSample>& samples) {
  FctSummary out;
  out.flows = samples.size();
  if (samples.empty()) return out;
  std::vector<double> fct, sd;
  fct.reserve(samples.size());
  sd.reserve(samples.size());
  double fct_sum = 0, sd_sum = 0;
  for (const FctSample& s : samples) {
    fct.push_back(s.fct_us);
    sd.push_back(slowdown(s));
    fct_sum += s.fct_us;
    sd_sum += sd.back();
  }
  const double n = static_cast<double>(samples.size());
  out.afct_us = fct_sum / n;
  out.mean_slowdown = sd_sum / n;
  out.p50_fct_us = percentile(fct, 50);
  out.p99_fct_us = percentile(fct, 99);
  out.p50_slowdown = percentile(sd, 50);
  out.p99_slowdown = percentile(sd, 99);
  return out;
}

}  // namespace rocelab
