#include "sim/ranks.h"

#include <algorithm>
#include <stdexcept>

namespace rocelab {

void ByteReader::get_raw(void* data, size_t n) {
  if (n > in_.size() - at_)
    throw std::runtime_error("rank message: " + std::to_string(n) + " bytes wanted, " +
                             std::to_string(in_.size() - at_) + " left");
  if (n) std::memcpy(data, in_.data() + at_, n);
  at_ += n;
}

// Each collective: every member posts, all meet, every member reads what it needs, all
// meet again before the next posts.
class LocalRankGroup::Member final : public RankGroup {
 public:
  Member(LocalRankGroup& g, uint32_t rank) : g_(g), rank_(rank) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return g_.size_; }

  std::vector<Bytes> exchange(std::vector<Bytes> out) override {
    out.resize(g_.size_);
    g_.mail_[rank_] = std::move(out);
    g_.wait();
    std::vector<Bytes> in(g_.size_);
    for (uint32_t r = 0; r < g_.size_; ++r)
      if (r != rank_) in[r] = g_.mail_[r][rank_];
    g_.wait();
    return in;
  }
  std::vector<Bytes> gather_all(Bytes mine) override {
    std::vector<Bytes> out(g_.size_, mine);
    std::vector<Bytes> in = exchange(std::move(out));
    in[rank_] = std::move(mine);
    return in;
  }
  void min_u64(std::span<uint64_t> v) override {
    reduce(v, [](uint64_t a, uint64_t b) { return std::min(a, b); });
  }
  void sum_u64(std::span<uint64_t> v) override {
    reduce(v, [](uint64_t a, uint64_t b) { return a + b; });
  }

 private:
  template <class Op>
  void reduce(std::span<uint64_t> v, Op op) {
    g_.values_[rank_].assign(v.begin(), v.end());
    g_.wait();
    for (uint32_t r = 0; r < g_.size_; ++r) {
      if (r == rank_) continue;
      const std::vector<uint64_t>& other = g_.values_[r];
      for (size_t i = 0; i < v.size(); ++i) v[i] = op(v[i], other[i]);
    }
    g_.wait();
  }
  LocalRankGroup& g_;
  uint32_t rank_;
};

void LocalRankGroup::wait() {
  sync_.arrive_and_wait();
  if (failed_.load()) throw std::runtime_error("another rank of the group failed");
}

void LocalRankGroup::fail() {
  failed_.store(true);
  sync_.arrive_and_drop();
}

LocalRankGroup::LocalRankGroup(uint32_t ranks)
    : size_(ranks), sync_(static_cast<std::ptrdiff_t>(ranks)), mail_(ranks), values_(ranks) {}

std::unique_ptr<RankGroup> LocalRankGroup::member(uint32_t rank) {
  return std::make_unique<Member>(*this, rank);
}

}  // namespace rocelab
