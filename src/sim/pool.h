// A free-list object pool addressed by dense 32-bit indices. Objects live in fixed-size
// chunks, so a reference stays valid while the pool grows (handlers often hold one packet
// while allocating another). It grows while a simulation warms up and then recycles: no
// heap allocation per object in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rocelab {

template <class T>
class Pool {
 public:
  static constexpr uint32_t kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;

  void reserve(size_t n) {
    while (chunks_.size() * kChunkSize < n) add_chunk();
    free_.reserve(n);
  }

  uint32_t alloc() {
    ++in_use_;
    uint32_t idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
    } else {
      if (size_ == chunks_.size() * kChunkSize) add_chunk();
      idx = static_cast<uint32_t>(size_++);
    }
    // Copied from one default object: assigning T{} built a zeroed temporary on the stack
    // first (a string store) and then copied that.
    static const T kFresh{};
    (*this)[idx] = kFresh;
    return idx;
  }

  void release(uint32_t idx) {
    --in_use_;
    free_.push_back(idx);
  }

  T& operator[](uint32_t idx) { return chunks_[idx >> kChunkBits][idx & (kChunkSize - 1)]; }
  const T& operator[](uint32_t idx) const {
    return chunks_[idx >> kChunkBits][idx & (kChunkSize - 1)];
  }

  size_t in_use() const { return in_use_; }
  size_t capacity() const { return size_; }

 private:
  void add_chunk() { chunks_.push_back(std::make_unique<T[]>(kChunkSize)); }

  std::vector<std::unique_ptr<T[]>> chunks_;
  std::vector<uint32_t> free_;
  size_t size_ = 0;
  size_t in_use_ = 0;
};

}  // namespace rocelab
