// The switch MMU's PFC accounting (net/mmu.h) at hand-computed byte counts, including the
// ns-3 simulators' guaranteed bytes, pool reserve and rate-scaled alpha.
#include <gtest/gtest.h>

#include "net/mmu.h"

namespace rocelab {
namespace {

constexpr Priority kRdma = 3;

SwitchConfig config(int64_t buffer, double alpha) {
  SwitchConfig c;
  c.buffer_bytes = buffer;
  c.pfc.alpha = alpha;
  c.pfc.resume_offset_bytes = 3000;
  return c;
}

TEST(Mmu, DynamicXoffIsAlphaTimesTheFreePoolAfterHeadroomAndReserve) {
  SwitchConfig c = config(1'000'000, 1.0 / 8);
  c.pfc.pool_reserve_per_port_bytes = 4096;
  Mmu mmu;
  mmu.init(c, {50'000, 50'000});
  // Pool: 1,000,000 - 2 x 50,000 headroom - 2 x 4096 reserve = 891,808.
  EXPECT_EQ(mmu.shared_capacity(), 891'808);
  EXPECT_EQ(mmu.xoff_threshold(PortId(0)), 891'808 / 8);
  ASSERT_TRUE(mmu.admit(PortId(1), kRdma, 100'000));
  EXPECT_EQ(mmu.xoff_threshold(PortId(0)), (891'808 - 100'000) / 8);
}

// ConWeave ns-3's egress check (switch-mmu.cc CheckEgressAdmission): pool 1,000,000 less
// 2 ports x 4096 reserve = 991,808 B, no headroom taken off; a queue's bytes past its own
// 1,049 B against alpha 1 x (pool - what the queues hold past their minimums). One queue
// alone stops at half the pool: shared s admits a packet of b while s + b <= 991,808 - s.
TEST(Mmu, TheEgressThresholdIsAlphaTimesTheFreeEgressPool) {
  SwitchConfig c = config(1'000'000, 1.0 / 8);
  c.pfc.pool_reserve_per_port_bytes = 4096;
  c.pfc.egress_alpha = 1.0;
  c.pfc.egress_queue_min_bytes = 1049;
  Mmu mmu;
  mmu.init(c, {50'000, 50'000});
  ASSERT_TRUE(mmu.egress_checked());
  const PortId out(1);
  int64_t queued = 0;
  while (mmu.egress_admits(out, kRdma, 1000)) {
    mmu.admit_egress(out, kRdma, 1000);
    queued += 1000;
  }
  // Shared after n packets: 1000 n - 1049; the (n+1)th fits while 1000 n - 49 <=
  // 991,808 - (1000 n - 1049), i.e. n <= 496.4: 497 packets fit.
  EXPECT_EQ(queued, 497'000);
  EXPECT_TRUE(mmu.egress_admits(PortId(0), kRdma, 1000)) << "another queue: its own room";
  for (int i = 0; i < 497; ++i) mmu.release_egress(out, kRdma, 1000);
  EXPECT_EQ(mmu.check_drained(), "");
}

TEST(Mmu, GuaranteedBytesCountNeitherForXoffNorThePool) {
  SwitchConfig c = config(1'000'000, 1.0 / 8);
  c.pfc.guaranteed_bytes = 4096;
  Mmu mmu;
  mmu.init(c, {50'000, 50'000});
  const int64_t pool = 900'000;
  ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 4096));  // all guaranteed
  EXPECT_EQ(mmu.xoff_threshold(PortId(0)), pool / 8);
  EXPECT_FALSE(mmu.take_pause(PortId(0), kRdma));
  // Fill the shared part: XOFF once shared >= alpha x free, i.e. s >= (900,000 - s) / 8,
  // s >= 100,000.
  for (int i = 0; i < 99; ++i) ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 1000));
  EXPECT_FALSE(mmu.take_pause(PortId(0), kRdma)) << "99,000 shared < 801,000 / 8";
  ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 1000));
  EXPECT_TRUE(mmu.take_pause(PortId(0), kRdma)) << "100,000 shared >= 800,000 / 8";
  EXPECT_EQ(mmu.ingress_bytes(PortId(0), kRdma), 104'096);
  // XON when shared + resume offset <= XOFF: s + 3000 <= (900,000 - s) / 8, s <= 97,333.
  mmu.release(PortId(0), kRdma, 2000);
  EXPECT_FALSE(mmu.take_resume(PortId(0), kRdma)) << "98,000 shared";
  mmu.release(PortId(0), kRdma, 1000);
  EXPECT_TRUE(mmu.take_resume(PortId(0), kRdma)) << "97,000 shared";
  mmu.release(PortId(0), kRdma, 97'000 + 4096);
  EXPECT_EQ(mmu.check_drained(), "");
}

TEST(Mmu, AlphaDoublesPerDoublingOfThePortRateOverTheReference) {
  SwitchConfig c = config(1'000'000, 1.0 / 8);
  c.pfc.alpha_rate_reference_bps = gbps(100);
  Mmu mmu;
  mmu.init(c, {0, 0, 0, 0}, {gbps(100), gbps(200), gbps(400), gbps(1600)});
  EXPECT_EQ(mmu.xoff_threshold(PortId(0)), 1'000'000 / 8);  // HPCC pfc_a_shift 3
  EXPECT_EQ(mmu.xoff_threshold(PortId(1)), 1'000'000 / 4);  // shift 2
  EXPECT_EQ(mmu.xoff_threshold(PortId(2)), 1'000'000 / 2);  // shift 1
  EXPECT_EQ(mmu.xoff_threshold(PortId(3)), 1'000'000);      // shift 0 at most
}

}  // namespace
}  // namespace rocelab

namespace rocelab {
namespace {

// The ns-3 simulators' KMIN/KMAX/PMAX maps: an entry per link speed, else the scaled base.
TEST(EcnConfig, PerRateEntriesComeBeforeReferenceScaling) {
  EcnConfig ecn;
  ecn.kmin_bytes = 100'000;
  ecn.kmax_bytes = 400'000;
  ecn.pmax = 0.2;
  ecn.reference_rate_bps = gbps(25);
  ecn.per_rate = {{gbps(50), 100'000, 400'000, 0.0}};
  const EcnConfig at50 = ecn.for_port(gbps(50));
  EXPECT_EQ(at50.kmin_bytes, 100'000);
  EXPECT_EQ(at50.pmax, 0.0);
  const EcnConfig at100 = ecn.for_port(gbps(100));
  EXPECT_EQ(at100.kmin_bytes, 400'000);
  EXPECT_EQ(at100.kmax_bytes, 1'600'000);
  EXPECT_EQ(at100.pmax, 0.2);
}

}  // namespace
}  // namespace rocelab

namespace rocelab {
namespace {

// ConWeave ns-3's accounting: past XOFF an ingress keeps filling the pool (so the other
// ingresses' thresholds fall), and the pool counts the guaranteed bytes too.
TEST(Mmu, PoolFullModeKeepsCountingInThePool) {
  SwitchConfig c = config(1'000'000, 1.0 / 8);
  c.pfc.guaranteed_bytes = 2000;
  c.pfc.resume_offset_bytes = 1;
  c.pfc.headroom_when_pool_full = true;
  Mmu mmu;
  mmu.init(c, {50'000, 50'000});  // pool 900,000
  ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 2000));
  EXPECT_EQ(mmu.xoff_threshold(PortId(1)), (900'000 - 2000) / 8) << "guaranteed bytes count";
  // XOFF once s >= (900,000 - 2,000 - s) / 8, s >= 99,778.
  for (int i = 0; i < 99; ++i) ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 1000));
  EXPECT_FALSE(mmu.take_pause(PortId(0), kRdma));
  ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 1000));
  EXPECT_TRUE(mmu.take_pause(PortId(0), kRdma));
  // Bytes arriving after XOFF still come from the pool: port 1's threshold keeps falling.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(mmu.admit(PortId(0), kRdma, 1000));
  EXPECT_EQ(mmu.xoff_threshold(PortId(1)), (900'000 - 122'000) / 8);
  // XON at s + 1 <= (898,000 - s) / 8: s <= 99,777.
  mmu.release(PortId(0), kRdma, 20'000);
  EXPECT_FALSE(mmu.take_resume(PortId(0), kRdma)) << "100,000 shared";
  mmu.release(PortId(0), kRdma, 1000);
  EXPECT_TRUE(mmu.take_resume(PortId(0), kRdma)) << "99,000 shared";
  mmu.release(PortId(0), kRdma, 99'000 + 2000);
  EXPECT_EQ(mmu.check_drained(), "");
  EXPECT_EQ(mmu.xoff_threshold(PortId(1)), 900'000 / 8);
}

// With PFC off (ConWeave ns-3's ENABLE_PFC 0) its MMU admits as it does with PFC on:
// CheckIngressAdmission never looks at the pause threshold, only at the pool and then the
// class's headroom. Pool 1,000,000 - 2 x 50,000 headroom = 900,000: 900 packets of 1,000 B
// from the pool, 50 from the headroom, no PAUSE. The MMU of `fc: none` without the mode
// drops at the dynamic threshold instead: the (n+1)th packet fits while 1000 (n + 1) <=
// (1,000,000 - 1000 n) / 8, n <= 110: 111 packets.
TEST(Mmu, PoolFullModeAdmitsTheSameWithPfcOff) {
  auto admitted = [](bool pool_full_mode) {
    SwitchConfig c = config(1'000'000, 1.0 / 8);
    c.pfc.enabled = false;
    c.pfc.headroom_when_pool_full = pool_full_mode;
    Mmu mmu;
    mmu.init(c, {50'000, 50'000});
    int n = 0;
    while (mmu.admit(PortId(0), kRdma, 1000)) {
      ++n;
      EXPECT_FALSE(mmu.take_pause(PortId(0), kRdma)) << "no PFC: no PAUSE";
    }
    mmu.release(PortId(0), kRdma, int64_t{1000} * n);
    EXPECT_EQ(mmu.check_drained(), "");
    return n;
  };
  EXPECT_EQ(admitted(true), 950);
  EXPECT_EQ(admitted(false), 111);
}

}  // namespace
}  // namespace rocelab
