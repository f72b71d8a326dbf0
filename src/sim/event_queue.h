// The event list: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
// the shortest path problem", JACM 1990) over 128-bit keys ordered by (time, insertion
// sequence), so ties break deterministically.
//
// Why a radix heap: a simulation's event list is monotone (nothing is scheduled before the
// event being run), and most of its events are due within a few microseconds while
// thousands of timers (retransmission timeouts, many of them stale) wait milliseconds
// ahead. A binary or 4-ary heap pays for the timers on every operation, each level a
// likely cache miss (a 10k-event heap was 38% of a 128-host run's cycles). The radix heap
// files an event by the highest bit in which its key differs from the last key taken out:
// far timers sit untouched in high buckets, near events in low ones, and an event moves
// down a few times at most before it runs. Push is O(1); pop is amortised O(log C).
//
// Keys hold time << 64 | sequence; each entry carries its payload. Nothing is allocated per event
// once the vectors reach the working size.
#pragma once

#include <array>
#include <bit>
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
  void reserve(size_t n) {
    for (auto& b : buckets_) b.reserve(n / 16);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Time of the next event (the queue must not be empty).
  Time top_time() {
    if (buckets_[0].empty()) refill();
    return Time{static_cast<int64_t>(buckets_[0].back().key >> 64)};
  }

  void push(Time time, uint32_t target, uint32_t kind, uint64_t arg) {
    push_reserved(time, next_seq_++, target, kind, arg);
  }

  // Takes the next sequence number for an event pushed later with push_reserved: among
  // events of its time it then orders as if it had been pushed now. Each reserved number
  // may be pushed once.
  uint64_t reserve_seq() { return next_seq_++; }
  void push_reserved(Time time, uint64_t seq, uint32_t target, uint32_t kind, uint64_t arg) {
    const Entry e{make_key(time.ps, seq), Payload{target, kind, arg}};
    if (e.key < last_) rebase(e.key);  // only after top_time() looked past an earlier push
    file(e);
    ++size_;
  }

  // Removes and returns the next event (the queue must not be empty).
  Event pop() {
    if (buckets_[0].empty()) refill();
    const Entry top = buckets_[0].back();
    buckets_[0].pop_back();
    if (buckets_[0].empty()) nonempty_[0] &= ~uint64_t{1};
    --size_;
    return Event{Time{static_cast<int64_t>(top.key >> 64)}, static_cast<uint64_t>(top.key),
                 top.payload.target, top.payload.kind, top.payload.arg};
  }

 private:
  // Time is never negative and the sequence is unique, so one unsigned 128-bit comparison
  // orders events and no two keys are equal.
  using Key = unsigned __int128;
  static constexpr size_t kBuckets = 129;  // 0: equal to last_; i: highest differing bit i-1
  static Key make_key(int64_t time, uint64_t seq) {
    return (static_cast<Key>(static_cast<uint64_t>(time)) << 64) | seq;
  }
  struct Payload {
    uint32_t target;
    uint32_t kind;
    uint64_t arg;
  };
  // The payload travels with its key: 32 bytes moved a few times beat a slot array read
  // on every pop (the slot was written long ago and has left the cache).
  struct Entry {
    Key key;
    Payload payload;
  };
  size_t bucket_of(Key key) const {
    const Key diff = key ^ last_;
    const auto hi = static_cast<uint64_t>(diff >> 64);
    const auto lo = static_cast<uint64_t>(diff);
    if (hi) return 129 - static_cast<size_t>(std::countl_zero(hi));
    return lo ? 65 - static_cast<size_t>(std::countl_zero(lo)) : 0;
  }
  void file(const Entry& e) {
    const size_t b = bucket_of(e.key);
    buckets_[b].push_back(e);
    nonempty_[b >> 6] |= uint64_t{1} << (b & 63);
  }
  // Bucket 0 is empty: the smallest key is in the lowest non-empty bucket (every key there
  // agrees with last_ above its bucket's bit and has that bit set). It becomes last_, and
  // the bucket's keys are filed again relative to it, each into a lower bucket.
  void refill() {
    size_t b = 0;
    for (size_t w = 0; w < nonempty_.size(); ++w) {
      if (nonempty_[w]) {
        b = w * 64 + static_cast<size_t>(std::countr_zero(nonempty_[w]));
        break;
      }
    }
    std::vector<Entry>& from = buckets_[b];
    Key smallest = from[0].key;
    for (const Entry& e : from) smallest = e.key < smallest ? e.key : smallest;
    last_ = smallest;
    nonempty_[b >> 6] &= ~(uint64_t{1} << (b & 63));
    // Each key lands in a bucket below b, so `from` is not appended to while read. (Not
    // swapped with a spare: buckets keep their own capacity, and nothing is reallocated
    // once each has reached its working size.)
    for (const Entry& e : from) file(e);
    from.clear();
  }
  // A key below last_: top_time() moved last_ up to the smallest key, and then an earlier
  // event was pushed (a caller scheduling between run_until calls). File everything again
  // relative to the new key; this is O(size) and happens at most once per such push.
  void rebase(Key key) {
    last_ = key;
    for (size_t b = 0; b < kBuckets; ++b) {
      if (buckets_[b].empty()) continue;
      spare_.insert(spare_.end(), buckets_[b].begin(), buckets_[b].end());
      buckets_[b].clear();
    }
    nonempty_ = {};
    for (const Entry& e : spare_) file(e);
    spare_.clear();
  }
  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::array<uint64_t, 3> nonempty_{};  // bit b: buckets_[b] holds keys
  std::vector<Entry> spare_;
  Key last_ = 0;
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace rocelab
