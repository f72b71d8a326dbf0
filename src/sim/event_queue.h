// The event list: a vector-backed 4-ary min-heap of small plain events ordered by
// (time, insertion sequence), so ties break deterministically. Nothing is allocated per
// event once the vector has grown to the simulation's working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace rocelab {

struct Event {
  Time time;
  uint64_t seq;
  uint32_t target;  // index of the handler in the simulator's table
  uint32_t kind;    // meaning chosen by the handler
  uint64_t arg;     // meaning chosen by the handler (e.g. flow id | timer version << 32)
};

class EventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

  void push(Time time, uint32_t target, uint32_t kind, uint64_t arg) {
    heap_.push_back(Event{time, next_seq_++, target, kind, arg});
    sift_up(heap_.size() - 1);
  }

  Event pop() {
    Event top = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return top;
  }

  void clear() { heap_.clear(); }

 private:
  static constexpr size_t kArity = 4;
  static bool before(const Event& a, const Event& b) {
    return a.time.ps < b.time.ps || (a.time.ps == b.time.ps && a.seq < b.seq);
  }
  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(size_t i) {
    const size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      size_t first = i * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      size_t last = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace rocelab
