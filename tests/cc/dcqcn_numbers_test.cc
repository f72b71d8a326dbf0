// The DCQCN reaction point (`model: sigcomm15`, cc/dcqcn.h) at hand-computed rates: the cut
// on a CNP, the byte counter, the fast recovery / additive / hyper increase stages and
// min_cut_interval. The test drives the reaction point as tests/cc/dcqcn_test.cc does (CNPs
// handed to on_cnp at a chosen time) and reads the rate the transport paces with.
#include <gtest/gtest.h>

#include "cc/dcqcn.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr BitsPerSec G = gbps(1);
constexpr BitsPerSec M = mbps(1);

// a -> sw -> b at 100 Gb/s, 1 us links, one flow from t = 0; ECN off, so the only CNPs are
// the ones the test hands to the reaction point.
struct OneFlow {
  ExperimentSpec spec;
  Dcqcn* dcqcn = nullptr;
  std::unique_ptr<Experiment> exp;
  const FlowId f{0};

  OneFlow(const DcqcnConfig& cfg, bool hold) {
    spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
    spec.network.switch_config.ecn.enabled = false;
    spec.flows = {test::flow(0, 1, 100 * 1000 * 1000)};
    auto owned = std::make_unique<Dcqcn>(cfg);
    dcqcn = owned.get();
    exp = std::make_unique<Experiment>(spec, std::move(owned));
    // A held flow sends nothing, so its byte counter moves only when the test says so.
    if (hold) exp->transport().set_hold(f, true);
  }
  void run_to(int64_t ps) { exp->run(Time{ps}); }
  void cnp() { dcqcn->on_cnp(f, Packet{}); }
  BitsPerSec rc() const { return exp->transport().rate_bps(f); }
  BitsPerSec rt() const { return dcqcn->target_rate_bps(f); }
};

constexpr int64_t kUs = 1'000'000;  // ps

// DCQCN §3.1 Eq. 1-2 with alpha below 1: R_T = R_C, R_C = R_C (1 - alpha / 2),
// alpha = (1 - g) alpha + g. With g = 1/16 and initial alpha 1/2:
//   cut 1: R_T = 100G, R_C = 100G x 0.75 = 75G, alpha = 15/16 x 0.5 + 1/16 = 0.53125;
//   cut 2: R_T = 75G, R_C = 75G x (1 - 0.265625) = 55.078125G,
//          alpha = 15/16 x 0.53125 + 1/16 = 0.560546875.
TEST(DcqcnNumbers, CutSetsTargetAndRateFromAlpha) {
  DcqcnConfig cfg;
  cfg.g = 1.0 / 16;
  cfg.initial_alpha = 0.5;
  OneFlow s(cfg, false);
  s.run_to(10 * kUs);
  ASSERT_EQ(s.rc(), 100 * G);
  s.cnp();
  EXPECT_EQ(s.rc(), 75 * G);
  EXPECT_EQ(s.rt(), 100 * G);
  EXPECT_DOUBLE_EQ(s.dcqcn->alpha(s.f), 0.53125);
  s.cnp();
  EXPECT_EQ(s.rc(), 55'078'125'000);
  EXPECT_EQ(s.rt(), 75 * G);
  EXPECT_DOUBLE_EQ(s.dcqcn->alpha(s.f), 0.560546875);
}

// The byte counter: one rate increase per B wire bytes sent since the cut, B = 100 full
// frames = 108,200 B (the increase timer is set to 1 ms so that it stays out of the way).
// At 100 Gb/s frame n leaves at n x 86,560 ps; the cut at 100 us comes after frame 1155
// (99,976,800 ps), whose pacing put frame 1156 at 100,063,360 ps. At 50 Gb/s a frame takes
// 173,120 ps, so the 100th frame after the cut leaves at 100,063,360 + 99 x 173,120 =
// 117,202,240 ps, and fast recovery sets R_C = (100G + 50G) / 2 = 75G. That raise shortens
// the wait for the next frame to 173,120 x 50 / 75 = 115,413 ps, and frames then leave
// 115,414 ps apart (75 Gb/s, rounded up), so the 200th leaves at 117,202,240 + 115,413 +
// 99 x 115,414 = 128,743,639 ps: R_C = (100G + 75G) / 2 = 87.5G.
TEST(DcqcnNumbers, ByteCounterRaisesTheRateEveryBBytesSent) {
  DcqcnConfig cfg;
  cfg.byte_counter_bytes = 100 * 1082;
  cfg.rate_increase_interval = Delta::from_ms(1);
  OneFlow s(cfg, false);
  const TransportCounters& c = s.exp->transport().counters();
  s.run_to(100 * kUs);
  ASSERT_EQ(c.data_packets_sent, 1156u) << "frames 0..1155 at line rate";
  s.cnp();
  ASSERT_EQ(s.rc(), 50 * G);

  const int64_t first = 100'063'360 + 99 * 173'120;
  s.run_to(first - 1);
  EXPECT_EQ(c.data_packets_sent, 1156u + 99);
  EXPECT_EQ(s.rc(), 50 * G);
  s.run_to(first);
  EXPECT_EQ(c.data_packets_sent, 1156u + 100);
  EXPECT_EQ(s.rc(), 75 * G);
  EXPECT_EQ(s.rt(), 100 * G) << "fast recovery keeps the target";

  const int64_t second = first + 115'413 + 99 * 115'414;
  s.run_to(second - 1);
  EXPECT_EQ(c.data_packets_sent, 1156u + 199);
  EXPECT_EQ(s.rc(), 75 * G);
  s.run_to(second);
  EXPECT_EQ(c.data_packets_sent, 1156u + 200);
  EXPECT_EQ(s.rc(), 87'500'000'000);
}

// The three increase stages (DCQCN §3.1, Fig. 5), F = 5, R_AI = 40 Mb/s, R_HAI = 200 Mb/s,
// with BC (byte-counter expiries since the cut) driven by the test and T (increase-timer
// expiries) by the 55 us timer. Each increase then sets R_C = (R_T + R_C) / 2 (integer b/s,
// floored). Two CNPs at 10 us give R_T = 50G, R_C = 25G (alpha stays 1).
//   BC 1..4, T 0: fast recovery, R_T = 50G;   R_C = 37.5, 43.75, 46.875, 48.4375G
//   BC 5, 6:      additive (max(T, BC) >= F), R_T = 50.04G, 50.08G
//   T 1..5:       additive (min(T, BC) <= F), R_T = 50.12G ... 50.28G
//   T 6 (BC 6):   hyper, R_T += (min - F) x R_HAI = 200M -> 50.48G
//   T 7 (BC 6):   hyper, min is still 6 -> 50.68G
//   BC 7 (T 7):   hyper, min = 7: R_T += 2 x 200M -> 51.08G
TEST(DcqcnNumbers, FastRecoveryThenAdditiveThenHyperIncrease) {
  DcqcnConfig cfg;
  cfg.byte_counter_bytes = 1000 * 1000;
  OneFlow s(cfg, true);
  const int64_t cut = 10 * kUs;
  s.run_to(cut);
  s.cnp();
  s.cnp();
  ASSERT_EQ(s.rt(), 50 * G);
  ASSERT_EQ(s.rc(), 25 * G);
  Packet bytes;  // one byte-counter expiry's worth of sent bytes
  bytes.wire_bytes = 1000 * 1000;
  const BitsPerSec fast_recovery[] = {37'500 * M, 43'750 * M, 46'875 * M, 48'437'500'000};
  for (BitsPerSec rc : fast_recovery) {
    s.dcqcn->on_packet_sent(s.f, bytes);
    EXPECT_EQ(s.rt(), 50 * G);
    EXPECT_EQ(s.rc(), rc);
  }
  s.dcqcn->on_packet_sent(s.f, bytes);
  EXPECT_EQ(s.rt(), 50'040 * M);
  EXPECT_EQ(s.rc(), 49'238'750'000);  // (50.04G + 48.4375G) / 2
  s.dcqcn->on_packet_sent(s.f, bytes);
  EXPECT_EQ(s.rt(), 50'080 * M);
  EXPECT_EQ(s.rc(), 49'659'375'000);

  const int64_t t = 55 * kUs;  // the increase timer, restarted by the cut
  for (int k = 1; k <= 5; ++k) {
    s.run_to(cut + k * t - 1);
    EXPECT_EQ(s.rt(), (50'080 + 40 * (k - 1)) * M) << "before timer expiry " << k;
    s.run_to(cut + k * t);
    EXPECT_EQ(s.rt(), (50'080 + 40 * k) * M) << "additive at timer expiry " << k;
  }
  EXPECT_NEAR(static_cast<double>(s.rc()), 50'228'105'468.0, 1.0);
  s.run_to(cut + 6 * t);
  EXPECT_EQ(s.rt(), 50'480 * M) << "hyper increase, i = 1";
  EXPECT_NEAR(static_cast<double>(s.rc()), 50'354'052'734.0, 1.0);
  s.run_to(cut + 7 * t);
  EXPECT_EQ(s.rt(), 50'680 * M) << "min(T, BC) = 6 still";
  s.dcqcn->on_packet_sent(s.f, bytes);
  EXPECT_EQ(s.rt(), 51'080 * M) << "hyper increase, i = 2";
  EXPECT_NEAR(static_cast<double>(s.rc()), 50'798'513'183.0, 1.0);
}

// min_cut_interval = 50 us: a CNP 50 us - 1 ps after a cut does not cut again; one exactly
// 50 us after does, with alpha still 1 (no alpha-timer expiry in between: that comes at
// 10 + 55 us): R_T = 50G, R_C = 50G x (1 - 1/2) = 25G. The increase timer restarts from the
// second cut: 55 us later fast recovery gives (50G + 25G) / 2 = 37.5G.
TEST(DcqcnNumbers, MinCutIntervalMergesCutsCloserThanIt) {
  DcqcnConfig cfg;
  cfg.min_cut_interval = Delta::from_us(50);
  OneFlow s(cfg, true);
  s.run_to(10 * kUs);
  s.cnp();
  ASSERT_EQ(s.rc(), 50 * G);
  s.run_to(60 * kUs - 1);
  s.cnp();
  EXPECT_EQ(s.rc(), 50 * G) << "within min_cut_interval: no second cut";
  EXPECT_EQ(s.rt(), 100 * G);
  s.run_to(60 * kUs);
  s.cnp();
  EXPECT_EQ(s.rc(), 25 * G);
  EXPECT_EQ(s.rt(), 50 * G);
  s.run_to(115 * kUs - 1);
  EXPECT_EQ(s.rc(), 25 * G) << "the increase timer restarted at the second cut";
  s.run_to(115 * kUs);
  EXPECT_EQ(s.rc(), 37'500 * M);
}

// A CNP merged into the previous cut by min_cut_interval still raises alpha (Eq. 2). With
// g = 1/16 and initial alpha 1/2: the cut at 10 us gives R_C = 75G, alpha = 0.53125; the
// merged CNP at 20 us alpha = 15/16 x 0.53125 + 1/16 = 0.560546875; the cut at 60 us
// R_C = 75G x (1 - 0.2802734375) = 53,979,492,187 b/s (55.078125G had the merged CNP been
// ignored).
TEST(DcqcnNumbers, MergedCnpStillRaisesAlpha) {
  DcqcnConfig cfg;
  cfg.g = 1.0 / 16;
  cfg.initial_alpha = 0.5;
  cfg.min_cut_interval = Delta::from_us(50);
  OneFlow s(cfg, true);
  s.run_to(10 * kUs);
  s.cnp();
  ASSERT_EQ(s.rc(), 75 * G);
  s.run_to(20 * kUs);
  s.cnp();
  EXPECT_EQ(s.rc(), 75 * G);
  EXPECT_DOUBLE_EQ(s.dcqcn->alpha(s.f), 0.560546875);
  s.run_to(60 * kUs);
  s.cnp();
  EXPECT_EQ(s.rc(), 53'979'492'187);
}

}  // namespace
}  // namespace rocelab
