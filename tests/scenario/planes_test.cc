// NICs with a port per plane or ToR (topology.planes, dual_tor): the fabric built, routes
// by the QP's port, a ring on two planes at the hand-derived time, a port's failure moving
// its QPs with exactly the lost packets resent, and bad input named.
#include <gtest/gtest.h>

#include "net/routing.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "scenario/results/collectives.h"
#include "test_util.h"

namespace rocelab {
namespace {

LeafSpineParams small_leaf_spine() {
  LeafSpineParams p;
  p.leaves = 2;
  p.spines = 2;
  p.hosts_per_leaf = 2;
  return p;
}

TEST(Planes, EachPlaneIsACopyAndPortKGoesToPlaneK) {
  const TopologySpec one = leaf_spine(small_leaf_spine());
  const TopologySpec two = with_planes(one, 2);
  ASSERT_EQ(two.nodes.size(), 4u + 2 * 4);
  ASSERT_EQ(two.links.size(), 2 * one.links.size());
  // Plane 0's block is the single-plane fabric, its switches renamed.
  for (size_t l = 0; l < one.links.size(); ++l) {
    EXPECT_EQ(two.links[l].a, one.links[l].a);
    EXPECT_EQ(two.links[l].b, one.links[l].b);
  }
  EXPECT_EQ(two.nodes[4].name, "leaf0_p0");
  EXPECT_EQ(two.nodes[8].name, "leaf0_p1");
  EXPECT_EQ(two.nodes[8].plane, 1);
  EXPECT_EQ(two.nodes[0].name, "h0");
  const TopologySpec same = with_planes(one, 1);
  EXPECT_EQ(same.nodes.size(), one.nodes.size());
  EXPECT_EQ(same.nodes[4].name, "leaf0");

  const auto adjacency = port_adjacency(two);
  Routing r;
  r.build(two, adjacency);  // the planes do not reach each other, and need not
  EXPECT_TRUE(r.multi_port());
  EXPECT_EQ(r.ports_per_host(), 2u);
  EXPECT_EQ(two.nodes[r.edge_of_host(0, 0)].name, "leaf0_p0");
  EXPECT_EQ(two.nodes[r.edge_of_host(0, 1)].name, "leaf0_p1");
  EXPECT_EQ(two.nodes[r.edge_of_host(3, 1)].name, "leaf1_p1");
  EXPECT_EQ(r.farthest_edge_distance(r.edge_of_host(0, 1)), 2u);
  // A packet's port picks its edge switches.
  Packet p;
  p.src = NodeId(0);
  p.dst = NodeId(3);
  p.nic_port = 1;
  EXPECT_EQ(r.src_edge(p), r.edge_of_host(0, 1));
  EXPECT_EQ(r.dst_edge(p), r.edge_of_host(3, 1));
  EXPECT_EQ(r.path_count(r.src_edge(p), r.dst_edge(p)), 2u);
}

TEST(Planes, DualTorGivesEveryNicTwoToRsOfOnePlane) {
  const TopologySpec t = with_dual_tor(leaf_spine(small_leaf_spine()));
  ASSERT_EQ(t.nodes.size(), 4u + 2 * 2 + 2);
  const auto adjacency = port_adjacency(t);
  Routing r;
  r.build(t, adjacency);
  EXPECT_EQ(t.nodes[r.edge_of_host(1, 0)].name, "leaf0_t0");
  EXPECT_EQ(t.nodes[r.edge_of_host(1, 1)].name, "leaf0_t1");
  // Both ToRs reach every spine: a spine has a port to each of the four.
  EXPECT_EQ(adjacency[t.find("spine0")].size(), 4u);
  EXPECT_EQ(r.edge_distance(t.find("leaf0_t0"), t.find("leaf0_t1")), 2u);
}

struct Ran {
  ExperimentSpec spec;
  std::unique_ptr<Experiment> exp;
};

Ran run_yaml(const std::string& yaml) {
  ScenarioConfig c = load_scenario_text(yaml, "planes-test.yaml");
  Ran r;
  r.spec = build_experiment(c);
  r.exp = std::make_unique<Experiment>(r.spec);
  test::run_checked(*r.exp, Time{Delta::from_ms(50).ps});
  return r;
}

// Four hosts on one leaf per plane, 100 Gb/s, 1 us links, a ring all-reduce of 128,000 B
// on two QPs per connection, each half of a step's block (16,000 B: 16 whole frames).
std::string ring(const std::string& topology_extra, const std::string& extra = "") {
  return "topology: {type: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 4, "
         "host_rate: 100Gbps, fabric_rate: 100Gbps, link_delay: 1us" +
         topology_extra +
         "}\n"
         "cc: none\nfc: pfc\n"
         "transport: {ack_interval: 1000000}\n"  // one ACK per message, at its end
         "workloads:\n  - {name: ar, type: collective, op: all_reduce, size: 128000, "
         "qps_per_connection: 2, split_data_on_qps: true}\n" +
         extra;
}

TEST(Planes, RingOnTwoPlanesTakesTheHandDerivedTime) {
  // A step sends 16 frames of 1,082 B (86.56 ns) on each port: 17 x 86.56 + 2 x 1 us =
  // 3,471.52 ns (the last frame once more at the switch), 6 steps 20,829.12 ns. Each of
  // the first 5 steps' one ACK (86 B, 6.88 ns) goes out on its port just before the next
  // step's first frame: 20,863.52 ns. On one plane both QPs share the port: 33 frames,
  // 6 x 4,856.48 + 5 x 6.88 = 29,173.28 ns.
  const Ran two = run_yaml(ring(", planes: 2", "nic: {port_select: round_robin}\n"));
  const Ran one = run_yaml(ring(""));
  const auto two_cct = collective_results(*two.exp).at(0).cct().ps;
  const auto one_cct = collective_results(*one.exp).at(0).cct().ps;
  EXPECT_EQ(two_cct, 20'863'520);
  EXPECT_EQ(one_cct, 29'173'280);
  // Round robin: each sender's two QPs on ports 0 and 1, each port half the bytes.
  const Network& net = two.exp->network();
  for (NodeId h : net.hosts()) {
    EXPECT_EQ(net.node(h).port(PortId(0)).counters().tx_data_packets, 6u * 16) << h.index();
    EXPECT_EQ(net.node(h).port(PortId(1)).counters().tx_data_packets, 6u * 16) << h.index();
  }
}

TEST(Planes, HashedQpsKeepTheirPortAndEveryPlaneCarriesItsOwn) {
  // 16 QPs from h0 to h3 on two planes: hashing spreads them, every packet of a QP stays on
  // its plane (a plane's spine carries exactly its QPs' frames), and the ACKs come back by
  // the port the data went out on.
  std::string flows;
  for (int i = 0; i < 16; ++i)
    flows += "  - {name: f" + std::to_string(i) +
             ", type: incast, senders: [h0], receiver: h3, size_per_sender: 10000, start: " +
             std::to_string(i) + "us}\n";
  const Ran r = run_yaml(
      "topology: {type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 2, planes: 2, "
      "link_delay: 1us}\ncc: none\nworkloads:\n" +
      flows);
  const RdmaTransport& tr = r.exp->transport();
  uint64_t on_port[2] = {0, 0};
  for (const FlowRecord& f : tr.records()) ++on_port[tr.nic_port_of(f.qp)];
  EXPECT_GT(on_port[0], 0u);
  EXPECT_GT(on_port[1], 0u);
  const Network& net = r.exp->network();
  const TopologySpec& topo = net.topology();
  for (uint32_t k = 0; k < 2; ++k) {
    const Node& spine = net.node(NodeId(topo.find("spine0_p" + std::to_string(k))));
    uint64_t frames = 0;
    for (size_t p = 0; p < spine.port_count(); ++p)
      frames += spine.port(PortId(static_cast<uint16_t>(p))).counters().tx_data_packets;
    EXPECT_EQ(frames, on_port[k] * 10) << "plane " << k;
    EXPECT_EQ(net.node(NodeId(3)).port(PortId(static_cast<uint16_t>(k))).counters().tx_bytes,
              on_port[k] * 10 * 86)
        << "one ACK (66 + 20 B) per packet of each QP on the port it came in by";
  }
}

TEST(Planes, AFailedPortMovesItsQpsAndResendsExactlyWhatWasLost) {
  // h1's plane-1 link fails at 3 us, mid-step; after 2 us its NIC moves the QPs on port 1
  // (h0 -> h1 and h1 -> h2) to port 0. Frames are whole (16,000 B messages): every byte
  // resent is a data packet the failure lost or go-back-N dropped out of order after it.
  const Ran r = run_yaml(ring(", planes: 2",
                              "nic: {port_select: round_robin, failover_delay: 2us}\n"
                              "events:\n  - {type: link_down, at: 3us, a: h1, b: leaf0_p1}\n"));
  const auto results = collective_results(*r.exp);
  ASSERT_TRUE(results.at(0).complete);
  const RdmaTransport& tr = r.exp->transport();
  uint64_t bytes = 0;
  for (const FlowRecord& f : tr.records()) bytes += f.size_bytes;
  EXPECT_EQ(tr.counters().payload_bytes_delivered, bytes);
  const NetCounters& nc = r.exp->network().counters();
  const uint64_t lost = nc.fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)].data_packets;
  EXPECT_GT(lost, 0u);
  EXPECT_EQ(tr.counters().retransmitted_bytes, (lost + tr.counters().out_of_order_packets) * 1000);
  EXPECT_EQ(tr.counters().timeouts, 0u);
  const auto& failovers = r.exp->faults()->nic_failovers();
  ASSERT_EQ(failovers.size(), 1u);
  EXPECT_EQ(failovers[0].time, Time{Delta::from_us(5).ps});
  EXPECT_EQ(failovers[0].host, NodeId(1));
  EXPECT_EQ(failovers[0].port, 1u);
  EXPECT_EQ(failovers[0].qps_moved, 2u);
  for (const FlowRecord& f : tr.records()) {
    if (f.src == NodeId(1) || f.dst == NodeId(1)) {
      EXPECT_EQ(tr.nic_port_of(f.qp), 0u) << f.id.index();
    }
  }
  // Slower than the ring without the failure, and done.
  EXPECT_GT(results[0].cct().ps, 20'863'520);
}

// A NIC of two ports stalls whole: from 10 us on, neither port drains what its leaf sends
// and h1 PAUSEs both planes' leaves, each port its own storm; the ring finishes once the
// stall ends at 60 us.
TEST(Planes, AStalledNicPausesEveryPlane) {
  ScenarioConfig c =
      load_scenario_text(ring(", planes: 2",
                              "nic: {port_select: round_robin}\n"
                              "events:\n  - {type: nic_stall, host: h1, at: 10us, until: 60us}\n"),
                         "planes-stall.yaml");
  Experiment exp(build_experiment(c));
  const auto toward_h1 = [&](uint32_t port) -> const EgressPort& {
    const EgressPort& nic = exp.network().host(NodeId(1)).port(PortId(static_cast<uint16_t>(port)));
    return nic.peer()->port(nic.peer_port());
  };
  const auto paused_toward_h1 = [&](uint32_t port) {
    const EgressPort& to_nic = toward_h1(port);
    return to_nic.pfc_paused(to_nic.queue_of_priority(exp.spec().transport.data_priority));
  };
  exp.run(Time{Delta::from_us(9).ps});
  EXPECT_FALSE(paused_toward_h1(0));
  EXPECT_FALSE(paused_toward_h1(1));
  exp.run(Time{Delta::from_us(30).ps});
  EXPECT_TRUE(paused_toward_h1(0));
  EXPECT_TRUE(paused_toward_h1(1));
  EXPECT_TRUE(toward_h1(0).peer_stalled());
  EXPECT_TRUE(toward_h1(1).peer_stalled());
  test::run_checked(exp, Time{Delta::from_ms(50).ps});
  EXPECT_FALSE(toward_h1(0).peer_stalled());
  EXPECT_FALSE(toward_h1(1).peer_stalled());
  const auto results = collective_results(exp);
  ASSERT_TRUE(results.at(0).complete);
  EXPECT_GT(results[0].end, Time{Delta::from_us(60).ps});
  EXPECT_GE(exp.faults()->storm_pause_frames(), 2u) << "one XOFF per port at least";
}

TEST(Planes, TheSameOnAnyNumberOfThreads) {
  const std::string yaml =
      "topology: {type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4, planes: 2}\n"
      "lb: conweave\nworkloads:\n"
      "  - {name: bg, type: poisson, cdf: websearch, load: 0.5, stop: 100us}\n"
      "  - {name: in, type: incast, senders: h4..h11, receiver: h0, size_per_sender: 50KB}\n";
  std::vector<std::string> csvs;
  for (uint32_t threads : {1u, 3u}) {
    ScenarioConfig c = load_scenario_text(yaml, "planes-threads.yaml");
    Experiment exp(build_experiment(c));
    exp.set_threads(threads, threads == 1 ? 4 : 0);
    test::run_checked(exp, Time{Delta::from_ms(50).ps});
    std::string rows;
    for (const FlowRecord& f : exp.transport().records())
      rows += std::to_string(f.finish.ps) + "," +
              std::to_string(exp.transport().nic_port_of(f.qp)) + "\n";
    csvs.push_back(rows);
  }
  EXPECT_EQ(csvs[0], csvs[1]);
}

TEST(Planes, BadInputIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"topology: {type: flb_testbed, planes: 2}", "planes are built for leaf_spine"},
      {"topology: {type: leaf_spine, planes: 2, dual_tor: true}", "each port already has"},
      {"topology: {type: leaf_spine, planes: 0}", "planes"},
      {"topology: {type: leaf_spine, planes: 2}\nnic: {port_select: random}", "port_select"},
      {"topology: {type: leaf_spine, planes: 2}\nnic: {failover_delay: -1us}", "failover_delay"},
      {"topology: {type: leaf_spine, planes: 2}\n"
       "events:\n  - {type: link_down, at: 1us, a: leaf0_p2, b: spine0_p2}",
       "2 planes (0 to 1); 'leaf0_p2' names plane 2"},
  };
  for (const auto& [yaml, needle] : cases) {
    try {
      ScenarioConfig c =
          load_scenario_text(yaml +
                                 "\nworkloads:\n  - {name: w, type: incast, senders: [h1], "
                                 "receiver: h0, size_per_sender: 1000}\n",
                             "bad.yaml");
      build_experiment(c);
      ADD_FAILURE() << "accepted: " << yaml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rocelab
