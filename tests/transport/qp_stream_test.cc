// A queue pair that carries several messages (RdmaTransport::add_flow's `qp`): one PSN
// stream, one flow to the switches, each message its own record.
#include <gtest/gtest.h>

#include "scenario/build/experiment.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Message `i` of `sizes` from host `src` to `dst`, each queued behind the one before it on
// the QP of the first.
std::vector<FlowSpec> qp_messages(uint32_t src, uint32_t dst, const std::vector<uint64_t>& sizes,
                                  bool one_qp = true) {
  std::vector<FlowSpec> flows;
  for (size_t i = 0; i < sizes.size(); ++i) {
    FlowSpec f = test::flow(src, dst, sizes[i]);
    if (i > 0) {
      f.behind = static_cast<uint32_t>(i - 1);
      if (one_qp) f.qp = 0;
    }
    flows.push_back(f);
  }
  return flows;
}

// Two messages of 2,500 and 3,000 B (MTU payload 1,000 B) on one QP: the second's bytes
// start at the first packet boundary after the first's end, 3,000, and end at 6,000. The
// first sends 3 packets (1,000, 1,000, 500 B), the second 3; the second starts when the
// first's last packet leaves: after two full frames, 2 x 1,082 B at 100 Gb/s = 173.12 ns.
TEST(QpStream, ASecondMessageContinuesThePsnAtAPacketBoundary) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = qp_messages(0, 1, {2500, 3000});
  Experiment exp(spec);
  test::run_checked(exp);
  const RdmaTransport& tr = exp.transport();
  ASSERT_EQ(tr.flow_count(), 2u);
  EXPECT_EQ(tr.qp_count(), 1u);
  EXPECT_EQ(tr.qp_of(FlowId(1)), FlowId(0));
  EXPECT_EQ(tr.record(FlowId(1)).sport, tr.record(FlowId(0)).sport);
  EXPECT_EQ(tr.snd_nxt(FlowId(0)), 6000u) << "the QP's stream: 0..2,500, then 3,000..6,000";
  EXPECT_EQ(tr.high_sent(FlowId(0)), 6000u);
  EXPECT_EQ(tr.counters().data_packets_sent, 6u);
  EXPECT_EQ(tr.counters().payload_bytes_delivered, 5500u);
  EXPECT_EQ(tr.delivered_bytes(FlowId(0)), 2500u);
  EXPECT_EQ(tr.delivered_bytes(FlowId(1)), 3000u);
  EXPECT_EQ(tr.record(FlowId(1)).start.ps, 173'120);
  EXPECT_LT(tr.record(FlowId(0)).delivered, tr.record(FlowId(1)).delivered);
  EXPECT_LE(tr.record(FlowId(0)).finish, tr.record(FlowId(1)).finish);
}

// The same two messages as flows of their own: the second's packets are numbered from 0.
TEST(QpStream, WithoutAQpEachMessageIsAFlowOfItsOwn) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = qp_messages(0, 1, {2500, 3000}, false);
  Experiment exp(spec);
  test::run_checked(exp);
  const RdmaTransport& tr = exp.transport();
  EXPECT_EQ(tr.qp_count(), 2u);
  EXPECT_EQ(tr.qp_of(FlowId(1)), FlowId(1));
  EXPECT_EQ(tr.snd_nxt(FlowId(0)), 2500u);
  EXPECT_EQ(tr.snd_nxt(FlowId(1)), 3000u);
  EXPECT_EQ(tr.record(FlowId(1)).start.ps, 173'120) << "queued behind it all the same";
}

// QPs are numbered apart from flows: flows 0-2 are messages of QP 0 (host 0 to 1), flow 3
// opens QP 1 (host 2 to 3) and flow 4 is its second message. Packets and per-QP state go
// by the QP's number, records by the flow's; a later message holds no sender of its own.
TEST(QpStream, QpsAreNumberedDenselyApartFromFlows) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 2);  // hosts 0, 1 on leaf 0; 2, 3 on leaf 1
  spec.flows = qp_messages(0, 1, {2500, 3000, 1000});
  for (FlowSpec f : qp_messages(2, 3, {4000, 500})) {
    if (f.behind) *f.behind += 3;
    if (f.qp) *f.qp += 3;
    spec.flows.push_back(f);
  }
  Experiment exp(spec);
  test::run_checked(exp);
  const RdmaTransport& tr = exp.transport();
  ASSERT_EQ(tr.flow_count(), 5u);
  ASSERT_EQ(tr.qp_count(), 2u);
  EXPECT_EQ(tr.qp_of(FlowId(2)), FlowId(0));
  EXPECT_EQ(tr.qp_of(FlowId(3)), FlowId(1));
  EXPECT_EQ(tr.qp_of(FlowId(4)), FlowId(1));
  EXPECT_EQ(tr.first_flow_of(FlowId(1)), FlowId(3));
  EXPECT_EQ(tr.qp_src(FlowId(1)), NodeId(2));
  // QP 1's stream: 0..4,000, then 4,000..4,500.
  EXPECT_EQ(tr.snd_nxt(FlowId(1)), 4500u);
  EXPECT_EQ(tr.delivered_bytes(FlowId(3)), 4000u);
  EXPECT_EQ(tr.delivered_bytes(FlowId(4)), 500u);
  EXPECT_EQ(tr.record(FlowId(4)).qp, FlowId(1));
  EXPECT_EQ(tr.record(FlowId(4)).sport, tr.record(FlowId(3)).sport);
  for (uint32_t f = 0; f < 5; ++f) EXPECT_TRUE(tr.record(FlowId(f)).finished()) << f;
}

// A copy of the second message's first packet (PSN 3 of the stream) reaches the receiver
// before anything else: go-back-N drops it and NAKs PSN 0, as one stream would. Then the
// first message's three packets arrive: the first message is delivered and the expected
// sequence moves over the gap to 3,000, where the copy, sent again, is in order.
TEST(QpStream, AReorderedPacketAcrossAMessageBoundaryGoesBackAsOneStream) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = qp_messages(0, 1, {2500, 3000});
  for (FlowSpec& f : spec.flows) f.start = Time{Delta::from_us(100).ps};
  Experiment exp(spec);
  exp.run(Time{Delta::from_us(10).ps});
  RdmaTransport& tr = exp.transport();
  NetContext& ctx = exp.network().context();
  const auto arrive = [&](uint64_t seq, uint32_t payload) {
    const PacketId id = ctx.alloc_packet();
    Packet& data = ctx.pkt(id);
    data.type = PacketType::kData;
    data.src = NodeId(0);
    data.dst = NodeId(1);
    data.flow = FlowId(0);
    data.seq = seq;
    data.payload_bytes = payload;
    data.wire_bytes = ctx.wire.data_wire_bytes(payload);
    data.sent_time = exp.sim().now();
    tr.on_host_receive(NodeId(1), id);
  };
  arrive(3000, 1000);
  EXPECT_EQ(tr.counters().out_of_order_packets, 1u);
  EXPECT_EQ(tr.counters().naks_sent, 1u);
  EXPECT_EQ(tr.delivered_bytes(FlowId(0)), 0u);
  arrive(0, 1000);
  arrive(1000, 1000);
  EXPECT_EQ(tr.record(FlowId(0)).delivered, Time::never());
  arrive(2000, 500);
  EXPECT_EQ(tr.delivered_bytes(FlowId(0)), 2500u);
  EXPECT_NE(tr.record(FlowId(0)).delivered, Time::never()) << "the first message is delivered";
  arrive(3000, 1000);
  EXPECT_EQ(tr.delivered_bytes(FlowId(1)), 1000u) << "PSN 3 is next: the gap carries nothing";
  EXPECT_EQ(tr.counters().payload_bytes_delivered, 3500u);
  // The sender starts later: what it sends again is re-acknowledged, and every byte is
  // delivered once.
  test::run_checked(exp);
  EXPECT_EQ(tr.counters().payload_bytes_delivered, 5500u);
}

// Under ECMP every message of a QP takes the QP's path: one spine carries all its data.
// As flows of their own with their own source ports (qp_per_transfer), they spread.
size_t spines_used(bool one_qp, const std::string& lb) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 8, 1);
  spec.lb = lb;
  std::vector<FlowSpec> flows = qp_messages(0, 1, std::vector<uint64_t>(16, 20'000), one_qp);
  if (!one_qp)
    for (size_t i = 0; i < flows.size(); ++i) flows[i].sport = static_cast<uint16_t>(20000 + i);
  spec.flows = flows;
  Experiment exp(spec);
  test::run_checked(exp);
  size_t used = 0;
  for (NodeId s : exp.network().switches()) {
    const Node& sw = exp.network().node(s);
    if (sw.layer() != Layer::kAggregation && sw.layer() != Layer::kCore) continue;
    uint64_t data = 0;
    for (size_t p = 0; p < sw.port_count(); ++p)
      data += sw.port(PortId(static_cast<uint16_t>(p))).counters().tx_data_packets;
    used += data > 0;
  }
  return used;
}

TEST(QpStream, AQpsMessagesTakeItsPathUnderEcmp) {
  EXPECT_EQ(spines_used(true, "ecmp"), 1u);
  EXPECT_GT(spines_used(false, "ecmp"), 3u) << "16 source ports over 8 spines";
}

// LetFlow: messages sent back to back leave no flowlet gap, so the QP's one flowlet
// carries them all over one spine.
TEST(QpStream, OneFlowletSpansTheMessageBoundaries) {
  EXPECT_EQ(spines_used(true, "letflow"), 1u);
}

// ConWeave keeps its state per flow of packets. Sixteen messages of 20,000 B sent back to
// back on one QP are one flow to it, with the epochs (an RTT request each) of one flow of
// 320,000 B; as flows of their own (on the same source port, as before QPs carried
// messages) each message starts an epoch of its own.
double conweave_replies(const std::vector<FlowSpec>& flows) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 8, 1);
  spec.lb = "conweave";
  spec.flows = flows;
  for (FlowSpec& f : spec.flows) f.sport = 20000;
  Experiment exp(spec);
  test::run_checked(exp);
  return test::lb_stat(exp, "conweave_rtt_replies");
}

TEST(QpStream, OneConWeaveFlowSpansTheMessages) {
  const std::vector<uint64_t> sizes(16, 20'000);
  const double one_flow = conweave_replies({test::flow(0, 1, 320'000)});
  EXPECT_GT(one_flow, 1) << "a stable epoch ends with its reply";
  EXPECT_LT(one_flow, 16);
  EXPECT_EQ(conweave_replies(qp_messages(0, 1, sizes)), one_flow);
  EXPECT_EQ(conweave_replies(qp_messages(0, 1, sizes, false)), 16) << "one per message";
}

// Bad input: a message on a QP must join the QP's hosts, come behind its last message,
// and name a QP (a flow with no QP of its own).
TEST(QpStream, AMessageThatCannotJoinItsQpIsRefusedByName) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.flows = qp_messages(0, 2, {1000, 1000, 1000});
  const auto refused = [&](std::vector<FlowSpec> flows, const std::string& what) {
    ExperimentSpec s = spec;
    s.flows = std::move(flows);
    try {
      Experiment exp(s);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::vector<FlowSpec> other_hosts = spec.flows;
  other_hosts[1].dst_host = 3;
  refused(other_hosts, "a QP joins one pair of hosts");
  std::vector<FlowSpec> not_behind = spec.flows;
  not_behind[2].behind = 0;
  refused(not_behind, "must be queued behind the QP's last message (flow 1)");
  std::vector<FlowSpec> on_a_message = spec.flows;
  on_a_message[2].qp = 1;
  refused(on_a_message, "a QP is a flow added before it with no QP of its own");
}

// A trace may queue a QP's message behind a flow that is not the QP's last message: here
// message 3 waits only for flow 2 (other hosts, 1 KB), so it starts long before message 1
// (at 50 us). The QP posts in order all the same: message 3's bytes follow message 1's.
TEST(QpStream, AMessageThatStartsEarlyWaitsForTheOneAheadOfItOnTheQp) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(1, 1, 4);
  spec.flows = {test::flow(0, 1, 100'000), test::flow(0, 1, 100'000, Time{Delta::from_us(50).ps}),
                test::flow(2, 3, 1000), test::flow(0, 1, 100'000)};
  spec.flows[1].behind = 0;
  spec.flows[1].qp = 0;
  spec.flows[3].behind = 2;
  spec.flows[3].qp = 0;
  Experiment exp(spec);
  test::run_checked(exp);
  const RdmaTransport& tr = exp.transport();
  EXPECT_LT(tr.record(FlowId(3)).start, tr.record(FlowId(1)).start) << "started first";
  EXPECT_LT(tr.record(FlowId(1)).delivered, tr.record(FlowId(3)).delivered) << "sent second";
  EXPECT_EQ(tr.counters().payload_bytes_delivered, 301'000u);
}

// A message's ports and path are its QP's: others are refused, not silently replaced.
TEST(QpStream, AMessageWithPortsOrAPathOfItsOwnIsRefused) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.flows = qp_messages(0, 2, {1000, 1000});
  spec.flows[1].sport = 12345;
  try {
    Experiment exp(spec);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("its ports are the QP's"), std::string::npos) << e.what();
  }
  spec.flows[1].sport.reset();
  spec.flows[1].path = 1;
  try {
    Experiment exp(spec);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("its path is the QP's (none)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rocelab
