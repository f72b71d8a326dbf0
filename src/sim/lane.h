// The lane of the running thread: 0 outside a parallel run's windows (a serial run, setup,
// the global LP), else 1 + the index of the partition the thread is running. Shared state
// that a parallel run splits per partition (the packet pool's free lists, counters) picks
// its part by it, so the model code does not know it runs in parallel.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace rocelab {

inline thread_local uint32_t tls_sim_lane = 0;

// A value kept once per lane: each partition's events update their own (no lock, no shared
// cache line), and between runs fold() merges them into lane 0, which readers read. A
// serial run has lane 0 only.
template <class T>
class PerLane {
 public:
  PerLane() : lanes_(1) {}
  explicit PerLane(const T& initial) : lanes_(1, Slot{initial}) {}

  // The running lane's value.
  T& local() {
    const uint32_t lane = tls_sim_lane;
    if (lane >= lanes_.size()) [[unlikely]]
      no_lane(lane);
    return lanes_[lane].value;
  }
  // Lane 0: after fold(), every lane's contributions.
  T& merged() { return lanes_[0].value; }
  const T& merged() const { return lanes_[0].value; }
  // Lanes for `partitions` partitions (before the run), each a copy of `blank`.
  void set_lanes(uint32_t partitions, const T& blank) {
    lanes_.resize(partitions + 1, Slot{blank});
  }
  uint32_t lanes() const { return static_cast<uint32_t>(lanes_.size()); }
  // Lane `i` (0 .. lanes() - 1), for merges between runs.
  T& lane(uint32_t i) { return lanes_[i].value; }
  // merge(lane0, lane_k) for every other lane, which becomes `blank` again. Between runs.
  template <class Merge>
  void fold(Merge merge, const T& blank) {
    for (size_t i = 1; i < lanes_.size(); ++i) {
      merge(lanes_[0].value, lanes_[i].value);
      lanes_[i].value = blank;
    }
  }

 private:
  struct alignas(64) Slot {
    T value{};
  };
  [[noreturn]] static void no_lane(uint32_t lane) {
    std::fprintf(stderr, "rocelab: internal error: per-lane state has no lane %u (set_lanes)\n",
                 lane);
    std::abort();
  }
  std::vector<Slot> lanes_;
};

}  // namespace rocelab
