// DCQCN as the ns-3 reference simulators model the Mellanox NIC (cc/dcqcn_mlx.h), checked
// against hand-computed sequences of rdma-hw.cc's *Mlx functions.
#include <gtest/gtest.h>

#include <cmath>

#include "cc/dcqcn_mlx.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr double kG = 1.0 / 256;

// The forks' run.py settings at 100 Gb/s (ConWeave: AI 40 Mb/s, HAI 100 Mb/s).
DcqcnConfig forks_config() {
  DcqcnConfig c;
  c.model = "ns3_mlx";
  c.g = kG;
  c.alpha_update_interval = Delta::from_us(1);
  c.rate_decrease_interval = Delta::from_us(4);
  c.rate_increase_interval = Delta::from_us(300);
  c.fast_recovery_steps = 1;
  c.rate_ai_bps = mbps(40);
  c.rate_hai_bps = mbps(100);
  c.min_rate_bps = mbps(100);
  return c;
}

// One 100 Gb/s sender and its receiver on one switch, a flow long enough to outlive the test.
struct OneFlow {
  explicit OneFlow(const DcqcnConfig& cfg = forks_config()) {
    ExperimentSpec spec;
    spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
    spec.flows = {test::flow(0, 1, uint64_t{10} * 1000 * 1000 * 1000)};
    auto owned = std::make_unique<DcqcnMlx>(cfg);
    cc = owned.get();
    exp = std::make_unique<Experiment>(spec, std::move(owned));
  }
  void run_to(Delta t) { exp->run(Time{t.ps}); }
  BitsPerSec rate() { return exp->transport().rate_bps(f); }
  void cnp_at(Delta t) {
    run_to(t);
    cc->on_cnp(f, Packet{});
  }
  DcqcnMlx* cc = nullptr;
  std::unique_ptr<Experiment> exp;
  const FlowId f{0};
};

BitsPerSec cut(BitsPerSec rc, double alpha) {
  return static_cast<BitsPerSec>(static_cast<double>(rc) * (1 - alpha / 2));
}

TEST(DcqcnMlx, TheCutLandsAtThePeriodicCheckNotOnTheCnp) {
  OneFlow t;
  t.cnp_at(Delta::from_us(100));
  EXPECT_EQ(t.rate(), gbps(100)) << "a CNP only raises the flags";
  // First check: 4 us + 1 ns after the first CNP.
  t.run_to(Delta::from_us(104) + Delta::from_ns(1) - Delta{1});
  EXPECT_EQ(t.rate(), gbps(100));
  t.run_to(Delta::from_us(104) + Delta::from_ns(1));
  // alpha = 1 on the first CNP with its arrived bit cleared: the four expiries at 101..104
  // us all decay it.
  const double alpha = std::pow(1 - kG, 4);
  EXPECT_EQ(t.rate(), cut(gbps(100), alpha));
  EXPECT_EQ(t.cc->target_rate_bps(t.f), gbps(100)) << "stage 0: the target is not clamped";
}

TEST(DcqcnMlx, BackToBackCutsKeepTheOldTarget) {
  OneFlow t;
  t.cnp_at(Delta::from_us(100));
  t.run_to(Delta::from_us(105));
  const BitsPerSec rc1 = t.rate();
  t.cnp_at(Delta::from_us(106));  // on the alpha grid: the expiry at 106 us goes first
  // Next check on the grid 100.001 + 4k us: 108.001 us. Alpha expiries 101-106 decay,
  // 107 sees the CNP, 108 decays.
  t.run_to(Delta::from_us(108));
  EXPECT_EQ(t.rate(), rc1);
  t.run_to(Delta::from_us(108) + Delta::from_ns(1));
  const double alpha = ((1 - kG) * std::pow(1 - kG, 6) + kG) * (1 - kG);
  EXPECT_EQ(t.rate(), cut(rc1, alpha));
  EXPECT_EQ(t.cc->target_rate_bps(t.f), gbps(100)) << "CLAMP_TARGET_RATE 0";
  // The paper's reaction point would have set the target to rc1 on the second cut.
}

TEST(DcqcnMlx, ClampTargetRateSetsTheTargetOnEveryCut) {
  DcqcnConfig cfg = forks_config();
  cfg.clamp_target_rate = true;
  OneFlow t(cfg);
  t.cnp_at(Delta::from_us(100));
  t.run_to(Delta::from_us(105));
  EXPECT_EQ(t.cc->target_rate_bps(t.f), gbps(100));
  const BitsPerSec rc1 = t.rate();
  t.cnp_at(Delta::from_us(106));
  t.run_to(Delta::from_us(109));
  EXPECT_EQ(t.cc->target_rate_bps(t.f), rc1);
}

TEST(DcqcnMlx, StagesGoFastRecoveryThenOneAdditiveThenHyperSteps) {
  OneFlow t;
  const Delta ns1 = Delta::from_ns(1);
  t.cnp_at(Delta::from_us(100));
  t.run_to(Delta::from_us(105));  // cut at 104.001 us
  BitsPerSec rc = t.rate();
  BitsPerSec rt = gbps(100);
  // 404.001 us: stage 0 < F = 1, fast recovery.
  t.run_to(Delta::from_us(404) + ns1);
  rc = rc / 2 + rt / 2;
  EXPECT_EQ(t.rate(), rc);
  EXPECT_EQ(t.cc->increase_stage(t.f), 1u);
  // A CNP at 410 us is cut at the next check, 412.001 us; the timer fired since the last
  // cut (stage 1), so the target is clamped to the current rate.
  t.cnp_at(Delta::from_us(410));
  t.run_to(Delta::from_us(412) + ns1);
  rt = rc;
  const double alpha = t.cc->alpha(t.f);
  rc = cut(rc, alpha);
  EXPECT_EQ(t.cc->target_rate_bps(t.f), rt);
  EXPECT_EQ(t.rate(), rc);
  EXPECT_EQ(t.cc->increase_stage(t.f), 0u);
  // 712.001: fast recovery; 1012.001: additive (stage == F); 1312.001 and 1612.001: hyper.
  t.run_to(Delta::from_us(712) + ns1);
  rc = rc / 2 + rt / 2;
  EXPECT_EQ(t.rate(), rc);
  t.run_to(Delta::from_us(1012) + ns1);
  rt += mbps(40);
  rc = rc / 2 + rt / 2;
  EXPECT_EQ(t.cc->target_rate_bps(t.f), rt);
  EXPECT_EQ(t.rate(), rc);
  for (int step = 0; step < 2; ++step) {
    t.run_to(Delta::from_us(1312 + 300 * step) + ns1);
    rt += mbps(100);  // one RATE_HAI per expiry, not (stage - F) of them
    rc = rc / 2 + rt / 2;
    EXPECT_EQ(t.cc->target_rate_bps(t.f), rt) << "hyper step " << step;
    EXPECT_EQ(t.rate(), rc) << "hyper step " << step;
  }
}

TEST(DcqcnMlx, AlphaFollowsItsOwnTimerAsAnEagerLoopWould) {
  OneFlow t;
  // Eager reference: every 1 us from the first CNP, (1-g) a + g if a CNP came, else (1-g) a.
  const int cnp_us[] = {100, 103, 150, 151, 152, 400};
  double alpha = 1.0;
  bool arrived = false;
  size_t next = 1;
  t.cnp_at(Delta::from_us(100));
  for (int us = 101; us <= 700; ++us) {
    alpha = arrived ? (1 - kG) * alpha + kG : (1 - kG) * alpha;
    arrived = false;
    if (next < std::size(cnp_us) && cnp_us[next] == us) {
      t.cnp_at(Delta::from_us(us));
      arrived = true;
      ++next;
    }
    if (us % 50 == 0 || us == 700) {
      t.run_to(Delta::from_us(us));
      EXPECT_NEAR(t.cc->alpha(t.f), alpha, 1e-12) << "at " << us << " us";
    }
  }
}

// rdma-hw.cc's *Mlx functions set m_rate without ChangeRate: after a jump from the floor the
// next packet still waits the gap the floor rate gave it (up to 83 us for 1036 B at
// 100 Mb/s); that desynchronizes flows recovering together. Other schemes' rate changes
// shorten the pending gap.
TEST(DcqcnMlx, ARateJumpKeepsThePendingGap) {
  for (bool keep : {true, false}) {
    OneFlow t;
    RdmaTransport& tr = t.exp->transport();
    t.run_to(Delta::from_us(100));
    tr.set_rate(t.f, mbps(100));
    t.run_to(Delta::from_us(101));  // one packet at the floor rate has left
    const uint64_t sent = tr.counters().data_packets_sent;
    tr.set_rate(t.f, gbps(50), keep);
    t.run_to(Delta::from_us(150));
    if (keep) {
      EXPECT_EQ(tr.counters().data_packets_sent, sent) << "the floor's 83 us gap holds";
    } else {
      EXPECT_GT(tr.counters().data_packets_sent, sent + 100) << "the gap shrank with the rate";
    }
  }
}

// The reaction point uses it: fast recovery from the floor does not release a burst.
TEST(DcqcnMlx, FastRecoveryFromTheFloorWaitsForThePendingPacket) {
  OneFlow t;
  for (int k = 0; k < 14; ++k) t.cnp_at(Delta::from_us(100) + Delta::from_ns(4000 * k + 500));
  t.run_to(Delta::from_us(160));
  ASSERT_EQ(t.rate(), mbps(100)) << "fourteen cuts reach the floor";
  // The last cut was at 156.001 us; fast recovery 300 us later.
  const Time fr{(Delta::from_us(456) + Delta::from_ns(1)).ps};
  t.exp->run(fr);
  const uint64_t before = t.exp->transport().counters().data_packets_sent;
  t.run_to(Delta::from_us(457));
  EXPECT_GT(t.rate(), gbps(50));
  EXPECT_EQ(t.exp->transport().counters().data_packets_sent, before)
      << "50 Gb/s would send 6 packets a microsecond if the floor's gap were shortened";
}

TEST(DcqcnMlx, CnpFlagOnAcksReachesTheReactionPoint) {
  // Two senders into one port: the marked packets' ACKs carry the CNP (no CNP frames).
  ExperimentSpec spec;
  TopologySpec topo;
  for (const char* h : {"a", "b", "r"}) topo.add_node(NodeKind::kHost, Layer::kHost, h);
  const uint32_t sw = topo.add_node(NodeKind::kSwitch, Layer::kEdge, "sw");
  for (uint32_t h = 0; h < 3; ++h) topo.add_link(h, sw, gbps(100), Delta::from_us(1));
  spec.topology = topo;
  spec.network.switch_config.ecn.enabled = true;
  spec.network.switch_config.ecn.kmin_bytes = 100 * 1000;
  spec.network.switch_config.ecn.kmax_bytes = 400 * 1000;
  spec.network.switch_config.ecn.pmax = 0.2;
  spec.flows = {test::flow(0, 2, 20 * 1000 * 1000), test::flow(1, 2, 20 * 1000 * 1000)};
  DcqcnConfig cfg = forks_config();
  cfg.np.cnp_delivery = CnpDelivery::kAckFlag;
  auto owned = std::make_unique<DcqcnMlx>(cfg);
  DcqcnMlx* cc = owned.get();
  Experiment exp(spec, std::move(owned));
  exp.run(Time{Delta::from_us(500).ps});
  EXPECT_GT(exp.network().counters().ecn_marks, 0u);
  EXPECT_GT(exp.transport().counters().cnps_sent, 0u);
  EXPECT_LE(exp.transport().counters().cnps_sent, exp.network().counters().ecn_marks);
  EXPECT_LT(cc->current_rate_bps(FlowId(0)), gbps(100)) << "the flags reached the sender";
  test::run_checked(exp);
}

}  // namespace
}  // namespace rocelab
