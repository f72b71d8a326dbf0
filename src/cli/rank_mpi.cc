#include "cli/rank_mpi.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rocelab {

namespace {

int as_count(uint64_t bytes) {
  if (bytes > static_cast<uint64_t>(INT_MAX))
    throw std::runtime_error("a message between ranks of " + std::to_string(bytes) +
                             " bytes, beyond MPI's int counts");
  return static_cast<int>(bytes);
}

class MpiRankGroup final : public RankGroup {
 public:
  MpiRankGroup() {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<uint32_t>(rank);
    size_ = static_cast<uint32_t>(size);
  }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }

  std::vector<Bytes> exchange(std::vector<Bytes> out) override {
    out.resize(size_);
    out[rank_].clear();
    std::vector<uint64_t> send_sizes(size_), recv_sizes(size_);
    for (uint32_t r = 0; r < size_; ++r) send_sizes[r] = out[r].size();
    MPI_Alltoall(send_sizes.data(), 1, MPI_UINT64_T, recv_sizes.data(), 1, MPI_UINT64_T,
                 MPI_COMM_WORLD);
    std::vector<int> send_counts(size_), send_at(size_), recv_counts(size_), recv_at(size_);
    Bytes send, recv;
    for (uint32_t r = 0; r < size_; ++r) {
      send_at[r] = as_count(send.size());
      send_counts[r] = as_count(send_sizes[r]);
      send.insert(send.end(), out[r].begin(), out[r].end());
      recv_at[r] = as_count(recv.size());
      recv_counts[r] = as_count(recv_sizes[r]);
      recv.resize(recv.size() + recv_sizes[r]);
    }
    MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv.data(),
                  recv_counts.data(), recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
    std::vector<Bytes> in(size_);
    for (uint32_t r = 0; r < size_; ++r)
      in[r].assign(recv.begin() + recv_at[r], recv.begin() + recv_at[r] + recv_counts[r]);
    return in;
  }

  std::vector<Bytes> gather_all(Bytes mine) override {
    uint64_t size = mine.size();
    std::vector<uint64_t> sizes(size_);
    MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::vector<int> counts(size_), at(size_);
    uint64_t total = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      at[r] = as_count(total);
      counts[r] = as_count(sizes[r]);
      total += sizes[r];
    }
    Bytes all(total);
    MPI_Allgatherv(mine.data(), as_count(size), MPI_BYTE, all.data(), counts.data(), at.data(),
                   MPI_BYTE, MPI_COMM_WORLD);
    std::vector<Bytes> out(size_);
    for (uint32_t r = 0; r < size_; ++r)
      out[r].assign(all.begin() + at[r], all.begin() + at[r] + counts[r]);
    return out;
  }

  void min_u64(std::span<uint64_t> v) override { reduce(v, MPI_MIN); }
  void sum_u64(std::span<uint64_t> v) override { reduce(v, MPI_SUM); }

 private:
  void reduce(std::span<uint64_t> v, MPI_Op op) {
    MPI_Allreduce(MPI_IN_PLACE, v.data(), as_count(v.size()), MPI_UINT64_T, op, MPI_COMM_WORLD);
  }
  uint32_t rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<RankGroup> start_mpi_ranks(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error(
        "this MPI library cannot be called from more than one thread (MPI_THREAD_SERIALIZED), "
        "which a run over ranks needs");
  }
  return std::make_unique<MpiRankGroup>();
}

void finish_mpi_ranks() {
  MPI_Finalize();
}

void abort_mpi_ranks(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

}  // namespace rocelab
