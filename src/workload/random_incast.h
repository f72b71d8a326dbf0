// Incasts at random: events arrive as a Poisson process at a given load, or periodically;
// each picks a receiver and `fan_in` senders uniformly among the hosts, and every sender
// starts its flow to the receiver at the event's instant. BFC §4.1's "5% of 100-to-1
// incast traffic (20 MB in aggregate)" on top of its background traffic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/flow_spec.h"

namespace rocelab {

struct RandomIncastParams {
  std::vector<uint32_t> hosts;  // candidates for sender and receiver (distinct)
  // Flows per incast: from distinct senders when fan_in < hosts.size(), else spread over
  // all other hosts, each sending fan_in / (hosts - 1) or one more.
  uint32_t fan_in = 100;
  uint64_t total_size = 0;  // bytes of one incast, split evenly (exactly one of the two)
  uint64_t size_per_sender = 0;
  double events_per_s = 0;  // mean incast rate (Poisson), unless
  Delta interval;           // > 0: one incast every interval from start
  Time start;               // no incast before
  Time stop;                // nor at or after
  std::string tag = "incast";
};

// Throws std::invalid_argument on bad parameters.
std::vector<FlowSpec> generate_random_incast(const RandomIncastParams& p, RandomStream& rng);

}  // namespace rocelab
