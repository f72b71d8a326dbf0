// A free-list object pool addressed by dense 32-bit indices. The objects lie in one
// address range reserved up front and made usable in pieces as the pool grows, so an
// object is one multiply-add from its index and a reference stays valid while the pool
// grows (handlers often hold one packet while allocating another). It grows while a
// simulation warms up and then recycles: no heap allocation per object in the steady state.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/lane.h"

namespace rocelab {

template <class T>
class Pool {
 public:
  static_assert(sizeof(void*) == 8, "the pool reserves gigabytes of address space");
  // The range reserved: up to 2^26 objects (8 GiB of addresses for 128-byte packets). It is
  // reserved without access, which costs no memory and counts against no commit limit;
  // only a process limit on address space (ulimit -v) makes it smaller.
  static constexpr size_t kMaxObjectsLog2 = 26;
  static constexpr size_t kMinObjectsLog2 = 16;
  // Objects made usable at a time (512 KiB of packets).
  static constexpr size_t kGrowObjects = 4096;
  // The first object starts one cache line into the range, so that a 128-byte packet's
  // first line (all a switch reads) is the second line of an aligned 128-byte pair. Measured,
  // not derived: the reference slice (ls5) ran 2.11, 2.06, 2.13 and 2.06 s with offsets
  // 0, 64, 128 and 192 bytes, and the 1,024-host fat-tree 11.2 and 16.5 s against 9.8 and
  // 9.2 s with 0 and 64 (alternating runs).
  static constexpr size_t kObjectOffsetBytes = 64;
  static_assert(kObjectOffsetBytes % alignof(T) == 0);

  // `max_objects_log2`: the most objects alive at once, as a power of two.
  explicit Pool(size_t max_objects_log2 = kMaxObjectsLog2) {
    const size_t min_log2 = max_objects_log2 < kMinObjectsLog2 ? max_objects_log2 : kMinObjectsLog2;
    for (size_t log2 = max_objects_log2;; --log2) {
      void* range = mmap(nullptr, range_bytes(size_t{1} << log2), PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (range != MAP_FAILED) {
        base_ = static_cast<char*>(range);
        objects_ = reinterpret_cast<T*>(base_ + kObjectOffsetBytes);
        max_objects_ = size_t{1} << log2;
        return;
      }
      if (log2 == min_log2) throw std::bad_alloc();
    }
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (size_t i = 0; i < size_; ++i) objects_[i].~T();
    munmap(base_, range_bytes(max_objects_));
  }

  void reserve(size_t n) { free_.reserve(n); }

  // A parallel run: a free list per lane (sim/lane.h), so that partitions allocate and
  // release on their own threads. Fresh objects are taken in chunks, under a lock. An object
  // released by another lane than the one that took it joins the releasing lane's list.
  // Call before the run, with no object in use.
  void set_lanes(uint32_t partitions) {
    lanes_.clear();
    lanes_.resize(partitions + 1);
    for (const uint32_t idx : free_) lanes_[0].free.push_back(idx);
    free_.clear();
  }

  uint32_t alloc() {
    if (!lanes_.empty()) [[unlikely]]
      return alloc_in_lane();
    uint32_t idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
    } else {
      if (size_ == usable_) [[unlikely]]
        grow();
      idx = static_cast<uint32_t>(size_);
      new (&objects_[idx]) T();
      ++size_;
    }
    // Copied from one default object: assigning T{} built a zeroed temporary on the stack
    // first (a string store) and then copied that.
    static const T kFresh{};
    objects_[idx] = kFresh;
    ++in_use_;
    return idx;
  }

  void release(uint32_t idx) {
    if (!lanes_.empty()) [[unlikely]] {
      release_in_lane(idx);
      return;
    }
    --in_use_;
    free_.push_back(idx);
  }

  T& operator[](uint32_t idx) {
    assert(idx < size_);
    return objects_[idx];
  }
  const T& operator[](uint32_t idx) const {
    assert(idx < size_);
    return objects_[idx];
  }

  size_t in_use() const {
    int64_t n = static_cast<int64_t>(in_use_);
    for (const Lane& lane : lanes_) n += lane.in_use;
    return static_cast<size_t>(n);
  }
  size_t max_objects() const { return max_objects_; }
  size_t capacity() const {
    const std::lock_guard<std::mutex> lock(grow_mutex_);
    return size_;
  }

 private:
  static size_t range_bytes(size_t objects) { return objects * sizeof(T) + kObjectOffsetBytes; }
  [[gnu::noinline]] void release_in_lane(uint32_t idx) {
    Lane& lane = lanes_[tls_sim_lane];
    --lane.in_use;
    lane.free.push_back(idx);
    // A lane that releases more than it takes (an incast receiver's) hands a chunk's worth
    // back, so that a lane that takes more (a sender's) reuses them instead of growing the
    // pool without end.
    if (lane.free.size() >= 2 * kGrowObjects) [[unlikely]]
      give_back(lane);
  }
  // Makes the next kGrowObjects objects usable (whole pages).
  void grow() {
    if (usable_ == max_objects_)
      throw std::length_error("more than " + std::to_string(max_objects_) +
                              " objects alive at once: the pool (" + std::to_string(sizeof(T)) +
                              " bytes each) is full");
    const size_t next =
        usable_ + kGrowObjects < max_objects_ ? usable_ + kGrowObjects : max_objects_;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t from = range_bytes(usable_) / page * page;
    const size_t to = (range_bytes(next) + page - 1) / page * page;
    if (mprotect(base_ + from, to - from, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
    usable_ = next;
  }

  // One lane's free list and its count of objects taken less released (negative where it
  // released what another lane took). Padded: lanes are written by different threads.
  struct alignas(64) Lane {
    std::vector<uint32_t> free;
    int64_t in_use = 0;
  };
  void give_back(Lane& lane) {
    const std::lock_guard<std::mutex> lock(grow_mutex_);
    depot_.insert(depot_.end(), lane.free.end() - kGrowObjects, lane.free.end());
    lane.free.resize(lane.free.size() - kGrowObjects);
  }
  // Out of line, as the lanes' paths are: a serial run's alloc() stays small enough to be
  // inlined where packets are made (cachegrind: a serial run's instructions +2% otherwise).
  [[gnu::noinline]] uint32_t alloc_in_lane() {
    Lane& lane = lanes_[tls_sim_lane];
    if (lane.free.empty()) [[unlikely]]
      claim_chunk(lane);
    const uint32_t idx = lane.free.back();
    lane.free.pop_back();
    static const T kFresh{};
    objects_[idx] = kFresh;
    ++lane.in_use;
    return idx;
  }
  // Gives `lane` what other lanes handed back, else makes the next kGrowObjects objects (or
  // what is left).
  void claim_chunk(Lane& lane) {
    const std::lock_guard<std::mutex> lock(grow_mutex_);
    if (!depot_.empty()) {
      const size_t n = std::min<size_t>(depot_.size(), kGrowObjects);
      lane.free.insert(lane.free.end(), depot_.end() - static_cast<std::ptrdiff_t>(n),
                       depot_.end());
      depot_.resize(depot_.size() - n);
      return;
    }
    if (size_ == usable_) grow();
    const size_t end = usable_;
    for (size_t i = end; i-- > size_;) {  // lowest index taken first
      new (&objects_[i]) T();
      lane.free.push_back(static_cast<uint32_t>(i));
    }
    size_ = end;
  }

  std::vector<Lane> lanes_;
  std::vector<uint32_t> depot_;  // free objects lanes handed back (under grow_mutex_)
  mutable std::mutex grow_mutex_;
  T* objects_ = nullptr;
  char* base_ = nullptr;
  size_t max_objects_ = 0;
  size_t usable_ = 0;  // objects [0, usable_) lie on readable, writable pages
  std::vector<uint32_t> free_;
  size_t size_ = 0;
  size_t in_use_ = 0;
};

}  // namespace rocelab
