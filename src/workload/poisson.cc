#include "workload/poisson.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace rocelab {

namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("generate_poisson: " + what);
}

}  // namespace

std::vector<FlowSpec> generate_poisson(const PoissonParams& params, const FlowSizeCdf& cdf,
                                       RandomStream& rng) {
  const size_t num_hosts = params.hosts.size();
  check(num_hosts >= 2, "need at least 2 hosts");
  check(params.host_rack.size() == num_hosts, "host_rack must have one entry per host");
  check(params.host_rate_bps > 0, "host_rate_bps must be positive");
  check(std::isfinite(params.load) && params.load > 0, "load must be positive");
  check(params.intra_rack_fraction <= 1, "intra_rack_fraction must be <= 1");
  check(cdf.mean_bytes() > 0, "flow-size CDF has zero mean");

  std::vector<FlowSpec> flows;
  if (params.stop <= params.start) return flows;

  // Indices into params.hosts grouped by rack, for same-rack / other-rack destinations.
  std::map<uint32_t, std::vector<size_t>> rack_members;
  for (size_t i = 0; i < num_hosts; ++i) rack_members[params.host_rack[i]].push_back(i);

  // Per-host arrival rate; see PoissonParams::load for why this definition.
  const double flows_per_sec =
      params.load * static_cast<double>(params.host_rate_bps) / (8.0 * cdf.mean_bytes());
  const double mean_gap_sec = 1.0 / flows_per_sec;
  const bool by_rack = params.intra_rack_fraction >= 0;

  std::vector<size_t> other_rack;  // reused per sender
  for (size_t src = 0; src < num_hosts; ++src) {
    const std::vector<size_t>& same_rack = rack_members[params.host_rack[src]];
    if (by_rack) {
      other_rack.clear();
      for (size_t j = 0; j < num_hosts; ++j) {
        if (params.host_rack[j] != params.host_rack[src]) other_rack.push_back(j);
      }
    }
    const size_t num_same = same_rack.size() - 1;  // excluding the sender itself

    Time t = params.start + Delta::from_seconds(rng.exponential(mean_gap_sec));
    while (t < params.stop) {
      size_t dst;
      if (!by_rack) {
        // Uniform over the other num_hosts - 1 hosts: skip over the sender.
        dst = rng.below(num_hosts - 1);
        if (dst >= src) ++dst;
      } else {
        bool want_same = rng.uniform() < params.intra_rack_fraction;
        if (num_same == 0) want_same = false;
        if (other_rack.empty()) want_same = true;
        if (want_same) {
          // Pick among rack members other than the sender.
          const size_t pos = std::find(same_rack.begin(), same_rack.end(), src) - same_rack.begin();
          size_t k = rng.below(num_same);
          if (k >= pos) ++k;
          dst = same_rack[k];
        } else {
          dst = other_rack[rng.below(other_rack.size())];
        }
      }
      flows.push_back(
          FlowSpec{params.hosts[src], params.hosts[dst], cdf.sample(rng), t, params.tag});
      t += Delta::from_seconds(rng.exponential(mean_gap_sec));
    }
  }

  // Stable, so equal (start, src) keep generation order and the output stays deterministic.
  std::stable_sort(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.src_host < b.src_host;
  });
  return flows;
}

}  // namespace rocelab
