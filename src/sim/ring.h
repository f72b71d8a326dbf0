// A growable power-of-two FIFO ring of small values (packet ids). Grows by doubling while
// a simulation warms up; no allocation once it has reached its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelab {

template <class T>
class Ring {
 public:
  explicit Ring(size_t initial_capacity = 16) {
    size_t cap = 1;
    while (cap < initial_capacity) cap <<= 1;
    buf_.resize(cap);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  const T& at(size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }

  void push_back(const T& v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = v;
    ++size_;
  }
  T pop_front() {
    T v = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
    return v;
  }

 private:
  void grow() {
    std::vector<T> next(buf_.size() * 2);
    for (size_t i = 0; i < size_; ++i) next[i] = at(i);
    buf_.swap(next);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace rocelab
