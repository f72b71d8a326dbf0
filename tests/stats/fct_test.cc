// Ideal FCT and slowdown (DESIGN.md "Metrics"): a lone flow on an idle network takes exactly
// its ideal FCT, and a slowdown below 1 is reported, not floored.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "net/topology.h"
#include "scenario/results/results.h"
#include "stats/fct_summary.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kDelay = 1'000'000;  // 1 us links
// Serialization at 100 Gb/s (80 ps a byte): a full data frame (1000 B payload + 62 B
// headers + 20 B preamble and gap), an ACK (66 + 20 B), frames of 100 B and 1 B payload.
constexpr int64_t kFull = 1082 * 80;  // 86,560
constexpr int64_t kAck = 86 * 80;     // 6,880
constexpr int64_t k100 = 182 * 80;    // 14,560
constexpr int64_t k1 = 83 * 80;       // 6,640

struct Lone {
  Delta fct;
  Delta ideal;
};

Lone run_lone(const TopologySpec& topo, uint32_t dst, uint64_t size, const std::string& cc) {
  ExperimentSpec spec;
  spec.topology = topo;
  spec.cc = cc;
  spec.flows = {test::flow(0, dst, size)};
  Experiment exp(spec);
  test::run_checked(exp);
  const FlowRecord& r = exp.transport().record(FlowId(0));
  return Lone{r.fct(), r.ideal_fct};
}

// Host 0 to host 2 crosses leaf0, a spine and leaf1: 4 links of 100 Gb/s. The ACK comes
// back over 4 links: 4 * (1 us + 6,880 ps).
TEST(IdealFct, LoneFlowsOnALeafSpineTakeExactlyTheirIdealFct) {
  const TopologySpec topo = test::small_leaf_spine(2, 2, 2);
  const int64_t ack_back = 4 * (kDelay + kAck);
  struct Case {
    uint64_t size;
    int64_t ideal_ps;
  };
  const Case cases[] = {
      // One frame, serialized at its own size on every link (before: an MTU frame's time,
      // 216 ns too long, hidden by the slowdown floor at 1).
      {100, 4 * (kDelay + k100) + ack_back},  // 8,085,760
      {1000, 4 * (kDelay + kFull) + ack_back},
      // A full frame, then one of 1 B payload. The short one waits behind the full one on
      // every link and arrives k1 after it; the full frame's ACK still holds the receiver's
      // link (kAck > k1), so the last ACK leaves kAck after the first one arrived.
      {1001, 4 * kDelay + 4 * kFull + kAck + ack_back},  // 8,380,640
      // 10 full frames: the last leaves the NIC after 10 frames and crosses 3 more links.
      {10'000, 4 * kDelay + 13 * kFull + ack_back},
      {1'000'000, 4 * kDelay + 1003 * kFull + ack_back},  // 94,847,200
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("size " + std::to_string(c.size));
    const Lone l = run_lone(topo, 2, c.size, "dcqcn");
    EXPECT_EQ(l.ideal.ps, c.ideal_ps);
    EXPECT_EQ(l.fct.ps, l.ideal.ps);
  }
}

// The same two-tier path with 25 Gb/s leaf-spine links: the host links (100 Gb/s) are
// faster than the bottleneck. Serialization at 25 Gb/s is 4x that at 100 Gb/s. No congestion
// control: DCQCN would slow the 1 MB flow on the ECN marks of its own queue at leaf0.
TEST(IdealFct, LoneFlowsThroughASlowerBottleneckTakeExactlyTheirIdealFct) {
  LeafSpineParams ls;
  ls.leaves = 2;
  ls.spines = 2;
  ls.hosts_per_leaf = 2;
  ls.fabric_rate_bps = gbps(25);
  const TopologySpec topo = leaf_spine(ls);
  const int64_t ack_back = 4 * kDelay + 2 * kAck + 2 * 4 * kAck;  // 4,068,800
  // A full frame over the 4 links: 865,600.
  const int64_t full_path = 2 * kFull + 2 * 4 * kFull;
  struct Case {
    uint64_t size;
    int64_t ideal_ps;
  };
  const Case cases[] = {
      {100, 4 * kDelay + 2 * k100 + 2 * 4 * k100 + ack_back},  // 8,214,400
      {1000, 4 * kDelay + full_path + ack_back},               // 8,934,400
      // The 1 B frame reaches the receiver full_path + k1 after the start, but the first
      // frame's ACK leaves at full_path and takes 4 * kAck on each 25 Gb/s link, where the
      // last ACK catches up with it: it runs 4 * kAck behind the first one from there.
      {1001, 4 * kDelay + full_path + 4 * kAck + ack_back},  // 8,961,920
      // Frames follow each other at the bottleneck's pace: 9 more after the first.
      {10'000, 4 * kDelay + full_path + 9 * 4 * kFull + ack_back},       // 12,050,560
      {1'000'000, 4 * kDelay + full_path + 999 * 4 * kFull + ack_back},  // 354,828,160
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("size " + std::to_string(c.size));
    const Lone l = run_lone(topo, 2, c.size, "none");
    EXPECT_EQ(l.ideal.ps, c.ideal_ps);
    EXPECT_EQ(l.fct.ps, l.ideal.ps);
  }
}

// flows.csv and the time series write times in ns with three decimals.
TEST(NsText, ThreeDecimalsOfANanosecondAndTheSign) {
  EXPECT_EQ(ns_text(0), "0.000");
  EXPECT_EQ(ns_text(999), "0.999");
  EXPECT_EQ(ns_text(1000), "1.000");
  EXPECT_EQ(ns_text(123456789), "123456.789");
  EXPECT_EQ(ns_text(-1), "-0.001");
  EXPECT_EQ(ns_text(-1500), "-1.500");
  EXPECT_EQ(ns_text(INT64_MIN), "-9223372036854775.808");
}

TEST(Slowdown, IsFctOverIdealWithoutAFloor) {
  EXPECT_DOUBLE_EQ(slowdown(FctSample{1000, 30.0, 10.0}), 3.0);
  EXPECT_DOUBLE_EQ(slowdown(FctSample{1000, 8.0, 10.0}), 0.8);  // was floored to 1
  EXPECT_DOUBLE_EQ(slowdown(FctSample{0, 0.0, 0.0}), 1.0);      // nothing to send
}

// The ideal FCT follows the default route (path 0). A flow that ECMP puts on a faster path
// beats it, and flows.csv now says so instead of writing 1.
TEST(Slowdown, AFlowOnAFasterPathThanTheDefaultRouteIsBelowOne) {
  LeafSpineParams ls;
  ls.leaves = 2;
  ls.spines = 2;
  ls.hosts_per_leaf = 1;
  TopologySpec topo = leaf_spine(ls);
  ASSERT_EQ(topo.set_link_rate("leaf0", "spine0", gbps(25)), 1);  // path 0, both ways
  ASSERT_EQ(topo.set_link_rate("spine0", "leaf1", gbps(25)), 1);
  ExperimentSpec spec;
  spec.topology = topo;
  spec.cc = "none";
  // One lone 1000 B flow every 100 us, each with its own source port (ECMP hash).
  for (int i = 0; i < 8; ++i)
    spec.flows.push_back(test::flow(0, 1, 1000, Time{Delta::from_us(100 * i).ps}));
  Experiment exp(spec);
  test::run_checked(exp);
  // Path 0 both ways: data over 100, 25, 25, 100 Gb/s, the ACK back the same way.
  const int64_t ideal =
      4 * kDelay + 2 * kFull + 2 * 4 * kFull + 4 * kDelay + 2 * kAck + 2 * 4 * kAck;
  // Data and ACK over spine1, all at 100 Gb/s.
  const int64_t fast = 4 * (kDelay + kFull) + 4 * (kDelay + kAck);
  int fastest = -1;
  for (const FlowRecord& r : exp.transport().records()) {
    EXPECT_EQ(r.ideal_fct.ps, ideal);
    EXPECT_LE(r.fct().ps, ideal);
    if (r.fct().ps == fast) fastest = static_cast<int>(r.id.index());
  }
  ASSERT_GE(fastest, 0) << "no flow took spine1 both ways";
  const std::string path = ::testing::TempDir() + "/fct_test_flows.csv";
  write_flows_csv(path, exp);
  std::ifstream in(path);
  std::string line;
  for (int row = -1; row <= fastest; ++row) std::getline(in, line);
  char want[32];
  std::snprintf(want, sizeof want, ",%.6f,", static_cast<double>(fast) / ideal);
  EXPECT_NE(line.find(want), std::string::npos) << line << " lacks " << want;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace rocelab
