// DRILL (lb/drill.h): per-packet choice of the least-loaded of d sampled and m remembered
// egress ports keeps a leaf's uplink queues close to each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "lb/drill.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Eight hosts of leaf 0 send 2 MB each to the eight hosts of leaf 1 at line rate (no
// congestion control), over four spines: the mean, over samples every 200 ns while the
// uplinks are busy, of the largest minus the smallest uplink queue of leaf 0.
double uplink_queue_spread(const std::string& lb) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 8);
  spec.lb = lb;
  spec.cc = "none";
  spec.network.switch_config.ecn.enabled = false;
  for (uint32_t i = 0; i < 8; ++i) spec.flows.push_back(test::flow(i, 8 + i, 2'000'000));
  Experiment exp(spec);
  const NodeId leaf{exp.network().context().routing.edge_of_host(0)};
  const Node& n = exp.network().node(leaf);
  std::vector<PortId> uplinks;
  for (size_t p = 0; p < n.port_count(); ++p) {
    const PortId id(static_cast<uint16_t>(p));
    if (n.port(id).peer()->kind() == NodeKind::kSwitch) uplinks.push_back(id);
  }
  EXPECT_EQ(uplinks.size(), 4u);
  double spread_sum = 0;
  int samples = 0;
  for (int64_t t = 0; exp.transport().counters().flows_finished < 8; t += 200'000) {
    exp.run(Time{t});
    int64_t lo = INT64_MAX, hi = 0;
    for (PortId u : uplinks) {
      lo = std::min(lo, n.port(u).data_queue_bytes());
      hi = std::max(hi, n.port(u).data_queue_bytes());
    }
    if (hi == 0) continue;
    spread_sum += static_cast<double>(hi - lo);
    ++samples;
  }
  exp.drain();
  EXPECT_EQ(exp.check_invariants(), "");
  return samples ? spread_sum / samples : 0;
}

TEST(Drill, KeepsALeafsUplinkQueuesClose) {
  const double drill = uplink_queue_spread("drill");
  const double rps = uplink_queue_spread("rps");
  const double ecmp = uplink_queue_spread("ecmp");
  std::printf("mean uplink queue spread: drill %.0f B, rps %.0f B, ecmp %.0f B\n", drill, rps,
              ecmp);
  EXPECT_LT(drill, rps / 2) << "least-loaded choice beats random spraying";
  EXPECT_LT(drill, 3 * 1082.0) << "within a few packets";
  EXPECT_LT(rps, ecmp);
}

}  // namespace
}  // namespace rocelab
