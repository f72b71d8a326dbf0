// Long-lived flows: every receiver gets `flows_per_receiver` flows from as many distinct
// senders drawn at random, every host sending as many flows as it receives, all starting
// together. BFC §4.3 Fig. 8's background: "4 long-lived flows for each receiver from 4
// random senders".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/flow_spec.h"

namespace rocelab {

struct LongLivedParams {
  std::vector<uint32_t> hosts;      // senders and receivers (distinct), more than k of them
  uint32_t flows_per_receiver = 4;  // k
  uint64_t flow_size = 0;           // bytes per flow, >= 1
  Time start;
  std::string tag = "long_lived";
};

// hosts.size() * k flows, each host sending k and receiving k, no receiver with the same
// sender twice. Ordered by k, then by receiver. Throws std::invalid_argument on bad
// parameters.
std::vector<FlowSpec> generate_long_lived(const LongLivedParams& p, RandomStream& rng);

}  // namespace rocelab
