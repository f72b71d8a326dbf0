// PCN: NP-ECN spares what a PAUSE held and marks a port's own congestion; the receiver
// reports a rate every period; the sender's cut and weighted increase by hand.
#include <gtest/gtest.h>

#include "cc/pcn.h"
#include "net/packet_state.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kUs = 1'000'000;  // ps

// a - sw0 - sw1 - b, the last link at 10 Gb/s: a line-rate flow congests sw1's port to b,
// whose PFC pauses sw0's port to sw1. sw0's port queues only because it is paused.
ExperimentSpec paused_upstream(const std::vector<std::string>& features) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(10)}, Delta::from_us(1));
  spec.cc = "none";
  spec.switch_features = features;
  EcnConfig& ecn = spec.network.switch_config.ecn;
  // 100 Gb/s ports mark above 5 KB (RED: always above 10 KB); the 10 Gb/s port never does,
  // so every mark is sw0's.
  ecn.per_rate = {{gbps(100), 5'000, 10'000, 1.0}, {gbps(10), 50'000'000, 50'000'000, 1.0}};
  spec.flows = {test::flow(0, 1, 2'000'000)};
  return spec;
}

TEST(NpEcn, MarksNothingAtAPortOnlyPausedFromDownstream) {
  Experiment red(paused_upstream({}));
  test::run_checked(red);
  ASSERT_GT(red.network().counters().pause_frames, 0u);
  EXPECT_GT(red.network().counters().ecn_marks, 100u) << "RED marks the paused queue";

  Experiment np(paused_upstream({"np_ecn"}));
  test::run_checked(np);
  EXPECT_GT(np.network().counters().pause_frames, 0u);
  EXPECT_EQ(np.network().counters().ecn_marks, 0u);
  EXPECT_GT(test::feature_stat(np, "np_ecn_spared_by_pause"), 100.0);
}

// Two hosts at line rate into a third on one switch: its port to the receiver is
// congested by its own input, and NP-ECN marks there.
TEST(NpEcn, MarksAtItsOwnCongestedPort) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(1, 1, 3);
  spec.cc = "none";
  spec.switch_features = {"np_ecn"};
  spec.flows = {test::flow(0, 2, 1'000'000), test::flow(1, 2, 1'000'000)};
  Experiment exp(spec);
  test::run_checked(exp);
  // About half of the 2,000 packets leave more than 5 KB behind them.
  EXPECT_GT(exp.network().counters().ecn_marks, 500u);
}

// One held flow a -> sw -> b at 100 Gb/s, fed CNPs by hand.
struct HeldPcnFlow {
  Pcn* pcn = nullptr;
  std::unique_ptr<Experiment> exp;
  const FlowId f{0};
  HeldPcnFlow() {
    ExperimentSpec spec;
    spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
    spec.flows = {test::flow(0, 1, 100 * 1000 * 1000)};
    auto owned = std::make_unique<Pcn>();
    pcn = owned.get();
    exp = std::make_unique<Experiment>(spec, std::move(owned));
    exp->transport().set_hold(f, true);
    exp->run(Time{1 * kUs});  // the flow has started
  }
  void cnp(BitsPerSec recv_rate, bool congested) {
    NetContext& ctx = exp->network().context();
    const PacketId id = ctx.alloc_packet();
    Packet& p = ctx.pkt(id);
    p.type = PacketType::kCnp;
    p.flow = f;
    ctx.field(ctx.state.layout().declare<PcnFeedback>("pcn.feedback"), p) =
        PcnFeedback{recv_rate, static_cast<uint8_t>(congested)};
    pcn->on_cnp(f, p);
    ctx.free_packet(id);
  }
  BitsPerSec rate() const { return exp->transport().rate_bps(f); }
};

// Congested at 40 Gb/s: R = 40G (1 - 1/128) = 39,687,500,000, w = 1/128.
// Then uncongested: R = (127/128) R + (1/128) 100G = 39,377,441,406 + 781,250,000
//   = 40,158,691,406, w = 2/128; again: R = (126/128) R + (2/128) 100G
//   = 39,531,211,853 + 1,562,500,000 = 41,093,711,853, w = 4/128.
// A congested CNP reporting more than the current rate does not raise it.
TEST(Pcn, CutToTheReceiveRateThenWeightedIncrease) {
  HeldPcnFlow h;
  EXPECT_EQ(h.rate(), gbps(100));
  h.cnp(gbps(40), true);
  EXPECT_EQ(h.rate(), 39'687'500'000);
  EXPECT_DOUBLE_EQ(h.pcn->increase_weight(h.f), 1.0 / 128);
  h.cnp(gbps(40), false);
  EXPECT_NEAR(static_cast<double>(h.rate()), 40'158'691'406.0, 2);
  EXPECT_DOUBLE_EQ(h.pcn->increase_weight(h.f), 2.0 / 128);
  h.cnp(gbps(40), false);
  EXPECT_NEAR(static_cast<double>(h.rate()), 41'093'711'853.0, 2);
  EXPECT_DOUBLE_EQ(h.pcn->increase_weight(h.f), 4.0 / 128);
  h.cnp(gbps(90), true);
  EXPECT_NEAR(static_cast<double>(h.rate()), 41'093'711'853.0, 2);
  EXPECT_DOUBLE_EQ(h.pcn->increase_weight(h.f), 1.0 / 128);
  // w doubles up to w_max = 0.5: 1/64, 1/32, 1/16, 1/8, 1/4, 1/2, 1/2.
  for (int i = 0; i < 7; ++i) h.cnp(gbps(40), false);
  EXPECT_DOUBLE_EQ(h.pcn->increase_weight(h.f), 0.5);
  // The gap to line rate then halves per CNP and closes: line rate exactly, not 1 b/s
  // short (which would pace every packet at the rounded-up serialization time).
  for (int i = 0; i < 40; ++i) h.cnp(gbps(40), false);
  EXPECT_EQ(h.rate(), gbps(100));
}

// a - sw0 - sw1 - b with a 10 Gb/s last hop: the first report arrives 50 us after the first
// packet. sw1's port to b is congested by its own input, so every packet is marked there,
// and they arrive back to back at 10 Gb/s: the sender is cut to 10G (1 - 1/128).
TEST(Pcn, TheReceiverReportsTheRateItReceivesAndTheCongestion) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(10)}, Delta::from_us(1));
  spec.cc = "pcn";
  spec.flows = {test::flow(0, 1, 10'000'000)};
  Experiment exp(spec);
  const FlowId f{0};
  Time t{0};
  while (exp.transport().rate_bps(f) == gbps(100) && t.us() < 200) {
    t += Delta::from_ns(100);
    exp.run(t);
  }
  EXPECT_GT(t.us(), 50.0);
  EXPECT_NEAR(static_cast<double>(exp.transport().rate_bps(f)), 10e9 * 127 / 128, 0.002e9);
  test::run_checked(exp);
  EXPECT_GT(exp.network().counters().ecn_marks, 1000u);
}

// Alone on an idle path the receiver reports every 50 us, never congested, and the flow
// keeps line rate: 10 MB in 10,000 frames of 1,082 B take 865.6 us at 100 Gb/s, so the
// receiver closes 17 periods.
TEST(Pcn, ReceiverReportsEveryPeriodAndAnIdlePathKeepsLineRate) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.cc = "pcn";
  spec.flows = {test::flow(0, 1, 10'000'000)};
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_EQ(exp.transport().counters().cnps_sent, 17u);
  EXPECT_EQ(exp.network().counters().ecn_marks, 0u);
  EXPECT_EQ(exp.transport().rate_bps(FlowId{0}), gbps(100));
  EXPECT_LT(exp.transport().record(FlowId{0}).fct().us(), 875.0);
}

// Eight hosts of one leaf into a host of the other: the leaf's uplink is congested by its
// own input. PCN cuts the flows so that PFC never fires (none: 825 XOFFs) and still keeps
// the uplink busy: 32 MB in 1,082 B frames take 2,770 us at 100 Gb/s.
TEST(Pcn, IncastCutsToTheShareAndPausesLessThanNone) {
  auto run = [](const char* cc) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 8);
    spec.cc = cc;
    for (uint32_t i = 0; i < 8; ++i) spec.flows.push_back(test::flow(i, 8, 4'000'000));
    auto exp = std::make_unique<Experiment>(spec);
    test::run_checked(*exp);
    return exp;
  };
  const auto pcn = run("pcn");
  const auto none = run("none");
  EXPECT_GT(pcn->network().counters().ecn_marks, 0u);
  EXPECT_GT(pcn->transport().counters().cnps_sent, 100u);
  EXPECT_LT(pcn->network().counters().pause_frames * 10, none->network().counters().pause_frames);
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_LT(pcn->transport().record(FlowId{i}).fct().us(), 2770 * 1.05);
}

}  // namespace
}  // namespace rocelab
