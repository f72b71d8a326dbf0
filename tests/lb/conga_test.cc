// CONGA (lb/conga.h): the DRE's quantised metric against hand-computed values, and new
// flowlets steered away from a spine whose downlink to the destination leaf is congested.
#include <gtest/gtest.h>

#include <cstdio>

#include "lb/conga.h"
#include "test_util.h"

namespace rocelab {
namespace {

PortId uplink_to(const Node& leaf, const std::string& spine_name, const TopologySpec& t) {
  for (size_t i = 0; i < leaf.port_count(); ++i) {
    const PortId id(static_cast<uint16_t>(i));
    if (leaf.port(id).peer()->id().index() == t.find(spine_name)) return id;
  }
  ADD_FAILURE() << "no port toward " << spine_name;
  return PortId(0);
}

std::shared_ptr<const LbConfig> conga_config(const std::string& model) {
  auto c = std::make_shared<CongaSchemeConfig>();
  c->cfg.model = model;
  return c;
}

// One flow without congestion control from leaf 0 to leaf 1 over one spine, its host link
// at `host_gbps` and the fabric at 100 Gb/s. The DRE of the uplink holds X = R tau just
// before each decay and (1 - alpha) R tau just after (CONGA §3.5), so its metric is
// floor(8 R/C) or floor(7.2 R/C) with Q = 3 and alpha = 0.1, saturating at 7.
uint32_t steady_uplink_metric(double host_gbps, const std::string& model) {
  LeafSpineParams ls;
  ls.leaves = 2;
  ls.spines = 1;
  ls.hosts_per_leaf = 1;
  ls.host_rate_bps = gbps(host_gbps);
  TopologySpec t = leaf_spine(ls);
  ExperimentSpec spec;
  spec.topology = t;
  spec.lb = "conga";
  spec.lb_config = conga_config(model);
  spec.cc = "none";
  spec.flows.push_back(test::flow(0, 1, 50'000'000));
  Experiment exp(spec);
  exp.run(Time{Delta::from_us(1000).ps});
  const NodeId leaf(t.find("leaf0"));
  auto& conga = static_cast<Conga&>(*exp.network().switch_at(leaf).load_balancer());
  return conga.local_metric(uplink_to(exp.network().node(leaf), "spine0", t));
}

TEST(Conga, DreMetricIsTheQuantisedLinkUtilisation) {
  EXPECT_EQ(steady_uplink_metric(100, "paper"), 7u) << "line rate saturates Q = 3 bits";
  const uint32_t half = steady_uplink_metric(50, "paper");
  EXPECT_TRUE(half == 3 || half == 4) << half << ": 8 x 0.5 before a decay, 7.2 x 0.5 after";
  const uint32_t quarter = steady_uplink_metric(25, "paper");
  EXPECT_TRUE(quarter == 1 || quarter == 2) << quarter;
}

// Two leaves, two spines; spine0's link to leaf 1 runs at 25 Gb/s, the rest at 100 Gb/s.
// Four hosts of leaf 0 send 100 KB flows to leaf 1, one every 16 us in turn (50 Gb/s in all).
// Returns the share of leaf 0's data bytes sent toward spine0.
double share_via_slow_spine(const std::string& lb, const std::string& model = "paper") {
  TopologySpec t = test::small_leaf_spine(2, 2, 4);
  EXPECT_EQ(t.set_link_rate("spine0", "leaf1", gbps(25)), 1);
  ExperimentSpec spec;
  spec.topology = t;
  spec.lb = lb;
  if (lb == "conga") spec.lb_config = conga_config(model);
  spec.cc = "dcqcn";
  for (uint32_t i = 0; i < 400; ++i)
    spec.flows.push_back(
        test::flow(i % 4, 4 + (i / 4) % 4, 100'000, Time{Delta::from_us(16).ps * i}));
  Experiment exp(spec);
  test::run_checked(exp);
  const Node& leaf = exp.network().node(NodeId(t.find("leaf0")));
  const double slow =
      static_cast<double>(leaf.port(uplink_to(leaf, "spine0", t)).counters().tx_data_bytes);
  const double fast =
      static_cast<double>(leaf.port(uplink_to(leaf, "spine1", t)).counters().tx_data_bytes);
  return slow / (slow + fast);
}

TEST(Conga, SteersNewFlowletsAwayFromACongestedSpineDownlink) {
  const double ecmp = share_via_slow_spine("ecmp");
  const double conga = share_via_slow_spine("conga", "paper");
  const double conga_ns3 = share_via_slow_spine("conga", "ns3");
  std::printf("share of bytes via the 25G spine: ecmp %.2f, conga %.2f, conga (ns3) %.2f\n", ecmp,
              conga, conga_ns3);
  EXPECT_GT(ecmp, 0.35) << "hashing ignores the slow link";
  // The slow path can carry 25/125 = 20% of a balanced load.
  EXPECT_LT(conga, 0.3);
  EXPECT_LT(conga, ecmp - 0.15);
  // ConWeave-ns3's CONGA feeds back on data only: leaf 1 sends no data here, so leaf 0
  // learns nothing remote and balances on its own (equal) uplinks.
  EXPECT_GT(conga_ns3, 0.35);
}

}  // namespace
}  // namespace rocelab
