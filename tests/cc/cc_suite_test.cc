// The congestion controls of the suite (HPCC, TIMELY, Swift) against hand-computed numbers,
// and their effects: two flows share a bottleneck fairly, an incast drains with a bounded
// queue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cc/cc_registry.h"
#include "cc/hpcc.h"
#include "cc/swift.h"
#include "cc/timely.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kUs = 1'000'000;  // ps

// One held flow a -> sw -> b at 100 Gb/s: it sends nothing, so the only feedback the
// scheme sees is what the test hands it.
template <class Cc, class Cfg>
struct HeldFlow {
  ExperimentSpec spec;
  Cc* cc = nullptr;
  std::unique_ptr<Experiment> exp;
  const FlowId f{0};

  explicit HeldFlow(const Cfg& cfg) {
    spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
    spec.network.switch_config.ecn.enabled = false;
    spec.flows = {test::flow(0, 1, 100 * 1000 * 1000)};
    auto owned = std::make_unique<Cc>(cfg);
    cc = owned.get();
    exp = std::make_unique<Experiment>(spec, std::move(owned));
    exp->transport().set_hold(f, true);
  }
  NetContext& ctx() { return exp->network().context(); }
  void run_to(int64_t ps) { exp->run(Time{ps}); }
  BitsPerSec rate() const { return exp->transport().rate_bps(f); }
};

// ---------------------------------------------------------------- HPCC

struct IntAck {
  int64_t ts_us;
  uint64_t tx_bytes;
  int64_t qlen_bytes;
};

// An ACK whose INT reports one hop (switch 2, port 1, 100 Gb/s).
void hpcc_ack(HeldFlow<Hpcc, HpccConfig>& h, const IntAck& a, uint64_t ack_seq) {
  NetContext& ctx = h.ctx();
  const PacketId id = ctx.alloc_packet();
  Packet& p = ctx.pkt(id);
  p.type = PacketType::kAck;
  p.flow = h.f;
  IntStack& stack = ctx.field(int_stack_field(ctx.state.layout()), p);
  stack.hops = 1;
  stack.hop[0] =
      IntHop{Time{a.ts_us * kUs}, a.tx_bytes, gbps(100), a.qlen_bytes, NodeId(2), PortId(1)};
  AckEvent ev;
  ev.snd_una = ack_seq;
  ev.ack = &p;
  h.cc->on_ack(h.f, ev);
  ctx.free_packet(id);
}

// HPCC Alg. 1 with T = 10 us, eta = 0.95, W_AI / T = 40 Mb/s, U starting at 1:
//   ACK 1 primes the hop.
//   ACK 2, 2 us later: 25,000 B sent (100 Gb/s: txRate/B = 1), queue min(62.5 KB, 125 KB)
//     = 62,500 B = 0.5 B T: u = 1.5; U = (1 x 8 + 1.5 x 2) / 10 = 1.1; R = 100G / (1.1 /
//     0.95) + 40M = 86,363,636,363 + 40,000,000 = 86,403,636,363 b/s; W = 125,000 B x R /
//     100G = 108,004 B.
//   ACK 3, 2 us later: 15,000 B (0.6), queue min(125 KB, 0) = 0: u = 0.6; U = (1.1 x 8 +
//     0.6 x 2) / 10 = 1.0; R = 86,403,636,363 x 0.95 + 40M = 82,123,454,544 b/s.
//   With max_stage 5 and U below eta (ACK 4: 5,000 B, U = (1 x 8 + 0.2 x 2) / 10 = 0.84),
//     the step is additive: R = 82,123,454,544 + 40M, stage 1.
TEST(Hpcc, RateAndWindowFromOneHopsUtilisation) {
  HpccConfig cfg;
  cfg.base_rtt = Delta::from_us(10);
  cfg.rate_ai_bps = mbps(40);
  cfg.max_stage = 5;
  HeldFlow<Hpcc, HpccConfig> h(cfg);
  h.run_to(100 * kUs);
  ASSERT_EQ(h.rate(), gbps(100));
  hpcc_ack(h, {100, 0, 62'500}, 1000);
  EXPECT_EQ(h.rate(), gbps(100)) << "the first INT only primes";
  hpcc_ack(h, {102, 25'000, 125'000}, 2000);
  EXPECT_NEAR(h.cc->utilisation(h.f), 1.1, 1e-12);
  EXPECT_EQ(h.rate(), 86'403'636'363);
  EXPECT_EQ(h.cc->reference_rate_bps(h.f), 86'403'636'363) << "per-RTT update commits";
  EXPECT_EQ(h.exp->transport().window_bytes(h.f), 108'004u) << "W = T x R";
  hpcc_ack(h, {104, 40'000, 0}, 3000);
  EXPECT_NEAR(h.cc->utilisation(h.f), 1.0, 1e-12);
  EXPECT_NEAR(static_cast<double>(h.rate()), 82'123'454'544.0, 1.0);
  EXPECT_EQ(h.cc->stage(h.f), 0u);
  hpcc_ack(h, {106, 45'000, 0}, 4000);
  EXPECT_NEAR(h.cc->utilisation(h.f), 0.84, 1e-12);
  EXPECT_NEAR(static_cast<double>(h.rate()), 82'163'454'544.0, 1.0);
  EXPECT_EQ(h.cc->stage(h.f), 1u);
}

// T defaults to the topology's largest base RTT: 2 links x (2 x 1 us + 1000 B at 100 Gb/s)
// = 4.16 us on the chain.
TEST(Hpcc, BaseRttIsTheLargestHostPairs) {
  HeldFlow<Hpcc, HpccConfig> h(HpccConfig{});
  EXPECT_EQ(h.cc->base_rtt(), Delta::from_ns(4160));
}

// ---------------------------------------------------------------- TIMELY

void timely_ack(HeldFlow<Timely, TimelyConfig>& h, int64_t rtt_us, uint64_t ack_seq) {
  Packet p;
  AckEvent ev;
  ev.snd_una = ack_seq;
  ev.rtt = Delta::from_us(rtt_us);
  ev.ack = &p;
  h.cc->on_ack(h.f, ev);
}

// HPCC-ns3's TIMELY (model ns3): alpha 0.875, beta 0.8, minRTT 20 us, T_low 50 us, T_high
// 500 us, delta 100 Mb/s. Held flow: snd_nxt stays 0, so every ACK updates.
//   ACK 1, RTT 60 us: recorded only.
//   ACK 2, RTT 100 us: diff 40 us, rtt_diff = 0.875 x 40 = 35 us, g = 1.75 -> factor
//     max(0, 1 - 0.8 x 1.75) = 0: the floor, min_rate 1 Gb/s.
//   ACK 3, RTT 40 us (< T_low): +100 Mb/s.
//   ACK 4, RTT 600 us (> T_high): x (1 - 0.8 (1 - 500/600)) = x 0.8666..: 953,333,333 ->
//     floored at 1 Gb/s again.
//   ACKs 5-9, RTT 40 us: five increases of 100 Mb/s, then the sixth in a row adds 500 Mb/s.
TEST(Timely, Ns3ModelSteps) {
  TimelyConfig cfg;
  cfg.model = "ns3";
  cfg.rate_ai_bps = mbps(100);
  cfg.rate_hai_bps = mbps(500);
  cfg.min_rate_bps = gbps(1);
  HeldFlow<Timely, TimelyConfig> h(cfg);
  h.run_to(10 * kUs);
  timely_ack(h, 60, 1000);
  EXPECT_EQ(h.rate(), gbps(100));
  timely_ack(h, 100, 2000);
  EXPECT_DOUBLE_EQ(h.cc->rtt_diff_ps(h.f), 35.0 * kUs);
  EXPECT_EQ(h.rate(), gbps(1));
  timely_ack(h, 40, 3000);
  EXPECT_EQ(h.rate(), mbps(1100));
  timely_ack(h, 600, 4000);
  EXPECT_EQ(h.rate(), gbps(1)) << "1.1G x 0.8667 = 953 Mb/s, floored";
  for (int i = 0; i < 5; ++i) timely_ack(h, 40, 5000 + 1000 * i);
  EXPECT_EQ(h.rate(), mbps(1500));
  timely_ack(h, 40, 10000);
  EXPECT_EQ(h.rate(), mbps(2000)) << "the sixth increase in a row is hyperactive";
}

// The paper's gradient band: a rising RTT between T_low and T_high cuts by beta x g.
// Segments of 16 KB: ACKs inside a segment do not update.
//   completion 1 (ack 16,384), RTT 100 us: recorded.
//   an ACK at 20,000 B: inside segment 2, ignored.
//   completion 2 (ack 32,768), RTT 110 us: diff 10 us, rtt_diff = 8.75 us, g = 0.4375,
//     R = 100G x (1 - 0.35) = 65 Gb/s.
// (The paper's RTT leaves out the packet's serialization: the test's RTTs are given with
// it, 1082 B at 100 Gb/s = 86.56 ns, so the differences are unchanged.)
TEST(Timely, PaperGradientDecreasePerCompletion) {
  HeldFlow<Timely, TimelyConfig> h(TimelyConfig{});
  h.run_to(10 * kUs);
  timely_ack(h, 100, 16'384);
  timely_ack(h, 150, 20'000);
  EXPECT_EQ(h.rate(), gbps(100));
  timely_ack(h, 110, 32'768);
  EXPECT_NEAR(static_cast<double>(h.rate()), 65e9, 1.0);
}

// ---------------------------------------------------------------- Swift

// Swift §3.2 target: base 25 us + 1 us per hop + flow scaling. With fs_range 100 us over
// [0.1, 256] packets, alpha = 100 / (1/sqrt(0.1) - 1/sqrt(256)) = 100 / 3.09978 = 32.2604 us,
// beta = -alpha / 16 = -2.01628 us; at cwnd = 1 the term is 30.2442 us, at 256 zero.
TEST(Swift, TargetDelayScalesWithHopsAndWindow) {
  SwiftConfig cfg;
  cfg.initial_cwnd_bdp = 0;  // clamped up to min_cwnd
  HeldFlow<Swift, SwiftConfig> h(cfg);
  h.run_to(kUs);
  // One switch: 1 hop. cwnd = min_cwnd 0.001: the scaling term is capped at fs_range.
  EXPECT_EQ(h.cc->target_delay(h.f), Delta::from_us(25 + 1 + 100));
  SwiftConfig big = cfg;
  big.initial_cwnd_bdp = 1000;  // clamped at max_cwnd 256: no flow scaling
  HeldFlow<Swift, SwiftConfig> h2(big);
  h2.run_to(kUs);
  EXPECT_EQ(h2.cc->cwnd_packets(h2.f), 256);
  EXPECT_EQ(h2.cc->target_delay(h2.f), Delta::from_us(26));
  SwiftConfig one = cfg;
  one.min_cwnd = 1;
  HeldFlow<Swift, SwiftConfig> h3(one);
  h3.run_to(kUs);
  const double alpha = 100.0 / (1 / std::sqrt(0.1) - 1.0 / 16);
  const double expected_us = 26 + alpha - alpha / 16;
  EXPECT_NEAR(h3.cc->target_delay(h3.f).us(), expected_us, 1e-5);
  EXPECT_NEAR(expected_us, 56.2442, 1e-4);
}

// Algorithm 1: below the target, +ai/cwnd per packet acked; above it, one decrease per RTT
// of max(1 - beta (delay - target) / delay, 1 - max_mdf).
TEST(Swift, AdditiveIncreaseAndOneDecreasePerRtt) {
  SwiftConfig cfg;
  cfg.initial_cwnd_bdp = 1000;  // 256 packets: target 26 us
  HeldFlow<Swift, SwiftConfig> h(cfg);
  h.run_to(10 * kUs);
  Packet p;
  AckEvent ev;
  ev.ack = &p;
  ev.newly_acked_bytes = 1000;
  ev.rtt = Delta::from_us(40);  // 14 us over: 1 - 0.8 x 14/40 = 0.72
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), 256 * 0.72, 1e-9);
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), 256 * 0.72, 1e-9) << "once per RTT";
  // "Once per RTT" by the latest sample: 200 us after the cut, not 40.
  h.run_to(10 * kUs + 40 * kUs);
  ev.rtt = Delta::from_us(200);  // far over: capped at max_mdf 0.5
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), 256 * 0.72, 1e-9);
  h.run_to(10 * kUs + 200 * kUs);
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), 256 * 0.72 * 0.5, 1e-9);
  ev.rtt = Delta::from_us(10);  // under the target (now larger: smaller window)
  const double w = h.cc->cwnd_packets(h.f);
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), w + 1.0 / w, 1e-9);
}

// Below one packet of window Swift paces one packet per RTT / cwnd (§3.4).
TEST(Swift, PacesBelowOnePacket) {
  SwiftConfig cfg;
  cfg.initial_cwnd_bdp = 0;
  cfg.min_cwnd = 0.25;
  HeldFlow<Swift, SwiftConfig> h(cfg);
  h.run_to(10 * kUs);
  Packet p;
  AckEvent ev;
  ev.ack = &p;
  ev.rtt = Delta::from_us(300);  // far over any target: no increase
  h.cc->on_ack(h.f, ev);
  EXPECT_NEAR(h.cc->cwnd_packets(h.f), 0.25, 1e-12);
  // 1082 B per 300 us / 0.25 = 1200 us: 7.2133 Mb/s.
  EXPECT_NEAR(static_cast<double>(h.rate()), 1082 * 8 / 1200e-6, 2.0);
}

}  // namespace
}  // namespace rocelab

namespace rocelab {
namespace {

// ---------------------------------------------------------------- effects, every scheme

const char* const kSuite[] = {"dcqcn", "dcqcn_win", "hpcc", "timely", "swift", "pcn"};

// Two long flows into one host of a 2-leaf fabric, the second 100 us after the first: the
// bytes each delivers over [8 ms, 10 ms]. DCQCN, HPCC and Swift share within 10%. Two do
// not, and that is their known behaviour, not a fault of the model: TIMELY's gradient law
// has no unique fair fixed point (Zhu et al., "ECN or Delay", CoNEXT'16, §4), and DCQCN
// with a window cap sees so few marks once the cap bounds the queue that it takes tens
// of milliseconds to even out (0.47 at 10 ms, 0.58 at 27 ms); both still share the link.
TEST(CcSuite, TwoFlowsShareABottleneck) {
  for (const char* cc : kSuite) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 2);
    spec.cc = cc;
    spec.flows = {test::flow(0, 2, 1'000'000'000),
                  test::flow(1, 2, 1'000'000'000, Time{100 * kUs})};
    Experiment exp(spec);
    exp.run(Time{8000 * kUs});
    const uint64_t a0 = exp.transport().delivered_bytes(FlowId{0});
    const uint64_t b0 = exp.transport().delivered_bytes(FlowId{1});
    exp.run(Time{10000 * kUs});
    const double a = static_cast<double>(exp.transport().delivered_bytes(FlowId{0}) - a0);
    const double b = static_cast<double>(exp.transport().delivered_bytes(FlowId{1}) - b0);
    const double link = 100e9 / 8 * 2e-3;  // bytes in 2 ms at 100 Gb/s
    const std::string name = cc;
    const bool converges = name != "timely" && name != "dcqcn_win";
    EXPECT_NEAR(a / b, 1.0, converges ? 0.1 : 0.6) << cc;
    // Payload over link bytes (1000 of each 1082 B frame at most): HPCC aims at 95%.
    EXPECT_GT((a + b) / link, 0.83) << cc;
  }
}

// Eight 1 MB flows from one leaf to a host of the other, over one spine: the leaf's uplink
// is the bottleneck. Windowed schemes hold the queue to eight windows of about a BDP
// (100 KB) and send no PAUSE; rate-based DCQCN and TIMELY start at line rate and queue
// more, TIMELY (no reaction below T_low = 50 us of RTT) until PFC steps in.
TEST(CcSuite, IncastDrainsWithBoundedQueue) {
  for (const char* cc : kSuite) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 8);
    spec.cc = cc;
    for (uint32_t i = 0; i < 8; ++i) spec.flows.push_back(test::flow(i, 8, 1'000'000));
    Experiment exp(spec);
    int64_t peak = 0;
    Time t;
    for (t = Time{0}; exp.transport().counters().flows_finished < 8; t += Delta::from_ns(500)) {
      exp.run(t);
      for (NodeId sw : exp.network().switches()) {
        const Node& n = exp.network().node(sw);
        for (size_t p = 0; p < n.port_count(); ++p)
          peak = std::max(peak, n.port(PortId(static_cast<uint16_t>(p))).data_queue_bytes());
      }
    }
    const std::string name = cc;
    const bool windowed = name == "dcqcn_win" || name == "hpcc" || name == "swift";
    if (windowed) {
      EXPECT_LT(peak, 8 * 110'000) << cc;
      EXPECT_EQ(exp.network().counters().pause_frames, 0u) << cc;
    }
    EXPECT_LT(peak, 7'000'000) << cc;
    // 8 MB at 100 Gb/s takes 690 us: HPCC and Swift finish within 25% of it; DCQCN's cuts
    // (and its slow recovery) cost more, with or without the cap.
    const double limit_us = name == "hpcc" || name == "swift" ? 870 : 3500;
    EXPECT_LT(t.us(), limit_us) << cc;
    exp.drain();
    EXPECT_EQ(exp.check_invariants(), "") << cc;
  }
}

}  // namespace
}  // namespace rocelab
