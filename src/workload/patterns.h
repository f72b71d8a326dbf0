// Deterministic traffic patterns: incast, synchronized bursts and explicit flow lists.
// None of them draws random numbers; every flow starts at an exact, computed time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/time.h"
#include "workload/flow_spec.h"

namespace rocelab {

// Many-to-one: every sender starts one flow to `receiver` at the same instant, `repeats`
// times, `interval` apart.
struct IncastParams {
  std::vector<uint32_t> senders;  // distinct, non-empty, must not contain receiver
  uint32_t receiver = 0;
  // Exactly one of the two must be > 0. total_size is the size of one incast (per repeat),
  // split evenly over the senders with the remainder bytes going one each to the first
  // senders; it must be >= senders.size() so that no flow is empty.
  uint64_t size_per_sender = 0;
  uint64_t total_size = 0;
  Time start;
  Delta interval = Delta::zero();  // between repeats; > 0 if repeats > 1, never negative
  uint32_t repeats = 1;            // >= 1
  std::string tag = "incast";
};

// repeats * senders.size() flows: repeat r starts every sender at exactly
// start + r * interval. Ordered by repeat, then by position in senders (so by start).
// Throws std::invalid_argument on bad parameters.
std::vector<FlowSpec> generate_incast(const IncastParams& params);

// Synchronized burst of many flows per sender to one receiver, e.g. FLB section 2: at
// 40 ms each of H3..H16 starts 40 flows of 64 KB to R2.
struct BurstParams {
  std::vector<uint32_t> senders;  // distinct, non-empty, must not contain receiver
  uint32_t receiver = 0;
  uint32_t flows_per_sender = 0;  // >= 1
  uint64_t flow_size = 0;         // bytes per flow, >= 1
  Time start;
  // Sender i (0-based position in senders) starts its flows at start + i * sender_spacing;
  // zero starts them all together. Never negative.
  Delta sender_spacing = Delta::zero();
  // The burst is issued `repeats` times (>= 1), burst k at start + k * interval (interval >
  // 0 when repeats > 1): Proteus Figs. 2 and 4's "5 bursts intermittently".
  uint32_t repeats = 1;
  Delta interval = Delta::zero();
  std::string tag = "burst";
};

// repeats * senders.size() * flows_per_sender flows, by burst, then grouped by sender in
// the order of senders (so ordered by start when interval covers a burst's sender
// stagger). Throws std::invalid_argument on bad parameters.
std::vector<FlowSpec> generate_burst(const BurstParams& params);

struct ExplicitFlow {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t size_bytes = 0;
  Time start;
  std::optional<uint32_t> path;  // FlowSpec::path (checked against the routing by the caller)
};

// The given flows, in the given order, all with `tag`. Throws std::invalid_argument naming
// the flow's index if src == dst, size_bytes == 0 or start is negative.
std::vector<FlowSpec> generate_explicit(const std::vector<ExplicitFlow>& flows, std::string tag);

}  // namespace rocelab
