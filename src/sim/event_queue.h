// The event list: a vector-backed 4-ary min-heap ordered by (time, insertion sequence), so
// ties break deterministically. The heap holds 16-byte keys only (time; sequence and the
// payload's slot packed in one word), four children to a cache line; payloads wait in a
// slot array. Nothing is allocated per event once the vectors reach the working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
  // 2^24 events may be pending at once; 2^40 may be scheduled over a run.
  static constexpr int kSlotBits = 24;
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;

  void reserve(size_t n) {
    heap_.reserve(n);
    slots_.reserve(n);
    free_slots_.reserve(n);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  Time top_time() const { return Time{static_cast<int64_t>(heap_.front() >> 64)}; }

  void push(Time time, uint32_t target, uint32_t kind, uint64_t arg) {
    push_reserved(time, next_seq_++, target, kind, arg);
  }

  // Takes the next sequence number for an event pushed later with push_reserved: among
  // events of its time it then orders as if it had been pushed now. Each reserved number
  // may be pushed once.
  uint64_t reserve_seq() { return next_seq_++; }
  void push_reserved(Time time, uint64_t seq, uint32_t target, uint32_t kind, uint64_t arg) {
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      if (slot > kSlotMask) overflow();
      slots_.emplace_back();
    }
    slots_[slot] = Payload{target, kind, arg};
    heap_.push_back(make_key(time.ps, (seq << kSlotBits) | slot));
    sift_up(heap_.size() - 1);
  }

  Event pop() {
    const Key top = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    const uint64_t seq_slot = static_cast<uint64_t>(top);
    const uint32_t slot = static_cast<uint32_t>(seq_slot & kSlotMask);
    const Payload& p = slots_[slot];
    free_slots_.push_back(slot);
    return Event{Time{static_cast<int64_t>(top >> 64)}, seq_slot >> kSlotBits, p.target, p.kind,
                 p.arg};
  }

 private:
  // time << 64 | sequence << kSlotBits | slot. Time is never negative and the sequence is
  // unique, so one unsigned 128-bit comparison orders events; it compiles to branch-free
  // selects where the heap picks its smallest child.
  using Key = unsigned __int128;
  static Key make_key(int64_t time, uint64_t seq_slot) {
    return (static_cast<Key>(static_cast<uint64_t>(time)) << 64) | seq_slot;
  }
  struct Payload {
    uint32_t target;
    uint32_t kind;
    uint64_t arg;
  };
  static constexpr size_t kArity = 4;  // sift_down's tournament assumes four
  static bool before(Key a, Key b) { return a < b; }
  [[noreturn]] static void overflow() {
    std::fprintf(stderr, "rocelab: more than 2^24 events pending at once\n");
    std::abort();
  }
  void sift_up(size_t i) {
    const Key e = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Bottom-up deletion (Floyd): walk the hole at `i` down to a leaf along the smallest
  // children without comparing against the moved key, then sift that key up from there.
  // The moved key (the old last leaf) nearly always belongs near the bottom, so this does
  // about half the comparisons of a classic sift-down, and they are better predicted.
  void sift_down(size_t i) {
    const size_t n = heap_.size();
    const Key e = heap_[i];
    Key* h = heap_.data();
    for (;;) {
      const size_t first = i * kArity + 1;
      size_t best;
      if (first + kArity <= n) {
        // Full node: a branch-free tournament among the four children.
        const size_t a = h[first + 1] < h[first] ? first + 1 : first;
        const size_t b = h[first + 3] < h[first + 2] ? first + 3 : first + 2;
        best = h[b] < h[a] ? b : a;
      } else if (first < n) {
        best = first;
        for (size_t c = first + 1; c < n; ++c) best = h[c] < h[best] ? c : best;
      } else {
        break;
      }
      h[i] = h[best];
      i = best;
    }
    h[i] = e;
    sift_up(i);
  }

  std::vector<Key> heap_;
  std::vector<Payload> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
};

}  // namespace rocelab
