// PFC: lossless incast, PAUSE propagation, head-of-line blocking, and loss recovery with
// PFC off.
#include <gtest/gtest.h>

#include "net/mmu.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Two leaves under one spine. Leaf 0: 16 senders + 1 victim sender; leaf 1: the incast
// receiver and an idle receiver. Hosts at 100 Gb/s, fabric at 400 Gb/s, so the spine
// link has room for the victim; only PFC's head-of-line blocking can slow it.
struct Incast {
  static constexpr uint32_t kSenders = 16;
  ExperimentSpec spec;
  uint32_t receiver = 0, idle_receiver = 0, victim = 0;
  uint32_t leaf0 = 0, leaf1 = 0, spine = 0;

  Incast(bool pfc, int64_t buffer_bytes, uint64_t bytes_per_sender) {
    TopologySpec& t = spec.topology;
    for (uint32_t i = 0; i < kSenders + 1; ++i)
      t.add_node(NodeKind::kHost, Layer::kHost, std::string("s").append(std::to_string(i)));
    receiver = t.add_node(NodeKind::kHost, Layer::kHost, "r");
    idle_receiver = t.add_node(NodeKind::kHost, Layer::kHost, "r_idle");
    leaf0 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "leaf0");
    leaf1 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "leaf1");
    spine = t.add_node(NodeKind::kSwitch, Layer::kAggregation, "spine");
    const Delta d = Delta::from_us(1);
    for (uint32_t i = 0; i < kSenders + 1; ++i) t.add_link(i, leaf0, gbps(100), d);
    t.add_link(receiver, leaf1, gbps(100), d);
    t.add_link(idle_receiver, leaf1, gbps(100), d);
    t.add_link(leaf0, spine, gbps(400), d);
    t.add_link(spine, leaf1, gbps(400), d);
    victim = kSenders;
    spec.network.switch_config.pfc.enabled = pfc;
    spec.network.switch_config.buffer_bytes = buffer_bytes;
    spec.network.switch_config.ecn.enabled = false;
    for (uint32_t i = 0; i < kSenders; ++i)
      spec.flows.push_back(test::flow(i, receiver, bytes_per_sender, Time::zero(), "incast"));
  }
};

TEST(Pfc, IncastIsLosslessAndPausePropagatesUpstream) {
  Incast inc(true, 2 * 1000 * 1000, 2 * 1000 * 1000);
  Experiment exp(inc.spec);
  test::run_checked(exp);
  const NetCounters& c = exp.network().counters();
  EXPECT_EQ(c.drops, 0u);
  const auto& by_node = c.pause_frames_by_node;
  EXPECT_GT(by_node[inc.leaf1], 0u) << "last-hop switch must pause the spine";
  EXPECT_GT(by_node[inc.spine], 0u) << "the spine must propagate PAUSE to leaf0";
  EXPECT_GT(by_node[inc.leaf0], 0u) << "leaf0 must pause the senders";
  EXPECT_EQ(c.pause_frames, c.resume_frames) << "every XOFF is lifted in the end";
  // The 16 flows share one 100 Gb/s port: the incast takes at least 16 x 2 MB at line rate.
  const double min_ms = 16 * 2e6 * 8 * 1082.0 / 1000 / 100e9 * 1e3;
  Time last = Time::zero();
  for (const FlowRecord& r : exp.transport().records()) last = std::max(last, r.finish);
  EXPECT_GT(last.seconds() * 1e3, min_ms);
  EXPECT_LT(last.seconds() * 1e3, min_ms * 1.05) << "the bottleneck stays busy";
}

// A port with fewer queues than the lossless priority carries that priority in its last
// queue; a PAUSE for the priority must hold that queue (it was ignored, and 1.7 million
// packets were dropped with PFC on).
TEST(Pfc, SwitchesWithFewerQueuesThanThePriorityStayLossless) {
  for (uint32_t queues : {1u, 2u}) {
    Incast inc(true, 2 * 1000 * 1000, 2 * 1000 * 1000);
    inc.spec.network.switch_config.num_queues = queues;
    Experiment exp(inc.spec);
    test::run_checked(exp);
    EXPECT_EQ(exp.network().counters().drops, 0u) << queues << " queues";
    EXPECT_GT(exp.network().counters().pause_frames, 0u);
  }
}

TEST(Pfc, VictimSharingAPausedLinkIsHeadOfLineBlocked) {
  const uint64_t victim_size = 1000 * 1000;
  // Alone, the victim finishes at its ideal FCT.
  Incast alone(true, 2 * 1000 * 1000, 2 * 1000 * 1000);
  alone.spec.flows = {test::flow(alone.victim, alone.idle_receiver, victim_size)};
  Experiment solo(alone.spec);
  test::run_checked(solo);
  const FlowRecord& s = solo.transport().record(FlowId(0));
  EXPECT_LT(s.fct().us(), 1.01 * s.ideal_fct.us());

  // Beside the incast, PAUSEs on spine->leaf1 and leaf0->spine stall it, although its
  // receiver is idle and the 400 Gb/s links have room.
  Incast inc(true, 2 * 1000 * 1000, 2 * 1000 * 1000);
  inc.spec.flows.push_back(test::flow(inc.victim, inc.idle_receiver, victim_size,
                                      Time{Delta::from_us(50).ps}, "victim"));
  Experiment exp(inc.spec);
  test::run_checked(exp);
  const FlowRecord& v = exp.transport().record(FlowId(Incast::kSenders));
  EXPECT_GT(v.fct().us(), 3 * v.ideal_fct.us()) << "HoL blocking must slow the victim";
}

TEST(Pfc, WithoutPfcASmallBufferDropsAndEveryRecoveryModeRecovers) {
  const std::string modes[] = {"go_back_n", "selective_repeat", "reorder_buffer"};
  uint64_t retransmitted[3] = {};
  for (int m = 0; m < 3; ++m) {
    const std::string& mode = modes[m];
    Incast inc(false, 300 * 1000, 500 * 1000);
    inc.spec.transport.recovery = mode;
    // With no bound on its window the reorder buffer finds a loss by the timer alone (a
    // bounded one NAKs once a window of packets lies beyond the hole: transport_test).
    if (mode == "reorder_buffer") inc.spec.transport.ooo_window = OooWindow::kUnbounded;
    Experiment exp(inc.spec);
    test::run_checked(exp, Time{Delta::from_ms(500).ps});
    const NetCounters& c = exp.network().counters();
    EXPECT_GT(c.drops, 0u) << m;
    EXPECT_EQ(c.pause_frames, 0u) << m;
    const auto& tc = exp.transport().counters();
    EXPECT_GT(tc.retransmitted_bytes, 0u) << m;
    EXPECT_EQ(tc.payload_bytes_delivered, 16u * 500 * 1000) << m;
    if (mode == "reorder_buffer") {
      EXPECT_EQ(tc.naks_sent, 0u) << "loss is found by the timeout";
      EXPECT_GT(tc.timeouts, 0u);
    } else {
      EXPECT_GT(tc.naks_sent, 0u) << m;
    }
    retransmitted[m] = tc.retransmitted_bytes;
  }
  EXPECT_LT(retransmitted[1], retransmitted[0]) << "selective repeat resends only holes";
}

TEST(Pfc, StaticThresholdPausesAtTheConfiguredBytes) {
  Incast inc(true, 4 * 1000 * 1000, 1000 * 1000);
  inc.spec.network.switch_config.pfc.mode = PfcThresholdMode::kStatic;
  inc.spec.network.switch_config.pfc.static_xoff_bytes = 100 * 1000;
  Experiment exp(inc.spec);
  const Switch& leaf1 = static_cast<const Switch&>(exp.network().node(NodeId(inc.leaf1)));
  EXPECT_EQ(leaf1.flow_control().buffer()->xoff_threshold(PortId(0)), 100 * 1000);
  test::run_checked(exp);
  EXPECT_GT(exp.network().counters().pause_frames_by_node[inc.leaf1], 0u);
  EXPECT_EQ(exp.network().counters().drops, 0u);
}

}  // namespace
}  // namespace rocelab

namespace rocelab {
namespace {

// switch.buffers: one switch with a buffer of its own (BFC §5's 60 MB gateways); the others
// keep switch.buffer. The shared pool is the buffer less the same headroom on both spines.
TEST(PfcBuffer, ASwitchWithItsOwnBufferSize) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.network.switch_config.buffer_bytes = 12'000'000;
  spec.network.switch_config.buffers = {{"spine1", 60'000'000}};
  spec.flows.push_back(test::flow(0, 2, 100'000));
  Experiment exp(spec);
  Network& net = exp.network();
  const Mmu* big = net.switch_at(NodeId(net.topology().find("spine1"))).flow_control().buffer();
  const Mmu* small = net.switch_at(NodeId(net.topology().find("spine0"))).flow_control().buffer();
  ASSERT_TRUE(big && small);
  EXPECT_EQ(big->shared_capacity() - small->shared_capacity(), 48'000'000);
}

}  // namespace
}  // namespace rocelab
