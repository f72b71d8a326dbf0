// Open-loop background traffic: every host sends flows as a Poisson process with sizes drawn
// from a flow-size CDF, the model of the HPCC/ConWeave ns-3 traffic generators. Optionally
// the inter-arrival times are lognormal instead (bursty arrivals, as in the BFC paper).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/flow_size_cdf.h"
#include "workload/flow_spec.h"

namespace rocelab {

// How the gaps between one host's consecutive flow starts are drawn.
enum class ArrivalProcess {
  kPoisson,    // exponential gaps
  kLognormal,  // lognormal gaps with the same mean, shape lognormal_sigma
};

struct PoissonParams {
  std::vector<uint32_t> hosts;      // host node ids
  std::vector<uint32_t> host_rack;  // rack index per entry of hosts, same length
  BitsPerSec host_rate_bps = 0;
  // Offered load per host as a fraction of its link: each host starts flows at rate
  // load * host_rate_bps / (8 * mean_bytes), so its mean sending demand is load * rate.
  // Normally in (0,1); values >= 1 are allowed for deliberate overload.
  double load = 0;
  Time start;
  Time stop;  // arrivals in [start, stop)
  // < 0: destination uniform among all other hosts; otherwise the probability that the
  // destination is in the sender's rack (falls back to the other class if it is empty).
  double intra_rack_fraction = -1;
  // If not empty: destinations uniform among these host node ids (never the sender);
  // intra_rack_fraction must then be < 0.
  std::vector<uint32_t> receivers;
  std::string tag = "background";
  // Inter-arrival distribution. kLognormal keeps the mean gap of kPoisson at the same load
  // (mu = ln(mean_gap) - sigma^2 / 2), so only burstiness changes; BFC uses sigma = 2. Each
  // host's lognormal process starts in its stationary state (the first gap is a residual
  // life), so the expected flow count in any window is window / mean_gap, with no surplus
  // of early arrivals. lognormal_sigma must be in [0, 5] (0 gives evenly spaced arrivals;
  // above 5 no run could get near its mean load); it is ignored for kPoisson.
  ArrivalProcess arrivals = ArrivalProcess::kPoisson;
  double lognormal_sigma = 2.0;
};

// Flows sorted by (start, src_host). Deterministic for a given rng state. Throws
// std::invalid_argument on inconsistent parameters.
std::vector<FlowSpec> generate_poisson(const PoissonParams& params, const FlowSizeCdf& cdf,
                                       RandomStream& rng);

}  // namespace rocelab
