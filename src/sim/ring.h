// A growable power-of-two FIFO ring of small values (packet ids). Grows by doubling while
// a simulation warms up; no allocation once it has reached its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace rocelab {

template <class T>
class Ring {
 public:
  explicit Ring(size_t initial_capacity = 16) {
    size_t cap = 1;
    while (cap < initial_capacity) cap <<= 1;
    buf_ = std::make_unique<T[]>(cap);
    mask_ = static_cast<uint32_t>(cap - 1);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  const T& at(size_t i) const { return buf_[(head_ + i) & mask_]; }

  void push_back(const T& v) {
    if (size_ == mask_ + size_t{1}) grow();
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  T pop_front() {
    T v = buf_[head_];
    head_ = (head_ + 1) & mask_;
    --size_;
    return v;
  }

 private:
  void grow() {
    const size_t cap = mask_ + size_t{1};
    auto next = std::make_unique<T[]>(cap * 2);
    for (size_t i = 0; i < size_; ++i) next[i] = at(i);
    buf_ = std::move(next);
    mask_ = static_cast<uint32_t>(cap * 2 - 1);
    head_ = 0;
  }
  // 24 bytes, not a vector's 24 plus two words: a port keeps several rings in the cache
  // lines it touches per frame.
  std::unique_ptr<T[]> buf_;
  uint32_t mask_ = 0;  // capacity - 1
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace rocelab
