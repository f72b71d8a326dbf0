// A sliding bitmap over packet numbers [base, base + capacity): which packets beyond a
// cumulative point have been received (receiver) or selectively acknowledged (sender).
// Storage is a power-of-two ring of words that grows only when a packet lands beyond it,
// so the steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelab {

class PacketBitmap {
 public:
  uint64_t base() const { return base_; }

  bool test(uint64_t pkt) const {
    if (pkt < base_ || pkt - base_ >= capacity()) return false;
    return (words_[word_of(pkt)] >> (pkt & 63)) & 1;
  }

  // Marks `pkt` (>= base). Returns false if it was marked already.
  bool set(uint64_t pkt) {
    if (pkt < base_) return false;
    while (pkt - base_ >= capacity()) grow();
    uint64_t& w = words_[word_of(pkt)];
    const uint64_t bit = 1ull << (pkt & 63);
    if (w & bit) return false;
    w |= bit;
    ++marked_;
    return true;
  }

  // Moves the base to `new_base`, forgetting every mark below it. O(1) when nothing is
  // marked (every word is zero then), so callers may keep the base at their cumulative
  // point on every step.
  void advance_to(uint64_t new_base) {
    if (new_base <= base_) return;
    if (marked_ == 0) {
      base_ = new_base;
      return;
    }
    if (new_base - base_ >= capacity()) {
      for (uint64_t& w : words_) w = 0;
      marked_ = 0;
      base_ = new_base;
      return;
    }
    for (; base_ < new_base; ++base_) {
      uint64_t& w = words_[word_of(base_)];
      const uint64_t bit = 1ull << (base_ & 63);
      if (w & bit) {
        w &= ~bit;
        --marked_;
      }
    }
  }

  // Unmarks `pkt` (a no-op when it is not marked).
  void clear(uint64_t pkt) {
    if (!test(pkt)) return;
    words_[word_of(pkt)] &= ~(1ull << (pkt & 63));
    --marked_;
  }

  // Advances the base over the marked run starting at it; returns the new base.
  uint64_t advance_over_marked() {
    while (marked_ > 0 && test(base_)) advance_to(base_ + 1);
    return base_;
  }

  uint64_t marked() const { return marked_; }
  // Packets the ring spans now; it only grows, so this is also the largest window seen.
  uint64_t capacity() const { return words_.size() * 64; }

 private:
  size_t word_of(uint64_t pkt) const { return (pkt >> 6) & (words_.size() - 1); }

  // Doubles the ring, re-placing the marks at their new positions.
  void grow() {
    std::vector<uint64_t> old;
    old.swap(words_);
    const uint64_t old_base = base_, old_cap = old.size() * 64;
    words_.assign(old.empty() ? 1 : old.size() * 2, 0);
    for (uint64_t pkt = old_base; pkt < old_base + old_cap; ++pkt) {
      const size_t wi = (pkt >> 6) & (old.size() - 1);
      if ((old[wi] >> (pkt & 63)) & 1) words_[word_of(pkt)] |= 1ull << (pkt & 63);
    }
  }

  std::vector<uint64_t> words_;
  uint64_t base_ = 0;
  uint64_t marked_ = 0;
};

}  // namespace rocelab
