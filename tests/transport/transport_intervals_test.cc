// The receiver's rate limits at hand-computed counts: ACK coalescing
// (transport.ack_interval_packets), the go-back-N NAK interval and the CNP interval, read
// through TransportCounters. Timing in the comments: a full data frame is 1082 wire bytes,
// 86,560 ps at 100 Gb/s; an ACK 66 + 20 = 86 B, 6,880 ps; links have 1 us of delay.
#include <gtest/gtest.h>

#include "cc/dcqcn.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kFramePs = 86'560;
constexpr int64_t kUs = 1'000'000;  // ps

ExperimentSpec one_switch() {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  return spec;
}

// With one ACK per 4 in-order packets (and one for the last), 13 packets get ACKs after
// packets 4, 8, 12 and 13; 12 packets after 4, 8 and 12. An ACK every 5th (an off-by-one)
// would give 3 for 13 packets. The last packet is always acknowledged at once, so the flow
// ends when its ACK is back, as with an ACK per packet: packet 13 leaves a at 12 x 86,560,
// reaches b after two serializations and two delays (14 x 86,560 + 2 us), and its ACK
// takes 2 x 6,880 ps + 2 us back: 5,225,600 ps.
TEST(TransportIntervals, AckCoalescingSendsOneAckPerNPacketsPlusTheLast) {
  struct Case {
    uint32_t interval;
    uint64_t packets;
    uint64_t acks;
  };
  for (const Case& c : {Case{4, 13, 4}, Case{4, 12, 3}, Case{1, 13, 13}, Case{20, 13, 1}}) {
    ExperimentSpec spec = one_switch();
    spec.transport.ack_interval_packets = c.interval;
    spec.flows = {test::flow(0, 1, c.packets * 1000)};
    Experiment exp(spec);
    test::run_checked(exp);
    EXPECT_EQ(exp.transport().counters().acks_sent, c.acks) << c.interval << ", " << c.packets;
    const int64_t finish = (c.packets + 1) * kFramePs + 2 * 6'880 + 4 * kUs;
    EXPECT_EQ(exp.transport().record(FlowId(0)).finish.ps, finish)
        << c.interval << ", " << c.packets;
  }
}

// Go-back-N drops a packet beyond the expected sequence and NAKs, but at most once per
// nak_interval for the same expected sequence. The flow is held (it sends nothing) and the
// test hands b out-of-order packets every 2 us from 5 us, nak_interval 10 us: NAKs at 5,
// 15, 25 and 35 us (the interval is over at exactly +10 us; a strict ">" would NAK at 5,
// 17, 29). An in-order packet at 36 us moves the expected sequence, so the out-of-order
// packet at 37 us is NAKed at once although the last NAK was 2 us before.
TEST(TransportIntervals, GoBackNNaksAtMostOncePerIntervalForTheSameExpectedSeq) {
  ExperimentSpec spec = one_switch();
  spec.transport.recovery = "go_back_n";
  spec.transport.nak_interval = Delta::from_us(10);
  spec.flows = {test::flow(0, 1, 1000 * 1000)};
  Experiment exp(spec);
  RdmaTransport& tr = exp.transport();
  tr.set_hold(FlowId(0), true);
  auto deliver_at = [&](int64_t ps, uint64_t seq) {
    exp.run(Time{ps});
    NetContext& ctx = exp.network().context();
    const PacketId id = ctx.alloc_packet();
    Packet& p = ctx.pkt(id);
    p.type = PacketType::kData;
    p.priority = spec.transport.data_priority;
    p.src = NodeId(0);
    p.dst = NodeId(1);
    p.flow = FlowId(0);
    p.seq = seq;
    p.payload_bytes = 1000;
    p.wire_bytes = 1082;
    p.sent_time = exp.sim().now();
    tr.on_host_receive(NodeId(1), id);
  };
  const uint64_t expected_naks[] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4};
  for (int i = 0; i < 16; ++i) {
    deliver_at((5 + 2 * i) * kUs, 2000 + 1000 * i);
    EXPECT_EQ(tr.counters().naks_sent, expected_naks[i]) << "at " << 5 + 2 * i << " us";
  }
  EXPECT_EQ(tr.counters().out_of_order_packets, 16u);
  deliver_at(36 * kUs, 0);
  EXPECT_EQ(tr.delivered_bytes(FlowId(0)), 1000u);
  EXPECT_EQ(tr.counters().naks_sent, 4u);
  deliver_at(37 * kUs, 5000);
  EXPECT_EQ(tr.counters().naks_sent, 5u) << "a new expected sequence is NAKed at once";
  deliver_at(38 * kUs, 6000);
  EXPECT_EQ(tr.counters().naks_sent, 5u);
}

// Every data packet ECN-marked (kmax below zero: any queue is above it), cc = dcqcn with
// alpha 0 and g 0 so that a cut keeps the rate (R_C (1 - 0/2)) and the flow runs at line
// rate: packet n reaches b at (n + 2) x 86,560 ps + 2 us. The notification point sends a
// CNP for the first marked packet and then for the first one at least cnp_interval after
// the previous CNP.
Experiment marked_flow(uint64_t packets, Delta cnp_interval) {
  ExperimentSpec spec = one_switch();
  spec.network.switch_config.ecn.kmin_bytes = -1;
  spec.network.switch_config.ecn.kmax_bytes = -1;
  spec.cc = "dcqcn";
  auto cc = std::make_shared<DcqcnSchemeConfig>();
  cc->cfg.np.cnp_interval = cnp_interval;
  cc->cfg.initial_alpha = 0;
  cc->cfg.g = 0;
  spec.cc_config = cc;
  spec.flows = {test::flow(0, 1, packets * 1000)};
  return Experiment(spec);
}

// cnp_interval 50 us (the default): 50,000,000 / 86,560 = 577.6, so CNPs for packets 0,
// 578, 1156 and 1734 of a 2000-packet flow: 4.
TEST(TransportIntervals, OneCnpPerFlowPerCnpInterval) {
  Experiment exp = marked_flow(2000, DcqcnNpConfig{}.cnp_interval);
  ASSERT_EQ(DcqcnNpConfig{}.cnp_interval, Delta::from_us(50));
  test::run_checked(exp);
  EXPECT_EQ(exp.network().counters().ecn_marks, 2000u);
  EXPECT_EQ(exp.transport().counters().cnps_sent, 4u);
  EXPECT_EQ(exp.transport().record(FlowId(0)).fct(), exp.transport().record(FlowId(0)).ideal_fct)
      << "the CNPs did not slow the flow";
}

// cnp_interval of exactly 577 packet gaps (49,945,120 ps): a packet exactly one interval
// after the last CNP gets one, so CNPs for packets 0, 577, 1154 and 1731 of 1732: 4 (a
// strict ">" would give 0, 578, 1156: 3).
TEST(TransportIntervals, CnpIntervalBoundaryIsInclusive) {
  Experiment exp = marked_flow(1732, Delta{577 * kFramePs});
  test::run_checked(exp);
  EXPECT_EQ(exp.network().counters().ecn_marks, 1732u);
  EXPECT_EQ(exp.transport().counters().cnps_sent, 4u);
}

}  // namespace
}  // namespace rocelab
