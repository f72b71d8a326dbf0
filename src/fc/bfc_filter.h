// BFC's pause signalling (BFC §3.6): a multistage bloom filter of the paused VFIDs of one
// ingress link, with `hashes` stages of filter_bits / hashes bits each and one hash per
// stage; a VFID matches when its bit is set in every stage. The downstream switch keeps a
// counter per bit, so a bit shared by two paused VFIDs stays set until both are resumed.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/random.h"

namespace rocelab {

class BfcFilterShape {
 public:
  BfcFilterShape(uint32_t filter_bytes, uint32_t hashes)
      : bits_(filter_bytes * 8), hashes_(hashes), stage_bits_(bits_ / hashes) {}
  uint32_t bits() const { return bits_; }
  uint32_t words() const { return (bits_ + 63) / 64; }
  uint32_t hashes() const { return hashes_; }
  // The bit of `vfid` in stage `stage` (Hash_BF of §3.3; one independent hash per stage).
  uint32_t position(uint32_t vfid, uint32_t stage) const {
    const uint64_t h = mix64((uint64_t{vfid} << 8 | stage) ^ 0xbfc0bfc0bfc0ULL);
    return stage * stage_bits_ + static_cast<uint32_t>(h % stage_bits_);
  }
  bool matches(const std::vector<uint64_t>& filter, uint32_t vfid) const {
    for (uint32_t s = 0; s < hashes_; ++s) {
      const uint32_t b = position(vfid, s);
      if (((filter[b >> 6] >> (b & 63)) & 1u) == 0) return false;
    }
    return true;
  }

 private:
  uint32_t bits_;
  uint32_t hashes_;
  uint32_t stage_bits_;
};

// The downstream side: a counter per bit, and the bits as they are sent.
class CountingBloomFilter {
 public:
  explicit CountingBloomFilter(const BfcFilterShape& shape)
      : counts_(shape.bits(), 0), bits_(shape.words(), 0) {}
  void add(const BfcFilterShape& shape, uint32_t vfid) {
    for (uint32_t s = 0; s < shape.hashes(); ++s) {
      const uint32_t b = shape.position(vfid, s);
      if (counts_[b]++ == 0) bits_[b >> 6] |= uint64_t{1} << (b & 63);
    }
  }
  void remove(const BfcFilterShape& shape, uint32_t vfid) {
    for (uint32_t s = 0; s < shape.hashes(); ++s) {
      const uint32_t b = shape.position(vfid, s);
      if (--counts_[b] == 0) bits_[b >> 6] &= ~(uint64_t{1} << (b & 63));
    }
  }
  const std::vector<uint64_t>& bits() const { return bits_; }
  bool empty() const {
    for (uint64_t w : bits_)
      if (w) return false;
    return true;
  }

 private:
  std::vector<uint32_t> counts_;
  std::vector<uint64_t> bits_;
};

}  // namespace rocelab
