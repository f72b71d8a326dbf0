#include "workload/patterns.h"

#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace rocelab {

namespace {

void check(bool ok, const char* generator, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(generator) + ": " + what);
}

// Shared checks for the many-to-one patterns.
void check_senders(const char* generator, const std::vector<uint32_t>& senders, uint32_t receiver) {
  check(!senders.empty(), generator, "senders must not be empty");
  std::unordered_set<uint32_t> seen;
  for (uint32_t s : senders) {
    check(s != receiver, generator,
          "senders must not contain the receiver (host " + std::to_string(receiver) + ")");
    check(seen.insert(s).second, generator,
          "senders must be distinct, host " + std::to_string(s) + " is listed twice");
  }
}

// start + k * step for k in [0, count); throws if the last one is past Time::never().
void check_schedule(const char* generator, Time start, Delta step, uint64_t count,
                    const char* step_name) {
  check(start >= Time::zero(), generator,
        "start must be >= 0, got " + std::to_string(start.ps) + " ps");
  check(step >= Delta::zero(), generator,
        std::string(step_name) + " must be >= 0, got " + std::to_string(step.ps) + " ps");
  const __int128 last =
      static_cast<__int128>(start.ps) + static_cast<__int128>(step.ps) * (count - 1);
  check(last <= Time::never().ps, generator,
        std::string("the last start time overflows; reduce ") + step_name);
}

}  // namespace

std::vector<FlowSpec> generate_incast(const IncastParams& params) {
  constexpr const char* kName = "generate_incast";
  check_senders(kName, params.senders, params.receiver);
  const uint64_t n = params.senders.size();
  check((params.size_per_sender > 0) != (params.total_size > 0), kName,
        "exactly one of size_per_sender and total_size must be > 0, got size_per_sender=" +
            std::to_string(params.size_per_sender) +
            " total_size=" + std::to_string(params.total_size));
  check(params.size_per_sender > 0 || params.total_size >= n, kName,
        "total_size must be >= the number of senders (" + std::to_string(n) +
            ") so that no flow is empty, got " + std::to_string(params.total_size));
  check(params.repeats >= 1, kName, "repeats must be >= 1");
  check(params.repeats == 1 || params.interval > Delta::zero(), kName,
        "interval must be > 0 when repeats > 1 (got repeats=" + std::to_string(params.repeats) +
            ", interval=" + std::to_string(params.interval.ps) + " ps)");
  check_schedule(kName, params.start, params.interval, params.repeats, "interval");

  // Per-sender sizes of one incast.
  std::vector<uint64_t> sizes(n, params.size_per_sender);
  if (params.total_size > 0) {
    const uint64_t base = params.total_size / n;
    const uint64_t extra = params.total_size % n;
    for (uint64_t i = 0; i < n; ++i) sizes[i] = base + (i < extra ? 1 : 0);
  }

  std::vector<FlowSpec> flows;
  flows.reserve(n * params.repeats);
  for (uint32_t r = 0; r < params.repeats; ++r) {
    const Time t = params.start + params.interval * r;
    for (uint64_t i = 0; i < n; ++i) {
      flows.push_back(FlowSpec{
          params.senders[i], params.receiver, sizes[i], t, params.tag, {}, {}, {}, {}, {}, {}, {}});
    }
  }
  return flows;
}

std::vector<FlowSpec> generate_burst(const BurstParams& params) {
  constexpr const char* kName = "generate_burst";
  check_senders(kName, params.senders, params.receiver);
  check(params.flows_per_sender >= 1, kName, "flows_per_sender must be >= 1");
  check(params.flow_size >= 1, kName, "flow_size must be >= 1 byte");
  check(params.repeats >= 1, kName, "repeats must be >= 1");
  check(params.repeats == 1 || params.interval > Delta::zero(), kName,
        "interval must be > 0 when repeats > 1 (got repeats=" + std::to_string(params.repeats) +
            ", interval=" + std::to_string(params.interval.ps) + " ps)");
  check_schedule(kName, params.start, params.interval, params.repeats, "interval");
  const Time last_burst = params.start + params.interval * (params.repeats - 1);
  check_schedule(kName, last_burst, params.sender_spacing, params.senders.size(), "sender_spacing");

  std::vector<FlowSpec> flows;
  flows.reserve(params.repeats * params.senders.size() * params.flows_per_sender);
  for (uint32_t r = 0; r < params.repeats; ++r) {
    const Time burst = params.start + params.interval * r;
    for (size_t i = 0; i < params.senders.size(); ++i) {
      const Time t = burst + params.sender_spacing * static_cast<int64_t>(i);
      for (uint32_t k = 0; k < params.flows_per_sender; ++k) {
        flows.push_back(FlowSpec{params.senders[i],
                                 params.receiver,
                                 params.flow_size,
                                 t,
                                 params.tag,
                                 {},
                                 {},
                                 {},
                                 {},
                                 {},
                                 {},
                                 {}});
      }
    }
  }
  return flows;
}

std::vector<FlowSpec> generate_explicit(const std::vector<ExplicitFlow>& flows, std::string tag) {
  std::vector<FlowSpec> out;
  out.reserve(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    const ExplicitFlow& f = flows[i];
    const std::string where = "flow " + std::to_string(i) + " (" + std::to_string(f.src) + "->" +
                              std::to_string(f.dst) + ")";
    check(f.src != f.dst, "generate_explicit", where + ": src and dst must differ");
    check(f.size_bytes >= 1, "generate_explicit", where + ": size_bytes must be >= 1");
    check(f.start >= Time::zero(), "generate_explicit",
          where + ": start must be >= 0, got " + std::to_string(f.start.ps) + " ps");
    out.push_back(
        FlowSpec{f.src, f.dst, f.size_bytes, f.start, tag, {}, {}, f.path, {}, {}, {}, {}});
  }
  return out;
}

}  // namespace rocelab
