// A free-list object pool addressed by dense 32-bit indices. It grows while a simulation
// warms up and then recycles: no heap allocation per object in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelab {

template <class T>
class Pool {
 public:
  void reserve(size_t n) {
    items_.reserve(n);
    free_.reserve(n);
  }

  uint32_t alloc() {
    ++in_use_;
    if (!free_.empty()) {
      uint32_t idx = free_.back();
      free_.pop_back();
      items_[idx] = T{};
      return idx;
    }
    items_.emplace_back();
    return static_cast<uint32_t>(items_.size() - 1);
  }

  void release(uint32_t idx) {
    --in_use_;
    free_.push_back(idx);
  }

  T& operator[](uint32_t idx) { return items_[idx]; }
  const T& operator[](uint32_t idx) const { return items_[idx]; }

  size_t in_use() const { return in_use_; }
  size_t capacity() const { return items_.size(); }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
  size_t in_use_ = 0;
};

}  // namespace rocelab
