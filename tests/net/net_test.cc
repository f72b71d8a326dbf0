#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "net/ecn.h"
#include "net/network.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Injects one data packet at host `a` and records when it fully arrives at host `b`.
struct OnePacketAgent : HostAgent {
  Network* net = nullptr;
  PacketId pending;
  Time arrival = Time::never();
  void on_host_receive(NodeId, PacketId pkt) override {
    arrival = net->sim().now();
    net->context().free_packet(pkt);
  }
  PacketId pull_data(NodeId, const EgressPort&, Time*) override {
    const PacketId p = pending;
    pending = PacketId::invalid();
    return p;
  }
};

Time one_packet_arrival(const TopologySpec& topo, uint32_t payload) {
  Simulator sim;
  Network net(sim, topo, NetworkConfig{});
  OnePacketAgent agent;
  agent.net = &net;
  net.set_host_agent(&agent);
  agent.pending = net.context().alloc_packet();
  Packet& p = net.context().pkt(agent.pending);
  p.src = NodeId(0);
  p.dst = NodeId(1);
  p.priority = 3;
  p.payload_bytes = payload;
  p.wire_bytes = net.config().wire.data_wire_bytes(payload);
  net.host(NodeId(0)).nic().kick();
  sim.run_until(Time::never());
  EXPECT_EQ(net.pool().in_use(), 0u);
  return agent.arrival;
}

// A host agent whose pull re-enters the port (as congestion control does when a packet
// sent raises its rate): the port must still send one packet at a time.
struct ReentrantAgent : HostAgent {
  Network* net = nullptr;
  int to_send = 3;
  std::vector<uint64_t> arrivals;
  void on_host_receive(NodeId, PacketId pkt) override {
    arrivals.push_back(net->context().pkt(pkt).seq);
    net->context().free_packet(pkt);
  }
  PacketId pull_data(NodeId, const EgressPort&, Time*) override {
    if (to_send == 0) return PacketId::invalid();
    const PacketId id = net->context().alloc_packet();
    Packet& p = net->context().pkt(id);
    p.src = NodeId(0);
    p.dst = NodeId(1);
    p.priority = 3;
    p.seq = static_cast<uint64_t>(3 - to_send--);
    p.wire_bytes = 1082;
    net->host(NodeId(0)).nic().kick();  // re-entry
    return id;
  }
};

TEST(Port, ReentrantKickDuringPullSendsOnePacketAtATime) {
  Simulator sim;
  Network net(sim, test::chain({gbps(100), gbps(100)}, Delta::from_us(1)), NetworkConfig{});
  ReentrantAgent agent;
  agent.net = &net;
  net.set_host_agent(&agent);
  net.host(NodeId(0)).nic().kick();
  sim.run_until(Time::never());
  EXPECT_EQ(agent.arrivals, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(net.pool().in_use(), 0u);
  EXPECT_EQ(net.check_drained(), "");
}

// Hand-computed: a 1000 B payload is 1082 wire bytes (62 B headers + 20 B preamble/IFG);
// at 100 Gb/s that is 86,560 ps, at 40 Gb/s 216,400 ps; each link adds 1 us.
TEST(Latency, OnePacketOverOneSwitch) {
  const Time t = one_packet_arrival(test::chain({gbps(100), gbps(100)}, Delta::from_us(1)), 1000);
  EXPECT_EQ(t.ps, 2 * (86560 + 1000000));
}

TEST(Latency, OnePacketOverTwoSwitchesWithSlowMiddleLink) {
  const Time t =
      one_packet_arrival(test::chain({gbps(100), gbps(40), gbps(100)}, Delta::from_us(1)), 1000);
  EXPECT_EQ(t.ps, 86560 + 216400 + 86560 + 3 * 1000000);
}

TEST(Latency, OnePacketOverFourSwitches) {
  const Time t = one_packet_arrival(
      test::chain({gbps(100), gbps(100), gbps(100), gbps(100), gbps(100)}, Delta::from_ns(500)),
      1000);
  EXPECT_EQ(t.ps, 5 * (86560 + 500000));
}

TEST(Latency, SingleMtuFlowFctIsDataPlusAckPath) {
  // Data 1082 B out (86,560 ps per link), ACK 86 B back (6,880 ps per link), 3 links.
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 1000)};
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_EQ(exp.transport().record(FlowId(0)).fct().ps,
            3 * (86560 + 1000000) + 3 * (6880 + 1000000));
}

TEST(Goodput, LoneFlowReachesLineRateTimesPayloadShare) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 1);
  const uint64_t size = 50 * 1000 * 1000;
  spec.flows = {test::flow(0, 1, size)};
  Experiment exp(spec);
  test::run_checked(exp);
  const FlowRecord& r = exp.transport().record(FlowId(0));
  const double goodput_bps = static_cast<double>(size) * 8 / r.fct().seconds();
  const double expected_bps = 100e9 * 1000.0 / 1082.0;
  EXPECT_NEAR(goodput_bps / expected_bps, 1.0, 0.005);
  EXPECT_NEAR(static_cast<double>(r.fct().ps) / static_cast<double>(r.ideal_fct.ps), 1.0, 0.01);
}

TEST(Ecn, RedProbabilityLine) {
  EcnConfig ecn;
  ecn.kmin_bytes = 5000;
  ecn.kmax_bytes = 200000;
  ecn.pmax = 0.2;
  EXPECT_EQ(red_mark_probability(5000, ecn), 0.0);
  EXPECT_EQ(red_mark_probability(200001, ecn), 1.0);
  EXPECT_DOUBLE_EQ(red_mark_probability(200000, ecn), 0.2);
  EXPECT_DOUBLE_EQ(red_mark_probability(102500, ecn), 0.1);
}

TEST(Ecn, MarkingFrequencyFollowsRedLine) {
  EcnConfig ecn;
  ecn.kmin_bytes = 5000;
  ecn.kmax_bytes = 200000;
  ecn.pmax = 0.2;
  RandomStream rng(2024, "ecn-test");
  const int n = 200000;
  for (int64_t q : {50000, 100000, 180000}) {
    const double p = red_mark_probability(q, ecn);
    int marks = 0;
    for (int i = 0; i < n; ++i) marks += red_should_mark(q, ecn, rng);
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(static_cast<double>(marks) / n, p, 4 * sigma) << "queue " << q;
  }
  int low = 0, high = 0;
  for (int i = 0; i < 1000; ++i) {
    low += red_should_mark(4000, ecn, rng);
    high += red_should_mark(250000, ecn, rng);
  }
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, 1000);
}

TEST(Routing, LeafSpinePathIdNamesTheSpine) {
  const TopologySpec t = test::small_leaf_spine(4, 8, 2);
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  const Routing& r = net.routing();
  const uint32_t leaf0 = t.find("leaf0"), leaf3 = t.find("leaf3");
  EXPECT_EQ(r.edge_switches().size(), 4u);
  EXPECT_EQ(r.path_count(leaf0, leaf3), 8u);
  EXPECT_EQ(r.next_hops(leaf0, leaf3).size(), 8u);
  for (uint32_t p = 0; p < 8; ++p) {
    const auto nodes = r.path_nodes(leaf0, leaf3, p);
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_EQ(t.nodes[nodes[1]].name, "spine" + std::to_string(p));
  }
}

// FLB §4.3's fat-tree: 12 pods of 6 edge and 6 aggregation switches, 36 cores, 1,008 hosts.
static TopologySpec flb_fat_tree() {
  FatTreeParams ft;
  ft.pods = 12;
  ft.edges_per_pod = 6;
  ft.aggs_per_pod = 6;
  ft.hosts_per_edge = 14;
  ft.cores = 36;
  return fat_tree(ft);
}

TEST(Routing, FlbFatTreeHas36PathsAcrossPods) {
  const TopologySpec t = flb_fat_tree();
  EXPECT_EQ(t.hosts().size(), 12u * 84u);
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  const Routing& r = net.routing();
  const uint32_t e0 = t.find("edge0"), e1 = t.find("edge1"), e6 = t.find("edge6");
  EXPECT_EQ(r.path_count(e0, e6), 36u);  // FLB §4.3: 36 equal-cost paths across pods
  EXPECT_EQ(r.path_count(e0, e1), 6u);
  EXPECT_EQ(r.edge_distance(e0, e6), 4u);
  // Distinct path ids give distinct switch sequences.
  std::set<std::vector<uint32_t>> seen;
  for (uint32_t p = 0; p < 36; ++p) seen.insert(r.path_nodes(e0, e6, p));
  EXPECT_EQ(seen.size(), 36u);
}

// A switch's next hops toward many edge switches are one list, stored once, so that a large
// fabric's tables stay in cache.
TEST(Routing, AnEdgeSwitchKeepsOneListOfUpPortsForEveryOtherEdge) {
  const TopologySpec t = flb_fat_tree();
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  const Routing& r = net.routing();
  const uint32_t e0 = t.find("edge0");
  const auto up = r.next_hops(e0, t.find("edge1"));
  ASSERT_EQ(up.size(), 6u);
  for (uint32_t e : r.edge_switches()) {
    if (e == e0) {
      EXPECT_TRUE(r.next_hops(e0, e).empty());
      continue;
    }
    EXPECT_EQ(r.next_hops(e0, e).data(), up.data()) << t.nodes[e].name;
    EXPECT_EQ(r.next_hops(e0, e).size(), 6u) << t.nodes[e].name;
  }
  EXPECT_TRUE(r.next_hops(t.hosts()[0], t.find("edge1")).empty()) << "a host routes nothing";
}

// The tables hold any number of equal next hops (the configuration allows 100,000 spines).
TEST(Routing, ALeafWithThreeHundredSpinesHasThreeHundredNextHops) {
  const TopologySpec t = test::small_leaf_spine(2, 300, 1);
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  const auto hops = net.routing().next_hops(t.find("leaf0"), t.find("leaf1"));
  ASSERT_EQ(hops.size(), 300u);
  EXPECT_EQ(net.routing().path_count(t.find("leaf0"), t.find("leaf1")), 300u);
}

TEST(Routing, AsymmetricPathsKeepEqualCostNextHopsButDifferentRates) {
  LeafSpineParams ls;
  ls.leaves = 2;
  ls.spines = 8;
  ls.hosts_per_leaf = 1;
  ls.fabric_rate_bps = gbps(40);
  TopologySpec t = leaf_spine(ls);
  EXPECT_EQ(t.set_link_rate("leaf0", "spine0", gbps(25)), 1);
  EXPECT_EQ(t.set_link_rate("spine0", "leaf1", gbps(25)), 1);
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  const auto hops = net.routing().next_hops(t.find("leaf0"), t.find("leaf1"));
  ASSERT_EQ(hops.size(), 8u);
  Switch& leaf0 = net.switch_at(NodeId(t.find("leaf0")));
  EXPECT_EQ(leaf0.port(hops[0]).rate_bps(), gbps(25));
  EXPECT_EQ(leaf0.port(hops[1]).rate_bps(), gbps(40));
  // Path 0 (via spine0) is the default route: its bottleneck is the slow link.
  EXPECT_EQ(net.bottleneck_rate_bps(NodeId(0), NodeId(1)), gbps(25));
}

TEST(Routing, FlbTestbedHasThreePaths) {
  const TopologySpec t = flb_testbed(gbps(40), Delta::from_us(1));
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  EXPECT_EQ(net.routing().path_count(t.find("S0"), t.find("S4")), 3u);
  EXPECT_EQ(net.routing().edge_of_host(t.find("R2")), t.find("S4"));
  EXPECT_EQ(net.routing().edge_of_host(t.find("H16")), t.find("S4"));
}

}  // namespace
}  // namespace rocelab
