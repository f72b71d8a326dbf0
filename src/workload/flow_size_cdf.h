// Empirical flow-size distributions read from `.cdf` files (the repository's workloads/).
//
// A file lists points `size_bytes cumulative_percent`. Between points sizes are interpolated
// linearly, the rule the ns-3 reference traffic generators (HPCC, ConWeave) use, so results
// are comparable with theirs. If the first point's percent is above 0, that share of flows
// has exactly the first size.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/random.h"

namespace rocelab {

class FlowSizeCdf {
 public:
  // Reads and validates a CDF file; throws std::runtime_error naming the file and line.
  // name() is the file's stem, e.g. "websearch".
  static FlowSizeCdf load(const std::string& path);
  // Points are (size_bytes, cumulative_percent); same validation as load(), errors name
  // `name` and the 1-based point index.
  static FlowSizeCdf from_points(std::vector<std::pair<double, double>> pts, std::string name);

  // One flow size: inverse-CDF with linear interpolation, rounded to the nearest byte, >= 1.
  uint64_t sample(RandomStream& rng) const;
  // Exact mean under the interpolation rule (before rounding to whole bytes).
  double mean_bytes() const { return mean_bytes_; }
  const std::string& name() const { return name_; }
  size_t num_points() const { return size_bytes_.size(); }

 private:
  FlowSizeCdf() = default;

  std::string name_;
  std::vector<double> size_bytes_;
  std::vector<double> percent_;  // cumulative, non-decreasing, last == 100
  double mean_bytes_ = 0;
};

}  // namespace rocelab
