// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest
// path problem", JACM 1990) over event keys: the event list's store for what lies beyond
// its timing wheel.
//
// A simulation's event list is monotone (nothing is scheduled before the event being run),
// which is what a radix heap needs. It files a key by the highest bit in which it differs
// from the last key taken out: far timers (retransmission timeouts, many of them stale)
// sit untouched in high buckets, and a key moves down a few times at most before it is
// taken. Push is O(1); taking the smallest is amortised O(log C); a key below the last one
// taken (see below_) costs O(log k). Nothing is allocated
// once each bucket has reached its working size.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.h"

namespace rocelab {

class RadixHeap {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void reserve_per_bucket(size_t n) {
    for (auto& bucket : buckets_) bucket.reserve(n);
  }

  void push(const EventEntry& e) {
    ++size_;
    if (e.key < last_) {  // only after top() looked past an earlier push
      below_.push_back(e);
      std::push_heap(below_.begin(), below_.end(), later);
      return;
    }
    file(e);
  }
  // The smallest entry (the heap must not be empty).
  const EventEntry& top() {
    if (!below_.empty()) return below_.front();
    if (buckets_[0].empty()) refill();
    return buckets_[0].back();
  }
  EventEntry pop() {
    if (!below_.empty()) {  // every key in it is below last_, so below every filed key
      std::pop_heap(below_.begin(), below_.end(), later);
      const EventEntry e = below_.back();
      below_.pop_back();
      --size_;
      return e;
    }
    if (buckets_[0].empty()) refill();
    const EventEntry top = buckets_[0].back();
    buckets_[0].pop_back();
    if (buckets_[0].empty()) nonempty_[0] &= ~uint64_t{1};
    --size_;
    return top;
  }

 private:
  static constexpr size_t kBuckets = 129;  // 0: equal to last_; i: highest differing bit i-1

  size_t bucket_of(EventKey key) const {
    const EventKey diff = key ^ last_;
    const auto hi = static_cast<uint64_t>(diff >> 64);
    const auto lo = static_cast<uint64_t>(diff);
    if (hi) return 129 - static_cast<size_t>(std::countl_zero(hi));
    return lo ? 65 - static_cast<size_t>(std::countl_zero(lo)) : 0;
  }
  void file(const EventEntry& e) {
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
    std::vector<EventEntry>& from = buckets_[b];
    EventKey smallest = from[0].key;
    for (const EventEntry& e : from) smallest = e.key < smallest ? e.key : smallest;
    last_ = smallest;
    nonempty_[b >> 6] &= ~(uint64_t{1} << (b & 63));
    // Each key lands in a bucket below b, so `from` is not appended to while read. (Not
    // swapped with a spare: buckets keep their own capacity.)
    for (const EventEntry& e : from) file(e);
    from.clear();
  }
  static bool later(const EventEntry& a, const EventEntry& b) { return a.key > b.key; }

  std::array<std::vector<EventEntry>, kBuckets> buckets_;
  std::array<uint64_t, 3> nonempty_{};  // bit b: buckets_[b] holds keys
  // Keys pushed below last_ (after top() moved it up past them): a binary heap of its own,
  // whose front is then the smallest key of all. Filing everything again relative to the
  // new key cost O(size) per such push, and a burst of simultaneous events overflowing the
  // wheel made that the run's main cost.
  std::vector<EventEntry> below_;
  EventKey last_ = 0;
  size_t size_ = 0;
};

}  // namespace rocelab
