#include "workload/poisson.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/portable_math.h"

namespace rocelab {

namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("generate_poisson: " + what);
}

// Largest lognormal_sigma accepted: the gap's squared coefficient of variation is
// exp(sigma^2) - 1, and a run needs far more flows than that to approach its mean load.
constexpr double kMaxLognormalSigma = 5.0;

// Draws the gaps of one host's arrival process, in seconds.
class GapSampler {
 public:
  GapSampler(const PoissonParams& params, double mean_gap_sec)
      : lognormal_(params.arrivals == ArrivalProcess::kLognormal),
        mean_gap_sec_(mean_gap_sec),
        sigma_(params.lognormal_sigma),
        // E[exp(N(mu, sigma^2))] = exp(mu + sigma^2 / 2) = mean_gap_sec.
        mu_(pmath::log(mean_gap_sec) - sigma_ * sigma_ / 2) {}

  // Time from the window start to the host's first arrival. For Poisson this is a plain gap
  // (memoryless). For lognormal it is the stationary residual life U * Y, where Y is the
  // length-biased gap, which for LN(mu, sigma) is LN(mu + sigma^2, sigma); starting with a
  // fresh gap instead would add about exp(sigma^2) / 2 - 1 flows per host (26 for sigma 2).
  double first(RandomStream& rng) {
    if (!lognormal_) return next(rng);
    const double u = rng.uniform();
    return u * rng.lognormal(mu_ + sigma_ * sigma_, sigma_);
  }

  double next(RandomStream& rng) {
    return lognormal_ ? rng.lognormal(mu_, sigma_) : rng.exponential(mean_gap_sec_);
  }

 private:
  bool lognormal_;
  double mean_gap_sec_;
  double sigma_;
  double mu_;
};

// Moves t by gap_sec; false once t reaches `stop`. Gaps that certainly overshoot `stop` are
// not converted at all, which keeps huge or infinite gaps from overflowing the picoseconds.
bool advance(Time& t, double gap_sec, Time stop) {
  if (!(gap_sec < (stop - t).seconds() + 1.0)) return false;
  t += Delta::from_seconds(gap_sec);
  return t < stop;
}

}  // namespace

std::vector<FlowSpec> generate_poisson(const PoissonParams& params, const FlowSizeCdf& cdf,
                                       RandomStream& rng) {
  const size_t num_hosts = params.hosts.size();
  check(num_hosts >= (params.receivers.empty() ? 2u : 1u), "need at least 2 hosts");
  check(params.host_rack.size() == num_hosts, "host_rack must have one entry per host");
  check(params.host_rate_bps > 0, "host_rate_bps must be positive");
  check(std::isfinite(params.load) && params.load > 0, "load must be positive");
  check(params.intra_rack_fraction <= 1, "intra_rack_fraction must be <= 1");
  check(params.receivers.empty() || params.intra_rack_fraction < 0,
        "receivers and intra_rack_fraction exclude each other");
  for (uint32_t h : params.hosts)
    check(params.receivers.empty() || params.receivers.size() > 1 || params.receivers[0] != h,
          "a sender's only receiver is itself");
  check(cdf.mean_bytes() > 0, "flow-size CDF has zero mean");
  static_assert(kMaxLognormalSigma == 5.0, "update the message below");
  check(
      params.arrivals == ArrivalProcess::kPoisson || params.arrivals == ArrivalProcess::kLognormal,
      "arrivals must be kPoisson or kLognormal");
  if (params.arrivals == ArrivalProcess::kLognormal) {
    check(std::isfinite(params.lognormal_sigma) && params.lognormal_sigma >= 0 &&
              params.lognormal_sigma <= kMaxLognormalSigma,
          "lognormal_sigma must be in [0, 5], got " + std::to_string(params.lognormal_sigma));
  }

  std::vector<FlowSpec> flows;
  if (params.stop <= params.start) return flows;

  // Generated per host, sorted, then turned into FlowSpecs: sorting these small records
  // instead of FlowSpecs (which hold a string) is several times faster for millions of flows.
  struct Arrival {
    Time start;
    uint32_t src_host;
    uint32_t dst_host;
    uint64_t size_bytes;
  };
  std::vector<Arrival> arrivals;

  // Indices into params.hosts grouped by rack, for same-rack / other-rack destinations.
  std::map<uint32_t, std::vector<size_t>> rack_members;
  for (size_t i = 0; i < num_hosts; ++i) rack_members[params.host_rack[i]].push_back(i);

  // Per-host arrival rate; see PoissonParams::load for why this definition.
  const double flows_per_sec =
      params.load * static_cast<double>(params.host_rate_bps) / (8.0 * cdf.mean_bytes());
  const double mean_gap_sec = 1.0 / flows_per_sec;
  const bool by_rack = params.intra_rack_fraction >= 0;
  GapSampler gaps(params, mean_gap_sec);

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

    Time t = params.start;
    bool more = advance(t, gaps.first(rng), params.stop);
    while (more) {
      size_t dst;
      if (!params.receivers.empty()) {
        const uint32_t self = params.hosts[src];
        const bool self_receives = std::find(params.receivers.begin(), params.receivers.end(),
                                             self) != params.receivers.end();
        uint32_t pick;
        do {  // uniform over the receivers other than the sender
          pick = params.receivers[rng.below(params.receivers.size())];
        } while (self_receives && pick == self);
        arrivals.push_back(Arrival{t, self, pick, cdf.sample(rng)});
        more = advance(t, gaps.next(rng), params.stop);
        continue;
      }
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
      arrivals.push_back(Arrival{t, params.hosts[src], params.hosts[dst], cdf.sample(rng)});
      more = advance(t, gaps.next(rng), params.stop);
    }
  }

  // Stable, so equal (start, src) keep generation order and the output stays deterministic.
  std::stable_sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.src_host < b.src_host;
  });
  flows.reserve(arrivals.size());
  for (const Arrival& a : arrivals) {
    flows.push_back(FlowSpec{
        a.src_host, a.dst_host, a.size_bytes, a.start, params.tag, {}, {}, {}, {}, {}, {}, {}});
  }
  return flows;
}

}  // namespace rocelab
