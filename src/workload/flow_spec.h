// One flow to start during a run: produced by workload generators, consumed by the scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/time.h"

namespace rocelab {

struct FlowSpec {
  uint32_t src_host = 0;  // node id
  uint32_t dst_host = 0;  // node id
  uint64_t size_bytes = 0;
  Time start;
  std::string tag;  // which generator made it, for per-class statistics
  // UDP ports as a trace gives them (the ns-3 simulators number them per host; see
  // workload/ns3_flows.h). Unset: the transport numbers the flow itself.
  std::optional<uint16_t> sport;
  std::optional<uint16_t> dport;
  // An end-to-end path ID between the two hosts' edge switches (Routing's mixed-radix IDs)
  // the flow's data packets are source routed along from the host, past every switch load
  // balancer. Unset: the path policy and the load balancers choose.
  std::optional<uint32_t> path;
  // Flows this one waits for, by index in the same list (each before this one): it starts
  // `after_delay` after the last of them is delivered, and not before `start`.
  std::vector<uint32_t> after;
  Delta after_delay;
  // The flow queued before this one on the same queue pair (same list): this one starts
  // once that one has sent its last byte, as a QP sends its messages in order.
  std::optional<uint32_t> behind;
  // The queue pair this flow is a later message of: the QP's first message, by index in
  // the same list (RdmaTransport::add_flow's `qp`; `behind` must then be the QP's previous
  // message). Unset: the flow is a QP of its own.
  std::optional<uint32_t> qp;
};

}  // namespace rocelab
