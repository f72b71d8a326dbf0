#include "workload/random_incast.h"

#include <stdexcept>
#include <utility>

namespace rocelab {

std::vector<FlowSpec> generate_random_incast(const RandomIncastParams& p, RandomStream& rng) {
  const size_t n = p.hosts.size();
  if (n < 2) throw std::invalid_argument("random incast: needs at least 2 hosts");
  if (p.fan_in == 0) throw std::invalid_argument("random incast: fan_in must be >= 1");
  if ((p.total_size > 0) == (p.size_per_sender > 0))
    throw std::invalid_argument("random incast: give exactly one of total_size, size_per_sender");
  if (p.total_size > 0 && p.total_size < p.fan_in)
    throw std::invalid_argument("random incast: total_size below one byte per sender");
  const bool periodic = p.interval > Delta::zero();
  if (!periodic && !(p.events_per_s > 0))
    throw std::invalid_argument("random incast: rate must be > 0");
  const uint64_t base = p.total_size > 0 ? p.total_size / p.fan_in : p.size_per_sender;
  const uint64_t extra = p.total_size > 0 ? p.total_size % p.fan_in : 0;
  const double mean_gap_ps = periodic ? 0 : 1e12 / p.events_per_s;
  // More flows than other hosts: each sends fan_in / (n - 1) or one more.
  const bool spread = p.fan_in >= n;
  const size_t drawn = spread ? n - 1 : p.fan_in;

  std::vector<FlowSpec> flows;
  std::vector<uint32_t> pool = p.hosts;
  Time t = p.start;
  for (bool first = true;; first = false) {
    if (periodic)
      t = first ? p.start : t + p.interval;
    else
      t = t + Delta{static_cast<int64_t>(rng.exponential(mean_gap_ps))};
    if (t >= p.stop) break;
    // A partial Fisher-Yates draw: the receiver first, then the senders, all distinct.
    for (size_t k = 0; k <= drawn; ++k)
      std::swap(pool[k], pool[k + static_cast<size_t>(rng.below(n - k))]);
    const uint32_t receiver = pool[0];
    for (uint32_t i = 0; i < p.fan_in; ++i)
      flows.push_back(FlowSpec{pool[1 + i % drawn],
                               receiver,
                               base + (i < extra ? 1 : 0),
                               t,
                               p.tag,
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {}});
  }
  return flows;
}

}  // namespace rocelab
