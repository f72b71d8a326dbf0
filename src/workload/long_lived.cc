#include "workload/long_lived.h"

#include <stdexcept>
#include <utility>

namespace rocelab {

std::vector<FlowSpec> generate_long_lived(const LongLivedParams& p, RandomStream& rng) {
  const size_t n = p.hosts.size();
  if (p.flows_per_receiver == 0 || p.flows_per_receiver >= n)
    throw std::invalid_argument(
        "long-lived flows: flows_per_receiver must be in [1, hosts - 1], got " +
        std::to_string(p.flows_per_receiver) + " with " + std::to_string(n) + " hosts");
  if (p.flow_size == 0) throw std::invalid_argument("long-lived flows: flow_size must be >= 1");
  // Hosts in a random order around a ring; the k-th flow of the host at position i comes
  // from position i + offset_k, with k distinct random offsets in [1, n - 1]. No host sends
  // to itself, no receiver has one sender twice, every host sends and receives k flows.
  std::vector<uint32_t> ring = p.hosts;
  for (size_t i = n - 1; i > 0; --i)
    std::swap(ring[i], ring[static_cast<size_t>(rng.below(i + 1))]);
  std::vector<size_t> offsets(n - 1);
  for (size_t i = 0; i < n - 1; ++i) offsets[i] = i + 1;
  for (size_t k = 0; k < p.flows_per_receiver; ++k)
    std::swap(offsets[k], offsets[k + static_cast<size_t>(rng.below(n - 1 - k))]);
  std::vector<FlowSpec> flows;
  flows.reserve(n * p.flows_per_receiver);
  for (size_t k = 0; k < p.flows_per_receiver; ++k)
    for (size_t i = 0; i < n; ++i)
      flows.push_back(FlowSpec{ring[(i + offsets[k]) % n],
                               ring[i],
                               p.flow_size,
                               p.start,
                               p.tag,
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {}});
  return flows;
}

}  // namespace rocelab
