// switch.ack_queue: ACK/NAK frames behind data in their class's queue (HPCC ns-3 switches)
// or ahead of it in the control queue (ConWeave ns-3).
#include <gtest/gtest.h>

#include "test_util.h"

namespace rocelab {
namespace {

// Hosts a1, a2, b, c on one switch. a1 and a2 send 2 MB each to b, so the port to b queues;
// b sends a 10 KB flow to c whose ACKs come back through that port.
Delta small_flow_fct(const std::string& ack_queue) {
  TopologySpec t;
  for (const char* h : {"a1", "a2", "b", "c"}) t.add_node(NodeKind::kHost, Layer::kHost, h);
  const uint32_t sw = t.add_node(NodeKind::kSwitch, Layer::kEdge, "sw");
  for (uint32_t h = 0; h < 4; ++h) t.add_link(h, sw, gbps(100), Delta::from_us(1));
  ExperimentSpec spec;
  spec.topology = t;
  spec.network.switch_config.ack_queue = ack_queue;
  spec.network.switch_config.ecn.enabled = false;
  const Time later{Delta::from_us(60).ps};
  spec.flows = {test::flow(0, 2, 2'000'000), test::flow(1, 2, 2'000'000),
                test::flow(2, 3, 10'000, later)};
  Experiment exp(spec);
  test::run_checked(exp);  // no drop, buffers drained (ACKs counted in and out of the MMU)
  return exp.transport().record(FlowId(2)).fct();
}

TEST(AckQueue, AcksBehindDataWaitForTheQueue) {
  const Delta control = small_flow_fct("control");
  const Delta data = small_flow_fct("data");
  // By 60 us two 100G senders into one 100G port have queued about 60 us x 100G = 750 KB:
  // 60 us of waiting for the ACK of the flow's last packet.
  EXPECT_LT(control.us(), 10.0) << "data " << data.us() << " us";
  EXPECT_GT(data.us(), control.us() + 30.0) << "control " << control.us() << " us";
}

// Host b on switch s1; hosts c and d on switch s2, whose link to c runs at 1 Gb/s; 1 MB
// buffers. b sends 500 KB to c: s2's port to c drains at 1 Gb/s, so s2 pauses s1's uplink,
// whose queue then holds b's data, and s1 pauses b, for milliseconds. From 40 us d sends
// 2 MB to b, and b answers each packet with an ACK, every 84 ns. With transport.ack_pause:
// send, a host's ACKs do not wait for a PAUSE (the ns-3 forks' NICs with ACK_HIGH_PRIO 1),
// so under ack_queue: data they queue behind b's data on the paused uplink and are counted
// in b's headroom at s1, which they fill within tens of microseconds.
struct AckDropRun {
  uint64_t drops = 0;
  uint64_t ack_drops = 0;
  std::string invariant;
  Delta acked_flow_fct;  // d to b
};
AckDropRun paused_ingress_with_acks(const std::string& ack_queue, bool acks_wait = false) {
  TopologySpec t;
  for (const char* h : {"b", "c", "d"}) t.add_node(NodeKind::kHost, Layer::kHost, h);
  const uint32_t s1 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "s1");
  const uint32_t s2 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "s2");
  t.add_link(0, s1, gbps(100), Delta::from_us(1));
  t.add_link(1, s2, gbps(1), Delta::from_us(1));
  t.add_link(2, s2, gbps(100), Delta::from_us(1));
  t.add_link(s1, s2, gbps(100), Delta::from_us(1));
  ExperimentSpec spec;
  spec.topology = t;
  spec.network.switch_config.ack_queue = ack_queue;
  spec.network.switch_config.ecn.enabled = false;
  spec.network.switch_config.buffer_bytes = 1'000'000;  // XOFF near 1/8 of it
  spec.transport.ack_pause = acks_wait ? AckPause::kWait : AckPause::kSend;
  spec.flows = {test::flow(0, 1, 500'000),
                test::flow(2, 0, 2'000'000, Time{Delta::from_us(40).ps})};
  Experiment exp(spec);
  const RunStats st = exp.run(Time{Delta::from_ms(200).ps});
  exp.drain();
  return AckDropRun{exp.network().counters().drops, exp.network().counters().ack_drops,
                    st.all_finished ? exp.check_invariants() : "unfinished",
                    exp.transport().record(FlowId(1)).fct()};
}

TEST(AckQueue, AcksThroughAPauseFillTheHeadroomUnderAckQueueData) {
  const AckDropRun data = paused_ingress_with_acks("data");
  EXPECT_GT(data.ack_drops, 0u);
  EXPECT_EQ(data.ack_drops, data.drops) << "only ACK/NAK frames may be dropped";
  // The invariant names the ACKs and the setting that puts them in the lossless class.
  EXPECT_NE(data.invariant.find("ACK/NAK"), std::string::npos) << data.invariant;
  EXPECT_NE(data.invariant.find("ack_queue"), std::string::npos) << data.invariant;
  const AckDropRun control = paused_ingress_with_acks("control");
  EXPECT_EQ(control.drops, 0u);
  EXPECT_EQ(control.invariant, "");
  // Through the control queue the ACKs pass the paused uplink: 2 MB in about 170 us.
  EXPECT_LT(control.acked_flow_fct.us(), 300.0);
}

// transport.ack_pause: wait (HPCC ns-3's ACK_HIGH_PRIO 0): b's NIC holds its ACKs while
// b is paused, so none reaches s1's headroom and nothing is dropped; d's flow completes only
// once b is let go, after b's 500 KB has crept through the 1 Gb/s link (milliseconds).
TEST(AckQueue, AcksThatWaitForThePauseAreNotDropped) {
  const AckDropRun waiting = paused_ingress_with_acks("data", /*acks_wait=*/true);
  EXPECT_EQ(waiting.drops, 0u);
  EXPECT_EQ(waiting.invariant, "");
  EXPECT_GT(waiting.acked_flow_fct.us(), 1000.0);
}

}  // namespace
}  // namespace rocelab
