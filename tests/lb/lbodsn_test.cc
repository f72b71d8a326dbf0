// LBoDSN: Eq. 1, 3, 5, 6-7 and Table 1 on hand-computed numbers, the FCN rate limit and
// the alternating notification bit; on an incast across a two-spine leaf-spine, the
// destination ToR predicts the pause of an ingress, names a flow that fills it, and the
// flow has moved before that ingress sends its first XOFF; stale CNPs are swallowed only
// inside reroute windows, and counted; no drop, every flow done, reruns byte-identical.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "lb/lbodsn.h"
#include "net/switch_node.h"
#include "scenario/run/runner.h"
#include "test_util.h"

namespace rocelab {
namespace {

TEST(LbodsnEquations, PauseThresholdEq1WithEq2Floor) {
  // Q_PFC 536,000 B, growing at line rate (100 Gb/s = 12.5e9 B/s), t_d 2.01 us, eps 0.8:
  // (536,000 - 25,125) x 0.8 = 408,700 B.
  EXPECT_NEAR(Lbodsn::q_th(536000, 12.5e9, 2.01e-6, 0.8, 0), 408700, 1e-6);
  // A queue that shrinks counts as not growing: 536,000 x 0.8.
  EXPECT_NEAR(Lbodsn::q_th(536000, -5e9, 2.01e-6, 0.8, 0), 428800, 1e-6);
  // A small dynamic Q_PFC is floored at Eq. 2's lower end t_d x C = 25,125 B.
  EXPECT_NEAR(Lbodsn::q_th(20000, 0, 2.01e-6, 0.8, 25125), 25125, 1e-6);
  EXPECT_NEAR(Lbodsn::q_th(20000, 0, 2.01e-6, 0.8, 0), 16000, 1e-6);
}

TEST(LbodsnEquations, CongestionContributionEq3IsTheEqualShareAsAShift) {
  EXPECT_EQ(Lbodsn::f_cc(400000, 0), 400000);
  EXPECT_EQ(Lbodsn::f_cc(400000, 1), 400000);  // a lone flow holds it all
  EXPECT_EQ(Lbodsn::f_cc(400000, 2), 200000);
  EXPECT_EQ(Lbodsn::f_cc(400000, 3), 100000);  // ceil(log2 3) = 2
  EXPECT_EQ(Lbodsn::f_cc(400000, 4), 100000);
  EXPECT_EQ(Lbodsn::f_cc(400000, 5), 50000);
  EXPECT_EQ(Lbodsn::f_cc(400000, 9), 25000);
}

TEST(LbodsnEquations, TimeToResumeEq5) {
  // 50,000 B above resume, draining at 1e9 B/s, plus 2 us of flight: 52 us.
  EXPECT_NEAR(Lbodsn::t_pfc_s(300000, 250000, -1e9, 2e-6), 52e-6, 1e-12);
  // Not draining: never resumes by itself.
  EXPECT_TRUE(std::isinf(Lbodsn::t_pfc_s(300000, 250000, 0, 2e-6)));
  EXPECT_TRUE(std::isinf(Lbodsn::t_pfc_s(300000, 250000, 1e9, 2e-6)));
}

TEST(LbodsnEquations, StaleCnpDiscardEq6And7) {
  // w_q 0.2, maxP 0.5, T 8. First stale CNP: avg = 0.2, p = 0.5 x 0.2 / 8 = 0.0125.
  auto d = Lbodsn::stale_cnp(0, 1, 0.2, 0.5, 8, false);
  EXPECT_NEAR(d.avg_cnp, 0.2, 1e-12);
  EXPECT_NEAR(d.p, 0.0125, 1e-12);
  // Second: avg = 0.8 x 0.2 + 0.2 x 2 = 0.56, p = 0.035.
  d = Lbodsn::stale_cnp(d.avg_cnp, 2, 0.2, 0.5, 8, false);
  EXPECT_NEAR(d.avg_cnp, 0.56, 1e-12);
  EXPECT_NEAR(d.p, 0.035, 1e-12);
  // The count reaches T: every stale CNP goes.
  EXPECT_EQ(Lbodsn::stale_cnp(1.0, 8, 0.2, 0.5, 8, false).p, 1.0);
  // Threshold on the average instead: W = 8 with a low average is still probabilistic.
  EXPECT_LT(Lbodsn::stale_cnp(1.0, 8, 0.2, 0.5, 8, true).p, 1.0);
  EXPECT_EQ(Lbodsn::stale_cnp(7.9, 100, 0.2, 0.5, 8, true).p, 1.0);  // avg 26.32
}

TEST(LbodsnTable1, FcnStateByUtilisation) {
  using C = Lbodsn::PathClass;
  EXPECT_EQ(Lbodsn::classify(false, 0.2, 0.9), C::kUncongested);
  EXPECT_EQ(Lbodsn::classify(false, 1.0, 0.9), C::kUncongested);  // full, no congested flow
  EXPECT_EQ(Lbodsn::classify(true, 0.5, 0.9), C::kUndetermined);
  EXPECT_EQ(Lbodsn::classify(true, 0.9, 0.9), C::kCongested);
}

TEST(LbodsnRules, OneFcnPerIngressPerRttAndTheAlternatingBit) {
  const Delta rtt = Delta::from_ns(4176);
  EXPECT_TRUE(Lbodsn::fcn_allowed(Time::never(), Time{Delta::from_us(1).ps}, rtt));
  EXPECT_FALSE(Lbodsn::fcn_allowed(Time{Delta::from_us(10).ps}, Time{Delta::from_us(14).ps}, rtt));
  EXPECT_TRUE(
      Lbodsn::fcn_allowed(Time{Delta::from_us(10).ps}, Time{(Delta::from_us(10) + rtt).ps}, rtt));
  EXPECT_TRUE(Lbodsn::reply_closes_window(1, 1));
  EXPECT_FALSE(Lbodsn::reply_closes_window(0, 1)) << "a late reply to the previous reroute";
}

// Six 1 MB flows from leaf0 into one host of leaf1 across two spines, line-rate senders
// (no congestion control), static XOFF at 100 KB: leaf1's spine-facing ingress counters
// fill (the host link drains half of what the two spines bring).
struct IncastRun {
  std::vector<Lbodsn::FcnRecord> fcns;          // leaf1's
  Time first_xoff_of_fcn_port = Time::never();  // leaf1's first XOFF on that port
  double reroutes = 0, fcns_sent = 0, before_pause = 0, stale = 0, discarded = 0;
  double spine_fcns = 0, source_picks = 0, tails = 0, paths_tagged = 0, rejected = 0;
  double episodes = 0, tries = 0;
  uint64_t drops = 0;
  uint64_t suppressed = 0, pause_frames = 0, out_of_order = 0;
  std::map<uint32_t, uint64_t> size_of_flow;
  std::string flows_csv;
};

IncastRun run_incast(bool fcn, const std::string& cc,
                     const std::string& cnp_filter = "probabilistic", uint64_t seed = 1,
                     const std::string& watch = "tor") {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 8);
  spec.network.seed = seed;
  spec.network.switch_config.pfc.mode = PfcThresholdMode::kStatic;
  spec.network.switch_config.pfc.static_xoff_bytes = 100 * 1000;
  spec.lb = "lbodsn";
  spec.cc = cc;
  auto cfg = std::make_shared<LbodsnSchemeConfig>();
  cfg->cfg.fcn = fcn;
  cfg->cfg.cnp_filter = cnp_filter;
  cfg->cfg.watch = watch;
  spec.lb_config = cfg;
  for (uint32_t i = 0; i < 6; ++i) spec.flows.push_back(test::flow(i, 8, 1000 * 1000));
  // Mice from leaf0's other hosts to leaf1's other hosts: they share the ingresses.
  for (uint32_t i = 0; i < 8; ++i)
    spec.flows.push_back(
        test::flow(6 + i % 2, 9 + i % 7, 4000, Time{Delta::from_us(5 + 10 * i).ps}));
  Experiment exp(spec);
  Network& net = exp.network();
  const NodeId leaf1(net.topology().find("leaf1"));
  std::vector<PfcEvent> xoffs;
  net.context().on_pfc = [&](const PfcEvent& e) {
    if (e.node == leaf1 && e.xoff) xoffs.push_back(e);
  };
  test::run_checked(exp);
  IncastRun out;
  const auto& lb = static_cast<Lbodsn&>(*net.switch_at(leaf1).load_balancer());
  out.fcns = lb.fcn_log();
  if (!out.fcns.empty())
    for (const PfcEvent& e : xoffs)
      if (e.port == out.fcns[0].ingress) {
        out.first_xoff_of_fcn_port = e.time;
        break;
      }
  out.reroutes = test::lb_stat(exp, "lbodsn_reroutes");
  out.fcns_sent = test::lb_stat(exp, "lbodsn_fcns_sent");
  out.before_pause = test::lb_stat(exp, "lbodsn_fcns_before_pause");
  out.stale = test::lb_stat(exp, "lbodsn_stale_cnps");
  out.spine_fcns = test::lb_stat(exp, "lbodsn_spine_fcns_sent");
  out.source_picks = test::lb_stat(exp, "lbodsn_source_picks");
  out.tails = test::lb_stat(exp, "lbodsn_tails");
  out.paths_tagged = test::lb_stat(exp, "lbodsn_paths_tagged");
  out.episodes = test::lb_stat(exp, "lbodsn_prediction_episodes");
  out.tries = test::lb_stat(exp, "lbodsn_prediction_tries");
  for (const char* why : {"lbodsn_fcn_stale", "lbodsn_fcn_in_flight", "lbodsn_fcn_unknown_flow",
                          "lbodsn_fcn_same_path"})
    out.rejected += test::lb_stat(exp, why);
  out.drops = net.counters().drops;
  out.discarded = test::lb_stat(exp, "lbodsn_stale_cnps_discarded");
  out.suppressed = net.counters().cnps_suppressed;
  out.pause_frames = net.counters().pause_frames_by_node[leaf1.index()];
  out.out_of_order = exp.transport().counters().out_of_order_packets;
  for (const auto& r : exp.transport().records()) out.size_of_flow[r.id.index()] = r.size_bytes;
  return out;
}

TEST(LbodsnIncast, PredictsThePauseAndMovesTheNamedElephantBeforeIt) {
  const IncastRun r = run_incast(true, "none");
  ASSERT_FALSE(r.fcns.empty()) << "the ingress counter reached Q_th";
  std::printf(
      "FCNs %.0f (%.0f before a pause), reroutes %.0f; first FCN at %.2f us on port %u, "
      "first XOFF there at %.2f us; leaf1 PAUSEs %llu\n",
      r.fcns_sent, r.before_pause, r.reroutes, r.fcns[0].at.us(), r.fcns[0].ingress.index(),
      r.first_xoff_of_fcn_port.us(), static_cast<unsigned long long>(r.pause_frames));
  EXPECT_GE(r.reroutes, 1);
  // The prediction leaves before the ingress pauses, by more than the FCN's trip (t_d).
  EXPECT_FALSE(r.fcns[0].ingress_paused);
  EXPECT_LT(r.fcns[0].at + Delta::from_ns(2010), r.first_xoff_of_fcn_port);
  std::map<uint16_t, Time> last_of_port;
  for (const auto& f : r.fcns) {
    EXPECT_GE(f.flow_bytes, f.f_cc) << "a named flow holds its share";
    EXPECT_EQ(r.size_of_flow.at(f.flow), 1000u * 1000u) << "only elephants are named";
    auto [it, fresh] = last_of_port.try_emplace(f.ingress.index(), f.at);
    if (!fresh) {
      EXPECT_GE(f.at - it->second, Delta::from_ns(4176)) << "one FCN per RTT";
    }
    it->second = f.at;
  }
  EXPECT_EQ(r.out_of_order, 0u) << "the destination ToR restored the order";
}

// Every tag-1 FCN tags the path it names at the source ToR, whether the flow moves or the
// FCN is refused (one reroute at a time, a path already left, a flow already gone): the
// destination counts the flow reported there and will clear it with a tag-0 FCN, so the
// source's Table 1 must know of it too.
TEST(LbodsnIncast, ARefusedFcnStillTagsItsPath) {
  const IncastRun r = run_incast(true, "dcqcn");
  std::printf("tag-1 FCNs %.0f: moved %.0f, refused %.0f, paths tagged %.0f\n", r.fcns_sent,
              r.reroutes, r.rejected, r.paths_tagged);
  ASSERT_GT(r.rejected, 0) << "the case needs refused FCNs";
  EXPECT_EQ(r.paths_tagged, r.reroutes + r.rejected);
  EXPECT_EQ(r.paths_tagged, r.fcns_sent) << "every FCN sent arrived and tagged its path";
  // An episode holds one or more tries; each FCN came from a try.
  EXPECT_GT(r.episodes, 0);
  EXPECT_LE(r.episodes, r.tries);
  EXPECT_LE(r.fcns_sent, r.tries);
}

// lb.watch: spine. The spines watch their ingresses from leaf0: as leaf1 pauses them, the
// bytes from leaf0 back up there. A spine names the flow and its path to leaf0 one link
// away; leaf0 places the flow on a path of Table 1's best class, other than the named one.
TEST(LbodsnSpine, TheSpineNamesTheFlowAndTheSourceTorPicksItsPath) {
  const IncastRun tor = run_incast(true, "none");
  const IncastRun spine = run_incast(true, "none", "probabilistic", 1, "spine");
  const IncastRun both = run_incast(true, "none", "probabilistic", 1, "both");
  std::printf(
      "FCNs tor %.0f / spine %.0f (%.0f by spines) / both %.0f (%.0f); moves %.0f / %.0f "
      "/ %.0f; source picks %.0f\n",
      tor.fcns_sent, spine.fcns_sent, spine.spine_fcns, both.fcns_sent, both.spine_fcns, tor.tails,
      spine.tails, both.tails, spine.source_picks);
  EXPECT_EQ(tor.spine_fcns, 0);
  EXPECT_TRUE(spine.fcns.empty()) << "leaf1 does not watch";
  ASSERT_GT(spine.spine_fcns, 0);
  EXPECT_EQ(spine.fcns_sent, spine.spine_fcns);
  EXPECT_GT(spine.source_picks, 0);
  EXPECT_GT(spine.tails, 0) << "flows moved to the other spine";
  EXPECT_LE(spine.tails, spine.source_picks);
  EXPECT_GT(both.spine_fcns, 0);
  EXPECT_GT(both.fcns_sent, both.spine_fcns) << "leaf1 watches too";
  for (const IncastRun* r : {&spine, &both}) {
    EXPECT_EQ(r->drops, 0u);
    EXPECT_EQ(r->out_of_order, 0u) << "the destination ToR restored the order";
  }
}

TEST(LbodsnIncast, FcnsOffNoRerouteAndNoFcn) {
  const IncastRun r = run_incast(false, "none");
  EXPECT_TRUE(r.fcns.empty());
  EXPECT_EQ(r.reroutes, 0);
}

TEST(LbodsnStaleCnp, SwallowedOnlyInsideRerouteWindowsAndCounted) {
  const IncastRun p = run_incast(true, "dcqcn", "probabilistic");
  const IncastRun none = run_incast(true, "dcqcn", "none");
  const IncastRun all = run_incast(true, "dcqcn", "all");
  std::printf("stale CNPs %.0f / %.0f / %.0f, discarded %.0f / %.0f / %.0f\n", p.stale, none.stale,
              all.stale, p.discarded, none.discarded, all.discarded);
  ASSERT_GT(all.reroutes, 0);
  ASSERT_GT(all.stale, 0) << "CNPs came back during a reroute window";
  EXPECT_EQ(all.discarded, all.stale);
  EXPECT_EQ(static_cast<double>(all.suppressed), all.discarded);
  EXPECT_EQ(none.discarded, 0);
  EXPECT_EQ(none.suppressed, 0u);
  EXPECT_EQ(static_cast<double>(p.suppressed), p.discarded);
  EXPECT_LE(p.discarded, p.stale);
  // No reroute, no window: nothing is swallowed.
  const IncastRun off = run_incast(false, "dcqcn", "all");
  EXPECT_EQ(off.stale, 0);
  EXPECT_EQ(off.suppressed, 0u);
}

// A 3-tier fat-tree (4 paths between pods, two through each aggregation switch of the
// destination pod): an incast from two pods into one host. The FCNs travel four links,
// the source ToRs pin end-to-end paths, and a target path never enters through the
// congested ingress.
TEST(LbodsnRuns, FatTreeIncastMovesFlowsAndKeepsOrder) {
  ExperimentSpec spec;
  FatTreeParams ft;
  ft.hosts_per_edge = 4;  // 8 hosts per pod
  spec.topology = fat_tree(ft);
  spec.network.switch_config.pfc.mode = PfcThresholdMode::kStatic;
  spec.network.switch_config.pfc.static_xoff_bytes = 100 * 1000;
  spec.lb = "lbodsn";
  spec.cc = "dcqcn";
  for (uint32_t i : {0u, 1u, 2u, 3u, 16u, 17u, 18u, 19u})
    spec.flows.push_back(test::flow(i, 8, 1000 * 1000));
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_GT(test::lb_stat(exp, "lbodsn_fcns_sent"), 0);
  EXPECT_GT(test::lb_stat(exp, "lbodsn_tails"), 0) << "flows moved between pods' paths";
  const double edges = static_cast<double>(exp.network().routing().edge_switches().size());
  EXPECT_NEAR(test::lb_stat(exp, "lbodsn_t_d_ns") / edges, 4 * (1000 + 6.72), 1e-6)
      << "four links of 84 B frames";
  std::printf("flushes %.0f (%.0f by TAIL), held %.0f, out of order at the NIC %llu\n",
              test::lb_stat(exp, "lbodsn_flushes"), test::lb_stat(exp, "lbodsn_flushes_by_tail"),
              test::lb_stat(exp, "lbodsn_held_packets"),
              static_cast<unsigned long long>(exp.transport().counters().out_of_order_packets));
  // The TAIL closes most reorder queues; an old path held by PFC pauses can keep it past the
  // predicted deadline (ConWeave's design), and then the NIC sees the overtaking packets.
  EXPECT_GE(2 * test::lb_stat(exp, "lbodsn_flushes_by_tail"), test::lb_stat(exp, "lbodsn_flushes"));
}

TEST(LbodsnRuns, RefusesAFabricWithoutPfc) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.lb = "lbodsn";
  spec.cc = "dcqcn";
  spec.fc = "none";
  spec.flows.push_back(test::flow(0, 2, 10000));
  try {
    Experiment exp(spec);
    FAIL() << "built without a lossless MMU";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fc: pfc"), std::string::npos) << e.what();
  }
}

TEST(LbodsnRuns, SameSeedSameOutput) {
  const IncastRun a = run_incast(true, "dcqcn", "probabilistic", 3);
  const IncastRun b = run_incast(true, "dcqcn", "probabilistic", 3);
  ASSERT_EQ(a.fcns.size(), b.fcns.size());
  for (size_t i = 0; i < a.fcns.size(); ++i) {
    EXPECT_EQ(a.fcns[i].at, b.fcns[i].at);
    EXPECT_EQ(a.fcns[i].flow, b.fcns[i].flow);
  }
  EXPECT_EQ(a.discarded, b.discarded);
  EXPECT_EQ(a.pause_frames, b.pause_frames);
}

}  // namespace
}  // namespace rocelab
