// One run spread over several processes (MPI ranks, issue 52): each rank runs the events of
// its own partitions, and the ranks meet between windows to trade what crossed a cut link
// and to agree on where the next window starts. The simulator sees the ranks through this
// interface only, so that the model does not depend on MPI: the command line supplies an
// MPI group (cli/rank_mpi.cc), the tests an in-process one (LocalRankGroup) that runs the
// same protocol with a rank per thread.
#pragma once

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "sim/event.h"

namespace rocelab {

using Bytes = std::vector<std::byte>;

// Every rank calls each collective in the same order (a collective called by some ranks
// only waits for ever): the simulator calls them between windows, where every rank is.
class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // Sends out[r] to rank r (out has size() entries; out[rank()] is not sent) and returns
  // what every rank sent this one, by rank.
  virtual std::vector<Bytes> exchange(std::vector<Bytes> out) = 0;
  // Every rank's `mine`, by rank.
  virtual std::vector<Bytes> gather_all(Bytes mine) = 0;
  // Element-wise over the ranks, in place.
  virtual void min_u64(std::span<uint64_t> values) = 0;
  virtual void sum_u64(std::span<uint64_t> values) = 0;
};

// Every rank's `mine` (plain values), one after another in rank order, on every rank.
template <class T>
std::vector<T> gather_values(RankGroup& ranks, const std::vector<T>& mine) {
  static_assert(std::is_trivially_copyable_v<T>);
  Bytes bytes(mine.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), mine.data(), bytes.size());
  std::vector<T> all;
  for (const Bytes& theirs : ranks.gather_all(std::move(bytes))) {
    const size_t at = all.size();
    all.resize(at + theirs.size() / sizeof(T));
    if (!theirs.empty()) std::memcpy(&all[at], theirs.data(), theirs.size());
  }
  return all;
}

// Bytes written and read back in one process's layout: ranks run the same binary (MPI
// runs one build on every rank), so plain values travel as their bytes.
class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_raw(&v, sizeof(T));
  }
  // insert, not resize: bytes that are written at once are not zeroed first.
  void put_raw(const void* data, size_t n) {
    const auto* bytes = static_cast<const std::byte*>(data);
    out_.insert(out_.end(), bytes, bytes + n);
  }

 private:
  Bytes& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <class T>
  T get() {
    T v;
    get_raw(&v, sizeof(T));
    return v;
  }
  void get_raw(void* data, size_t n);  // throws std::runtime_error past the end
  bool done() const { return at_ == in_.size(); }

 private:
  std::span<const std::byte> in_;
  size_t at_ = 0;
};

// What carries an event across ranks when its argument names state of the sending rank (a
// cut link's frame: a packet in the sender's pool). encode appends the event and what it
// refers to, and lets the state go at the sender; decode rebuilds it at the receiver and
// returns the event with its argument pointing there.
class RemoteEventCodec {
 public:
  virtual ~RemoteEventCodec() = default;
  virtual void encode(const EventEntry& e, ByteWriter& out) = 0;
  virtual EventEntry decode(ByteReader& in) = 0;
};

// A group of ranks inside one process, a thread each (tests): the same collectives as MPI
// over shared memory. Make one per run, then a member per rank.
class LocalRankGroup {
 public:
  explicit LocalRankGroup(uint32_t ranks);
  std::unique_ptr<RankGroup> member(uint32_t rank);
  // A member's run failed (it throws no further): the others' collectives throw instead of
  // waiting for it for ever, as MPI_Abort ends the other ranks.
  void fail();

 private:
  class Member;
  void wait();  // at the barrier; throws when a member failed
  uint32_t size_;
  std::barrier<> sync_;
  std::atomic<bool> failed_{false};
  std::vector<std::vector<Bytes>> mail_;  // [from][to]
  std::vector<std::vector<uint64_t>> values_;
};

}  // namespace rocelab
