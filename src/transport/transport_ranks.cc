// The transport's results after a run over several ranks (issue 52, sim/ranks.h).
#include <algorithm>
#include <string>

#include "transport/rdma_transport.h"

namespace rocelab {

void RdmaTransport::gather_over_ranks(RankGroup& group) {
  fold_lanes();
  TransportCounters& c = counter_lanes_.merged();
  static_assert(sizeof(TransportCounters) % sizeof(uint64_t) == 0,
                "every field a uint64_t sum (TransportCounters::add)");
  group.sum_u64({reinterpret_cast<uint64_t*>(&c), sizeof(c) / sizeof(uint64_t)});
  group.sum_u64(ood_lanes_.merged());
  const Simulator& s = sim();
  Bytes mine;
  ByteWriter out(mine);
  // A flow's delivery is known at its receiver, or, with nothing to send, at its sender
  // (start_flow): both send theirs, the earliest counts.
  auto delivery_known_at = [&](const FlowRecord& r, uint32_t rank) {
    return s.rank_of_lp(r.dst.index()) == rank ||
           (r.size_bytes == 0 && s.rank_of_lp(r.src.index()) == rank);
  };
  for (const FlowRecord& r : records_) {
    if (s.owns_lp(r.src.index())) {
      out.put(r.start);
      out.put(r.finish);
    }
    if (delivery_known_at(r, group.rank())) out.put(r.delivered);
  }
  std::vector<SchemeStat> stats;
  path_->add_stats(stats);
  write_stats(out, stats);
  const std::vector<Bytes> all = group.gather_all(std::move(mine));
  remote_path_stats_.clear();
  for (uint32_t rank = 0; rank < all.size(); ++rank) {
    if (rank == group.rank()) continue;
    ByteReader in(all[rank]);
    for (FlowRecord& r : records_) {
      if (s.rank_of_lp(r.src.index()) == rank) {
        r.start = in.get<Time>();
        r.finish = in.get<Time>();
      }
      if (delivery_known_at(r, rank)) r.delivered = std::min(r.delivered, in.get<Time>());
    }
    const std::vector<SchemeStat> theirs = read_stats(in);
    remote_path_stats_.insert(remote_path_stats_.end(), theirs.begin(), theirs.end());
    if (!in.done())
      throw std::runtime_error("rank " + std::to_string(rank) +
                               " sent more transport results than read");
  }
}

void RdmaTransport::add_path_stats(std::vector<SchemeStat>& out) const {
  path_->add_stats(out);
  out.insert(out.end(), remote_path_stats_.begin(), remote_path_stats_.end());
}

}  // namespace rocelab
