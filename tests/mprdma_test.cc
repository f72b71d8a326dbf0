// MP-RDMA (transport/mprdma.h): one flow spreads over many paths by ACK clocking, and its
// out-of-order aware path selection keeps the reordering the receiver sees near Δ, where
// per-packet spraying over the same paths does not.
#include <gtest/gtest.h>

#include <cstdio>

#include "test_util.h"
#include "transport/mprdma.h"

namespace rocelab {
namespace {

struct Outcome {
  double ood_p99 = 0;  // out-of-order degree, packets, over out-of-order arrivals
  uint64_t out_of_order = 0, bitmap_drops = 0, uplinks_used = 0;
  Time last_finish;
  MpRdmaPath::Counters counters;
};

// Two leaves, four spines, spine 0's link to leaf 1 at 25 Gb/s. Four 4 MB flows from
// leaf 0 to leaf 1.
Outcome run(const std::string& policy, LossRecovery recovery, const std::string& cc) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 4);
  EXPECT_EQ(spec.topology.set_link_rate("spine0", "leaf1", gbps(25)), 1);
  spec.cc = cc;
  spec.transport.path_policy = policy;
  spec.transport.recovery = recovery;
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4 + i, 4'000'000));
  Experiment exp(spec);
  test::run_checked(exp);
  Outcome o;
  const auto& hist = exp.transport().ood_histogram();
  uint64_t total = 0;
  for (uint64_t n : hist) total += n;
  uint64_t seen = 0;
  for (size_t d = 0; d < hist.size(); ++d) {
    seen += hist[d];
    if (total && seen * 100 >= total * 99) {
      o.ood_p99 = static_cast<double>(d);
      break;
    }
  }
  o.out_of_order = exp.transport().counters().out_of_order_packets;
  o.bitmap_drops = exp.transport().counters().bitmap_drops;
  for (const FlowRecord& r : exp.transport().records())
    o.last_finish = std::max(o.last_finish, r.finish);
  const Node& leaf = exp.network().node(NodeId(spec.topology.find("leaf0")));
  for (size_t p = 0; p < leaf.port_count(); ++p) {
    const EgressPort& port = leaf.port(PortId(static_cast<uint16_t>(p)));
    if (port.peer()->kind() == NodeKind::kSwitch && port.counters().tx_data_bytes > 400'000)
      ++o.uplinks_used;
  }
  if (const auto* mp = dynamic_cast<const MpRdmaPath*>(&exp.transport().path_policy()))
    o.counters = mp->counters();
  return o;
}

TEST(MpRdma, SpreadsOverPathsAndBoundsTheOutOfOrderDegree) {
  const Outcome mp = run("mprdma", LossRecovery::kBitmap, "none");
  const Outcome spray = run("spray", LossRecovery::kSelectiveRepeat, "dcqcn");
  std::printf(
      "out-of-order degree p99: mprdma %.0f (%llu arrivals, %llu beyond the bitmap, "
      "%llu paths pruned), spray %.0f (%llu); last finish %.0f vs %.0f us\n",
      mp.ood_p99, static_cast<unsigned long long>(mp.out_of_order),
      static_cast<unsigned long long>(mp.bitmap_drops),
      static_cast<unsigned long long>(mp.counters.vps_pruned), spray.ood_p99,
      static_cast<unsigned long long>(spray.out_of_order), mp.last_finish.us(),
      spray.last_finish.us());
  EXPECT_EQ(mp.uplinks_used, 4u) << "four flows spread over all four spines";
  EXPECT_GT(mp.counters.vps_pruned, 0u) << "the slow spine's late ACKs prune its paths";
  EXPECT_LE(mp.ood_p99, 32 * 1.5) << "near Δ";
  EXPECT_LT(mp.ood_p99, spray.ood_p99 / 2);
}

// The window's inflation counts packets acknowledged out of order, which the receiver's
// bitmap holds: at most L of them. When the bitmap overflows (L = 16, a whole BDP sent at
// once), go-back-N resends packets the receiver already has; their duplicate ACKs free no
// new packet and must not widen the window (they did: inflation reached hundreds, and
// each overflow fed the next).
TEST(MpRdma, DuplicateAcksAfterABitmapOverflowDoNotWidenTheWindow) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 4);
  spec.topology.set_link_rate("spine0", "leaf1", gbps(25));
  spec.cc = "none";
  spec.transport.path_policy = "mprdma";
  spec.transport.recovery = LossRecovery::kBitmap;
  spec.transport.bitmap_packets = 16;
  spec.transport.mprdma.initial_window_bdp = 1;
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4 + i, 4'000'000));
  Experiment exp(spec);
  test::run_checked(exp);
  const auto& mp = dynamic_cast<const MpRdmaPath&>(exp.transport().path_policy());
  EXPECT_GT(exp.transport().counters().bitmap_drops, 0u) << "the bitmap overflowed";
  EXPECT_LE(mp.counters().max_inflate, 16u + 4u);
}

TEST(MpRdma, NeedsItsReceiver) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 1);
  spec.transport.path_policy = "mprdma";
  spec.flows.push_back(test::flow(0, 1, 10'000));
  EXPECT_THROW(Experiment exp(spec), std::invalid_argument);
}

}  // namespace
}  // namespace rocelab
