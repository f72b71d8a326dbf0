// Faults at hand-computed numbers (net/faults.h): a link that fails under a flow, routing's
// convergence around a failure, a PAUSE storm and the watchdog, and a PFC deadlock.
// Wire model as in pfc_numbers_test: a full data frame is 1000 payload + 62 headers + 20
// phy = 1082 B, 86,560 ps at 100 Gb/s; every link has 1 us of propagation delay.
#include <gtest/gtest.h>

#include <algorithm>

#include "net/faults.h"
#include "net/routing.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kFramePs = 86'560;
constexpr int64_t kUs = 1'000'000;
constexpr Priority kRdma = 3;

using test::link_down;

// A flow of `bytes` from a to b over the chain below (100 Gb/s, 1 us links, no ECN, a
// 100 us timer), with one failure.
ExperimentSpec chain_with_failure(uint64_t bytes, const FaultEvent& failure) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(100)}, Delta::from_us(1));
  spec.network.switch_config.ecn.enabled = false;
  spec.transport.rto = Delta::from_us(100);
  spec.flows = {test::flow(0, 1, bytes)};
  spec.faults.events = {failure};
  return spec;
}

// a (0) - sw0 (2) - sw1 (3) - b (1); link 1 is sw0-sw1. A 100-frame flow at line rate from
// t = 0 (no congestion control); sw0 -> sw1 fails from 5 us to 20 us. Routing's detection
// delay (100 us) is longer than the failure: routing never sees it.
//
// Frame n (from 0) starts on sw0 -> sw1 at s_n = (n + 1) x 86,560 + 1 us and arrives at sw1
// at s_n + 86,560 + 1 us. Frames 0..32 have arrived by 5 us (frame 32 at 4,943,040 ps);
// frames 33..45 started before 5 us (s_45 = 4,981,760) and are on the wire: lost (13);
// frames 46..99 reach sw0 by 9.66 us, start while the link is down, and are lost (54).
// 67 frames lost. Go-back-N resends from frame 33 when the timer (100 us, restarted by the
// last new ACK, that of frame 32) fires: exactly the 67 lost frames.
TEST(Faults, AFlowAcrossAFailedLinkResendsExactlyWhatWasLost) {
  Experiment exp(chain_with_failure(
      100 * 1000, link_down(1, true, Delta::from_us(5), Delta::from_us(20), Delta::from_us(100))));
  test::run_checked(exp);

  const NetCounters& nc = exp.network().counters();
  const FaultLossCount& down = nc.fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)];
  EXPECT_EQ(down.data_packets, 67u);
  EXPECT_EQ(down.data_bytes, 67u * 1082);
  EXPECT_EQ(down.control_frames, 0u) << "ACKs go the other way, which stayed up";
  EXPECT_EQ(nc.drops, 0u) << "a fault's loss is not the buffers' drop";
  const auto& tc = exp.transport().counters();
  EXPECT_EQ(tc.timeouts, 1u);
  EXPECT_EQ(tc.retransmitted_bytes, 67u * 1000) << "go-back-N from frame 33: the lost ones";
  EXPECT_TRUE(exp.faults()->routing_changes().empty()) << "a 15 us failure, 100 us detection";

  // The ACK of frame 32 leaves b when the frame arrives there, (32 + 3) x 86,560 + 3 us,
  // and takes three hops back; the timer fires 100 us after it reaches a. The 67 frames
  // resent then reach b after 3 us + (67 + 2) frame times, and the last ACK comes back.
  const WireModel& w = exp.network().context().wire;
  const int64_t ack_hop = w.serialize(w.control_wire_bytes(PacketType::kAck), gbps(100)).ps + kUs;
  const int64_t ack32_at_a = 35 * kFramePs + 3 * kUs + 3 * ack_hop;
  const int64_t resend = ack32_at_a + 100 * kUs;
  const int64_t finish = resend + 3 * kUs + 69 * kFramePs + 3 * ack_hop;
  EXPECT_EQ(exp.transport().records()[0].finish.ps, finish);
}

// The same chain; the sender's own link a -> sw0 (link 0) fails from 5 us to 20 us under a
// 1,000-frame flow. The NIC sees its carrier go and sends nothing until it is back.
// Frame n starts at a at n x 86,560 ps and arrives at sw0 86,560 ps + 1 us later: frames
// 0..45 have arrived by 5 us (frame 45 at 4,981,760), frames 46..57 are on the wire or
// being sent (frame 57 started at 4,933,920): 12 lost. Sending into the dead link, the NIC
// would have lost the 174 frames it started in those 15 us as well.
TEST(Faults, ANicWhoseLinkIsDownSendsNothingIntoIt) {
  Experiment exp(chain_with_failure(
      1000 * 1000, link_down(0, true, Delta::from_us(5), Delta::from_us(20), Delta::from_us(100))));
  const EgressPort& nic = exp.network().link_port(0, true);
  exp.run(Time{5 * kUs});
  EXPECT_EQ(nic.counters().tx_data_packets, 58u) << "frames 0..57 started";
  exp.run(Time{20 * kUs - 1});
  EXPECT_EQ(nic.counters().tx_data_packets, 58u) << "nothing started while the link was down";
  test::run_checked(exp);
  const NetCounters& nc = exp.network().counters();
  const FaultLossCount& down = nc.fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)];
  EXPECT_EQ(down.data_packets, 12u) << "only what was on the wire";
  EXPECT_EQ(nc.drops, 0u);
  EXPECT_EQ(exp.transport().counters().timeouts, 0u) << "the gap at frame 46 is NAKed";
}

// The receiver's own link fails toward its switch (b -> sw1, link 2) from 5 us to 20 us:
// the data still arrives, and the ACKs b makes meanwhile are lost at its port (a NIC flushes
// what it cannot send), not held for the link's return. The flow ends on later ACKs.
TEST(Faults, TheFramesANicCannotSendAreLostNotHeld) {
  Experiment exp(chain_with_failure(
      1000 * 1000,
      link_down(2, false, Delta::from_us(5), Delta::from_us(20), Delta::from_us(100))));
  test::run_checked(exp);  // every port empty at the end
  const FaultLossCount& down =
      exp.network().counters().fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)];
  EXPECT_EQ(down.data_packets, 0u) << "the data's direction stayed up";
  EXPECT_GT(down.control_frames, 100u) << "about one ACK per 86.56 ns for 15 us";
}

// 2 leaves x 4 spines, one host each. leaf0 - spine1 fails at 10 us and is repaired at
// 50 us; routing converges 5 us after each: leaf0's equal-cost group toward leaf1 has 4
// ports until 15 us, 3 from 15 us to 55 us, and 4 again after.
TEST(Faults, EcmpGroupsShrinkAndGrowAtTheStatedTimes) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 1);
  spec.transport.rto = Delta::from_us(100);
  spec.flows = {test::flow(0, 1, 2 * 1000 * 1000)};
  const uint32_t leaf0 = spec.topology.find("leaf0"), leaf1 = spec.topology.find("leaf1");
  const uint32_t spine1 = spec.topology.find("spine1");
  uint32_t link = 0;
  while (!(spec.topology.links[link].a == leaf0 && spec.topology.links[link].b == spine1)) ++link;
  spec.faults.events = {
      link_down(link, true, Delta::from_us(10), Delta::from_us(50), Delta::from_us(5))};
  spec.faults.events[0].directions.emplace_back(link, false);
  Experiment exp(spec);
  auto group = [&] { return exp.network().routing().next_hops(leaf0, leaf1).size(); };
  auto spine1_hops = [&] { return exp.network().routing().next_hops(spine1, leaf0).size(); };
  exp.run(Time{15 * kUs - 1});
  EXPECT_EQ(group(), 4u);
  EXPECT_EQ(spine1_hops(), 1u);
  exp.run(Time{15 * kUs});
  EXPECT_EQ(group(), 3u);
  // spine1 reaches leaf0 through leaf1 and another spine now (a valley route).
  EXPECT_EQ(spine1_hops(), 1u);
  EXPECT_EQ(exp.network()
                .routing()
                .peer(spine1, exp.network().routing().next_hops(spine1, leaf0)[0])
                .node,
            leaf1);
  exp.run(Time{55 * kUs - 1});
  EXPECT_EQ(group(), 3u);
  exp.run(Time{55 * kUs});
  EXPECT_EQ(group(), 4u);
  test::run_checked(exp);
  const auto& changes = exp.faults()->routing_changes();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].time.ps, 15 * kUs);
  EXPECT_FALSE(changes[0].links_up);
  EXPECT_EQ(changes[1].time.ps, 55 * kUs);
  EXPECT_TRUE(changes[1].links_up);
}

// A NIC stall: b's NIC PAUSEs sw0 from 10 us to 1 ms. The XOFF leaves b at 10 us (its
// port is idle then: the ACK of the frame that reached it at 9,963,520 ps took 6,720 ps)
// and holds sw0's port to b from 10 us + 6,720 ps + 1 us. The watchdog (100 us) declares
// the storm 100 us later to the picosecond, and from then on drops what the queue holds.
TEST(Faults, AStormPausesTheSwitchAndTheWatchdogFreesItAtTheThreshold) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.network.switch_config.ecn.enabled = false;
  spec.transport.rto = Delta::from_us(200);
  // A 2 MB buffer: XOFF at 1/8 of the free buffer, ~250 KB, which 20 us of line rate fills.
  spec.network.switch_config.buffer_bytes = 2 * 1000 * 1000;
  spec.flows = {test::flow(0, 1, 2 * 1000 * 1000)};
  FaultEvent storm;
  storm.kind = FaultEvent::Kind::kNicStall;
  storm.at = Time{10 * kUs};
  storm.until = Time{1000 * kUs};
  storm.host = 1;
  storm.priority = kRdma;
  spec.faults.events = {storm};
  spec.faults.watchdog.enabled = true;
  spec.faults.watchdog.detection_time = Delta::from_us(100);
  spec.faults.watchdog.restoration_time = Delta::from_us(50);
  Experiment exp(spec);
  Switch& sw0 = exp.network().switch_at(NodeId(2));
  EgressPort& to_b = sw0.port(PortId(1));
  const int64_t paused_at = 10 * kUs + 6'720 + kUs;
  exp.run(Time{paused_at - 1});
  EXPECT_FALSE(to_b.pfc_paused(kRdma));
  exp.run(Time{paused_at});
  EXPECT_TRUE(to_b.pfc_paused(kRdma));
  // The paused queue fills sw0's ingress from a, and sw0 PAUSEs a in turn.
  exp.run(Time{paused_at + 100 * kUs - 1});
  EXPECT_TRUE(to_b.pfc_paused(kRdma));
  EXPECT_TRUE(exp.network().host(NodeId(0)).nic().pfc_paused(kRdma));
  EXPECT_GT(exp.network().counters().pause_frames, 0u);
  EXPECT_TRUE(exp.faults()->watchdog_actions().empty());
  exp.run(Time{paused_at + 100 * kUs});
  ASSERT_EQ(exp.faults()->watchdog_actions().size(), 1u);
  const WatchdogAction& a = exp.faults()->watchdog_actions()[0];
  EXPECT_EQ(a.time.ps, paused_at + 100 * kUs);
  EXPECT_TRUE(a.storm);
  EXPECT_EQ(a.node, NodeId(2));
  EXPECT_EQ(a.port, PortId(1));
  EXPECT_FALSE(to_b.pfc_paused(kRdma));
  EXPECT_EQ(to_b.queue_bytes(to_b.queue_of_priority(kRdma)), 0) << "dropped at once";
  test::run_checked(exp, Time{Delta::from_ms(100).ps});
  const NetCounters& nc = exp.network().counters();
  EXPECT_GT(nc.fault_losses[static_cast<size_t>(FaultLoss::kWatchdog)].data_packets, 0u);
  EXPECT_EQ(nc.drops, 0u);
  EXPECT_GT(exp.faults()->storm_pause_frames(), 1u) << "the stalled NIC refreshes its XOFF";
}

// Five switches in a ring (s0..s4, nodes 5..9), host i (node i) on switch i, 100 Gb/s and
// 1 us links; hosts 0..flows-1 send `bytes` to the host two switches on; the deadlock
// detector looks every 50 us for cycles paused 200 us.
ExperimentSpec ring5(uint32_t flows, uint64_t bytes) {
  ExperimentSpec spec;
  TopologySpec& t = spec.topology;
  for (uint32_t i = 0; i < 5; ++i)
    t.add_node(NodeKind::kHost, Layer::kHost, "h" + std::to_string(i));
  for (uint32_t i = 0; i < 5; ++i)
    t.add_node(NodeKind::kSwitch, Layer::kEdge, "s" + std::to_string(i));
  for (uint32_t i = 0; i < 5; ++i) t.add_link(i, 5 + i, gbps(100), Delta::from_us(1));
  for (uint32_t i = 0; i < 5; ++i) t.add_link(5 + i, 5 + (i + 1) % 5, gbps(100), Delta::from_us(1));
  spec.network.switch_config.ecn.enabled = false;
  spec.transport.rto = Delta::from_ms(1);
  for (uint32_t i = 0; i < flows; ++i) spec.flows.push_back(test::flow(i, (i + 2) % 5, bytes));
  spec.faults.deadlock.check_interval = Delta::from_us(50);
  spec.faults.deadlock.persist = Delta::from_us(200);
  return spec;
}

// Five switches in a ring, one host each; host i sends to host i + 2, whose only shortest
// route runs clockwise through switch i + 1. Each ring link carries two flows at line rate:
// its queue fills, PAUSEs run round the ring and close a cycle of buffer dependencies.
TEST(Faults, ACyclicBufferDependencyIsReportedAsADeadlockWithItsCycle) {
  const ExperimentSpec spec = ring5(5, 10'000'000);
  Experiment exp(spec);
  const RunStats st = exp.run(Time{Delta::from_ms(50).ps});
  ASSERT_NE(exp.faults()->deadlock(), nullptr) << "no deadlock by " << st.sim_end.us() << " us";
  const Deadlock& d = *exp.faults()->deadlock();
  EXPECT_EQ(st.sim_end, d.detected) << "the run stops where it is found";
  EXPECT_GE(d.detected - d.formed, Delta::from_us(200));
  ASSERT_EQ(d.cycle.size(), 5u);
  // Each queue waits for the next switch's queue onward, clockwise.
  for (size_t k = 0; k < 5; ++k) {
    const uint32_t from = d.cycle[k].node.index() - 5;
    EXPECT_EQ(d.cycle[k].peer.index(), 5 + (from + 1) % 5);
    EXPECT_EQ(d.cycle[(k + 1) % 5].node, d.cycle[k].peer);
    EXPECT_EQ(d.cycle[k].queue, kRdma);
  }
  EXPECT_NE(exp.check_invariants().find("PFC deadlock: a cycle of 5 paused queues"),
            std::string::npos)
      << exp.check_invariants();
}

// The same ring without the flows that close the cycle (two neighbours' flows only): the
// queues pause, but no cycle forms, and the run finishes.
TEST(Faults, PausesWithoutACycleAreNoDeadlock) {
  const ExperimentSpec spec = ring5(2, 2'000'000);
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_EQ(exp.faults()->deadlock(), nullptr);
}

// Why the study's deadlock case is a ring with chords and not a fat-tree: after an
// edge-aggregation link of a fat-tree fails, shortest-path routing gives that aggregation
// switch a valley route down to its pod's other edge and up again (agg0 -> edge1 -> agg1 ->
// edge0), but no edge switch's route to edge0 passes agg0 any more: the valley carries only
// what was in flight at convergence, and no cycle of waits can persist.
TEST(Faults, AFatTreeFailureLeavesItsValleyRouteUnused) {
  FatTreeParams p;  // 4 pods, 2 edges and 2 aggregations per pod, 4 cores
  const TopologySpec t = fat_tree(p);
  const uint32_t edge0 = t.find("edge0"), agg0 = t.find("agg0"), edge1 = t.find("edge1");
  std::vector<uint8_t> down(t.links.size(), 0);
  for (uint32_t l = 0; l < t.links.size(); ++l)
    down[l] = (t.links[l].a == edge0 && t.links[l].b == agg0) ||
              (t.links[l].a == agg0 && t.links[l].b == edge0);
  const auto adjacency = port_adjacency(t);
  Routing r;
  r.build(t, adjacency, down);
  const auto valley = r.next_hops(agg0, edge0);
  ASSERT_EQ(valley.size(), 1u);
  EXPECT_EQ(r.peer(agg0, valley[0]).node, edge1);
  for (uint32_t e : r.edge_switches()) {
    if (e == edge0) continue;
    for (uint32_t path = 0; path < r.path_count(e, edge0); ++path) {
      const auto nodes = r.path_nodes(e, edge0, path);
      EXPECT_EQ(std::count(nodes.begin(), nodes.end(), agg0), 0)
          << t.nodes[e].name << " path " << path;
      EXPECT_EQ(nodes.back(), edge0);
    }
  }
}

// Overlapping faults on one link compose: down while either failure holds; the lower of two
// rates while both slow it, then the one left, then its own.
TEST(Faults, OverlappingFaultsOnOneLinkCompose) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 1000)};
  spec.stop_when_done = false;  // the faults act after the flow is done
  auto rate = [](Delta at, Delta until, BitsPerSec r) {
    FaultEvent e;
    e.kind = FaultEvent::Kind::kLinkRate;
    e.at = Time::zero() + at;
    e.until = Time::zero() + until;
    e.links = {1};
    e.directions = {{1, true}};
    e.rate_bps = r;
    return e;
  };
  const Delta us = Delta::from_us(1);
  spec.faults.events = {link_down(1, true, us * 5, us * 10, us * 100),
                        link_down(1, true, us * 8, us * 30, us * 100),
                        rate(us * 40, us * 60, gbps(50)), rate(us * 50, us * 70, gbps(25))};
  Experiment exp(spec);
  EgressPort& port = exp.network().link_port(1, true);
  auto at = [&](int64_t t_us) { exp.run(Time{t_us * kUs}); };
  at(12);
  EXPECT_TRUE(port.link_down()) << "the first failure's end leaves the second";
  at(29);
  EXPECT_TRUE(port.link_down());
  at(31);
  EXPECT_FALSE(port.link_down());
  at(45);
  EXPECT_EQ(port.rate_bps(), gbps(50));
  at(55);
  EXPECT_EQ(port.rate_bps(), gbps(25));
  at(65);
  EXPECT_EQ(port.rate_bps(), gbps(25));
  at(75);
  EXPECT_EQ(port.rate_bps(), gbps(100));
  EXPECT_FALSE(exp.network().link_port(1, false).link_down()) << "one direction only";
}

}  // namespace
}  // namespace rocelab
