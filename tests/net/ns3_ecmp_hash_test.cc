// The ns-3 simulators' ECMP hash (net/ns3_ecmp_hash.h) against values their own
// SwitchNode::EcmpHash printed for the same tuples (ConWeave-ns3, compiled alone).
#include <gtest/gtest.h>

#include <algorithm>

#include "net/ns3_ecmp_hash.h"
#include "test_util.h"

namespace rocelab {
namespace {

TEST(Ns3EcmpHash, MatchesTheirEcmpHash) {
  EXPECT_EQ(ns3_ecmp_hash(0, 2, 10000, 100, 4), 65455076u);
  EXPECT_EQ(ns3_ecmp_hash(125, 3, 10007, 133, 135), 2301709989u);
  EXPECT_EQ(ns3_ecmp_hash(31, 4, 10001, 101, 40), 2575145240u);
  EXPECT_EQ(ns3_node_ip(257), 0x0b010101u);  // 11.1.1.1
}

// A leaf-spine under switch.ecmp_hash: ns3 puts a flow on the spine their hash names: spine
// ids in ascending order, index = hash % n. With the links listed in reverse, a leaf's
// ports run from spine 7 down to spine 4, and the pick must still follow the spine ids.
TEST(Ns3EcmpHash, FlowsTakeTheSpineTheirHashPicks) {
  for (const bool reversed_links : {false, true})
    for (uint16_t sport = 10000; sport < 10008; ++sport) {
      ExperimentSpec spec;
      spec.topology = test::small_leaf_spine(2, 4, 1);  // hosts 0, 1; leaves 2, 3; spines 4-7
      if (reversed_links) std::reverse(spec.topology.links.begin(), spec.topology.links.end());
      spec.network.switch_config.ecmp_hash = "ns3";
      spec.lb = "ecmp";
      FlowSpec f = test::flow(0, 1, 10000);
      f.sport = sport;
      f.dport = 100;
      spec.flows = {f};
      Experiment exp(spec);
      test::run_checked(exp);
      const uint32_t spine = 4 + ns3_ecmp_hash(0, 1, sport, 100, 2) % 4;
      uint64_t bytes_via_spine = 0;
      for (uint32_t s = 4; s < 8; ++s) {
        const Node& n = exp.network().node(NodeId(s));
        uint64_t b = 0;
        for (size_t p = 0; p < n.port_count(); ++p)
          b += n.port(PortId(static_cast<uint16_t>(p))).counters().tx_data_bytes;
        if (s == spine)
          bytes_via_spine = b;
        else
          EXPECT_EQ(b, 0u) << "sport " << sport << " also crossed spine " << s;
      }
      EXPECT_GT(bytes_via_spine, 10000u) << "sport " << sport;
    }
}

}  // namespace
}  // namespace rocelab
