// FCT statistics as defined in DESIGN.md: FCT, ideal FCT, slowdown = FCT / ideal (1 for a
// lone flow on its idle default path, not floored), size buckets small (0, 100 KB], medium
// (100 KB, 1 MB], large > 1 MB.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocelab {

struct FctSample {
  uint64_t size_bytes = 0;
  double fct_us = 0;
  double ideal_fct_us = 0;
};

struct FctSummary {
  uint64_t flows = 0;
  double afct_us = 0;
  double p50_fct_us = 0;
  double p99_fct_us = 0;
  double mean_slowdown = 0;
  double p50_slowdown = 0;
  double p99_slowdown = 0;
};

enum class SizeBucket { kSmall, kMedium, kLarge };
SizeBucket size_bucket(uint64_t size_bytes);
const char* size_bucket_name(SizeBucket b);

double slowdown(const FctSample& s);
// Nearest-rank percentile (p in [0, 100]) of unsorted values; 0 for an empty set.
double percentile(std::vector<double> values, double p);
FctSummary summarize(const std::vector<FctSample>& samples);

}  // namespace rocelab
