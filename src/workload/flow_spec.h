// One flow to start during a run: produced by workload generators, consumed by the scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/time.h"

namespace rocelab {

struct FlowSpec {
  uint32_t src_host = 0;  // node id
  uint32_t dst_host = 0;  // node id
  uint64_t size_bytes = 0;
  Time start;
  std::string tag;  // which generator made it, for per-class statistics
  // UDP ports as a trace gives them (the ns-3 simulators number them per host; see
  // scenario/ns3_format.h). Unset: the transport numbers the flow itself.
  std::optional<uint16_t> sport;
  std::optional<uint16_t> dport;
};

}  // namespace rocelab
