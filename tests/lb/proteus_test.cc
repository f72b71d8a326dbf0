// Proteus (ToN'24): Table II's classes, SelectPath's order, Alg. 1's gap condition, Alg. 2's
// wait-or-reroute on hand-built numbers, and on a leaf-spine whose uplink is paused by
// hand: the flow rides out a short pause, leaves a long one, and the kicked-out path stays
// out until the pause ends.
#include <gtest/gtest.h>

#include <algorithm>

#include <array>

#include "lb/proteus.h"
#include "net/switch_node.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/run/runner.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr int64_t kUs = 1000 * 1000;  // ps

TEST(ProteusClasses, TableTwo) {
  const int64_t low = 5 * kUs;
  // Low delay: non-congested whatever the utilisation (rows 1-2).
  EXPECT_EQ(Proteus::classify(4 * kUs, 0.3, low, 0.95), PathClass::kNonCongested);
  EXPECT_EQ(Proteus::classify(4 * kUs, 1.0, low, 0.95), PathClass::kNonCongested);
  // High delay on an under-used link: a PFC pause (row 3); on a full link: congestion.
  EXPECT_EQ(Proteus::classify(5 * kUs, 0.5, low, 0.95), PathClass::kUndetermined);
  EXPECT_EQ(Proteus::classify(9 * kUs, 0.94, low, 0.95), PathClass::kUndetermined);
  EXPECT_EQ(Proteus::classify(9 * kUs, 0.95, low, 0.95), PathClass::kCongested);
  EXPECT_EQ(Proteus::classify(9 * kUs, 1.0, low, 0.95), PathClass::kCongested);
}

ProteusPathView view(int64_t delay_us, double util, PathClass c, bool active = true) {
  return ProteusPathView{delay_us * kUs, util, c, active};
}

TEST(ProteusSelectPath, ClassesInOrderAndOnlyActivePaths) {
  RandomStream rng(1, "t");
  using C = PathClass;
  std::vector<uint8_t> all(4, 1);
  // A non-congested path wins over everything, the one of minimum delay.
  std::vector<ProteusPathView> v = {view(9, 1, C::kCongested), view(4, 0.5, C::kNonCongested),
                                    view(3, 0.9, C::kNonCongested), view(8, 0.1, C::kUndetermined)};
  EXPECT_EQ(Proteus::select_path(v, all, rng), 2u);
  // None: the undetermined path of maximum utilisation, over a lower-delay one.
  v = {view(9, 1, C::kCongested), view(20, 0.7, C::kUndetermined), view(7, 0.2, C::kUndetermined),
       view(6, 1, C::kCongested)};
  EXPECT_EQ(Proteus::select_path(v, all, rng), 1u);
  // Only congested ones: the minimum delay.
  v = {view(9, 1, C::kCongested), view(20, 1, C::kCongested), view(7, 1, C::kCongested),
       view(8, 1, C::kCongested)};
  EXPECT_EQ(Proteus::select_path(v, all, rng), 2u);
  // Inactive (kicked-out) paths are skipped, whatever their class.
  v = {view(3, 0.1, C::kNonCongested, false), view(20, 0.7, C::kUndetermined),
       view(7, 1, C::kCongested), view(8, 1, C::kCongested)};
  EXPECT_EQ(Proteus::select_path(v, all, rng), 1u);
  // Only the allowed set counts (Alg. 1 line 8 passes P').
  std::vector<uint8_t> some = {0, 0, 1, 1};
  EXPECT_EQ(Proteus::select_path(v, some, rng), 2u);
  // Every allowed path inactive: the choice is made among them all the same.
  for (auto& x : v) x.active = false;
  EXPECT_EQ(Proteus::select_path(v, all, rng), 0u);
}

TEST(ProteusAlg1, ReroutesOnlyToPathsFasterByLessThanTheGap) {
  // Delays {10, 7, 3} us, current path 0, packets 4 us apart: P' = {1}.
  const Delta gap = Delta::from_us(4);
  EXPECT_TRUE(Proteus::faster_within_gap(10 * kUs, 7 * kUs, gap));
  EXPECT_FALSE(Proteus::faster_within_gap(10 * kUs, 3 * kUs, gap));   // 7 us > gap
  EXPECT_FALSE(Proteus::faster_within_gap(10 * kUs, 10 * kUs, gap));  // not faster
  EXPECT_FALSE(Proteus::faster_within_gap(10 * kUs, 6 * kUs, gap));   // exactly the gap
}

TEST(ProteusAlg2, WaitsWhileTheTolerableDelayExceedsTheQueueingDelay) {
  EXPECT_TRUE(Proteus::wait_through_pause(5 * kUs, 2 * kUs));
  // After a 4 us sojourn t_td is 1 us; a paused hop with 2 us ahead: reroute.
  EXPECT_FALSE(Proteus::wait_through_pause(5 * kUs - 4 * kUs, 2 * kUs));
  EXPECT_FALSE(Proteus::wait_through_pause(2 * kUs, 2 * kUs));
}

struct PauseRun {
  double reroutes = 0, waits = 0, kickouts = 0, no_alternative = 0;
  bool kicked_while_paused = false, active_after_resume = false;
  double fct_us = 0;
  uint32_t path_before = 0, path_after = 0;
};

// The RTT-level signals end to end: a line-rate flow's path is reported by the destination
// edge as fully used with no queueing (Table II row 2: non-congested), the idle path not at
// all (idle: base delay, no load).
TEST(ProteusSignals, ALineRatePathIsFullAndUnqueuedTheOtherIdle) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.lb = "proteus";
  spec.cc = "none";
  spec.flows.push_back(test::flow(0, 2, 10 * 1000 * 1000));
  Experiment exp(spec);
  Network& net = exp.network();
  const NodeId leaf0(net.topology().find("leaf0")), leaf1(net.topology().find("leaf1"));
  exp.run(Time{Delta::from_us(200).ps});
  auto& pr = static_cast<Proteus&>(*net.switch_at(leaf0).load_balancer());
  const auto views = pr.path_views(leaf1.index());
  const int64_t base = pr.base_delay_ps(leaf1.index());
  ASSERT_EQ(views.size(), 2u);
  const uint32_t used = views[0].util > views[1].util ? 0 : 1;
  EXPECT_GT(views[used].util, 0.9);
  EXPECT_LE(views[used].util, 1.0);
  EXPECT_GE(views[used].delay_ps, base);
  EXPECT_LT(views[used].delay_ps, base + 500 * 1000) << "no queue on a line-rate path";
  EXPECT_EQ(views[used].cls, PathClass::kNonCongested);
  EXPECT_EQ(views[1 - used].util, 0.0);
  EXPECT_EQ(views[1 - used].delay_ps, base);
  EXPECT_GT(test::lb_stat(exp, "proteus_feedback_received"), 10);
}

// leaf0 -> leaf1 over four spines, no congestion control, one 4 MB flow A (host 0 -> 8).
// The three other paths are reported 10 us slower and fully used (congested) and kept so
// (reports never expire); A's path is unmeasured, so idle: A takes it, and its tolerable
// delay is 10 us. At 20 us A's uplink is paused by hand for `pause`.
constexpr uint32_t kIdle = 2;

ExperimentSpec paused_spec(uint32_t leaves, ProteusConfig c) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(leaves, 4, 8);
  spec.lb = "proteus";
  spec.cc = "none";
  auto cfg = std::make_shared<ProteusSchemeConfig>();
  c.path_expiry_periods = 1000000;
  cfg->cfg = c;
  spec.lb_config = cfg;
  spec.flows.push_back(test::flow(0, 8, 4 * 1000 * 1000, Time{Delta::from_us(5).ps}));
  return spec;
}

// leaf0's Proteus, every path toward leaf1 but kIdle reported slow and full, run to 20 us.
Proteus& primed(Experiment& exp) {
  Network& net = exp.network();
  const NodeId leaf0(net.topology().find("leaf0")), leaf1(net.topology().find("leaf1"));
  auto& pr = static_cast<Proteus&>(*net.switch_at(leaf0).load_balancer());
  const int64_t base = pr.base_delay_ps(leaf1.index());
  for (uint32_t path = 0; path < 4; ++path)
    if (path != kIdle) pr.inject_report(leaf1.index(), path, base + 10 * kUs, 1.0);
  exp.run(Time{Delta::from_us(20).ps});
  return pr;
}

PauseRun run_paused(const std::string& subrtt, Delta pause) {
  ProteusConfig c;
  c.subrtt = subrtt;
  Experiment exp(paused_spec(2, c));
  Network& net = exp.network();
  const NodeId leaf0(net.topology().find("leaf0")), leaf1(net.topology().find("leaf1"));
  Proteus& pr = primed(exp);
  PauseRun out;
  auto views = pr.path_views(leaf1.index());
  out.path_before = kIdle;
  const auto hops = net.routing().next_hops(leaf0.index(), leaf1.index());
  EgressPort& up = net.switch_at(leaf0).port(hops[kIdle]);
  EXPECT_GT(up.counters().tx_data_packets, 10u) << "A does not use the idle path";
  for (size_t q = 0; q < up.num_queues(); ++q) up.set_paused(q, true);
  exp.run(Time{(Delta::from_us(20) + pause).ps});
  out.kicked_while_paused = !pr.path_views(leaf1.index())[kIdle].active;
  for (size_t q = 0; q < up.num_queues(); ++q) up.set_paused(q, false);
  up.kick();
  out.active_after_resume = pr.path_views(leaf1.index())[kIdle].active;
  test::run_checked(exp);
  out.reroutes = test::lb_stat(exp, "proteus_subrtt_reroutes");
  out.waits = test::lb_stat(exp, "proteus_subrtt_waits");
  out.kickouts = test::lb_stat(exp, "proteus_kickouts");
  out.no_alternative = test::lb_stat(exp, "proteus_no_alternative");
  out.fct_us = exp.transport().records()[0].fct().us();
  std::printf("%s pause %.0f us: reroutes %.0f waits %.0f kickouts %.0f, FCT %.1f us\n",
              subrtt.c_str(), pause.us(), out.reroutes, out.waits, out.kickouts, out.fct_us);
  return out;
}

TEST(ProteusAlg2, RidesOutAShortPause) {
  // 3 us of pause queue under 10 us of tolerable delay: every packet waits.
  const PauseRun better = run_paused("better_late", Delta::from_us(3));
  EXPECT_GT(better.waits, 0);
  EXPECT_EQ(better.reroutes, 0);
  EXPECT_FALSE(better.kicked_while_paused);
  // Kicking out at once (the §II-D strawman) leaves the path on the first paused packet.
  const PauseRun immediate = run_paused("immediate", Delta::from_us(3));
  EXPECT_GE(immediate.reroutes, 1);
  EXPECT_TRUE(immediate.kicked_while_paused);
}

TEST(ProteusAlg2, LeavesALongPauseAndTheKickOutLastsUntilTheResume) {
  // 300 us: the queue behind the pause soon holds more than 10 us of data; the next packet
  // reroutes, the path is kicked out while paused and active again once it resumes.
  const PauseRun better = run_paused("better_late", Delta::from_us(300));
  EXPECT_GE(better.reroutes, 1);
  EXPECT_GE(better.kickouts, 1);
  EXPECT_GT(better.waits, 0) << "it waited first, while the queue was short";
  EXPECT_TRUE(better.kicked_while_paused);
  EXPECT_TRUE(better.active_after_resume);
  EXPECT_EQ(better.no_alternative, 0);
  // Never rerouting waits the whole pause out.
  const PauseRun never = run_paused("never", Delta::from_us(300));
  EXPECT_EQ(never.reroutes, 0);
  EXPECT_LT(better.fct_us, never.fct_us - 100);
}

// lb.kickout_scope: three leaves, the run_paused setup with a 300 us pause of A's uplink
// (A leaves it, kicking it out). Toward leaf2, the path by that uplink stays active under
// `pair` (the kick-out is leaf1's pair's) and is out under `port` until the uplink resumes.
TEST(ProteusAlg2, AKickOutKeepsItsPairOrEveryPairOffTheUplink) {
  for (const std::string scope : {"pair", "port"}) {
    ProteusConfig c;
    c.kickout_scope = scope;
    Experiment exp(paused_spec(3, c));
    Network& net = exp.network();
    const NodeId leaf0(net.topology().find("leaf0")), leaf1(net.topology().find("leaf1")),
        leaf2(net.topology().find("leaf2"));
    Proteus& pr = primed(exp);
    const PortId uplink = net.routing().next_hops(leaf0.index(), leaf1.index())[kIdle];
    const auto to_leaf2 = net.routing().next_hops(leaf0.index(), leaf2.index());
    const uint32_t same = static_cast<uint32_t>(
        std::find(to_leaf2.begin(), to_leaf2.end(), uplink) - to_leaf2.begin());
    ASSERT_LT(same, to_leaf2.size());
    EgressPort& up = net.switch_at(leaf0).port(uplink);
    for (size_t q = 0; q < up.num_queues(); ++q) up.set_paused(q, true);
    exp.run(Time{Delta::from_us(320).ps});
    EXPECT_GE(test::lb_stat(exp, "proteus_kickouts"), 1) << scope;
    EXPECT_FALSE(pr.path_views(leaf1.index())[kIdle].active) << scope;
    EXPECT_EQ(pr.path_views(leaf2.index())[same].active, scope == "pair") << scope;
    for (size_t q = 0; q < up.num_queues(); ++q) up.set_paused(q, false);
    up.kick();
    EXPECT_TRUE(pr.path_views(leaf2.index())[same].active) << scope << ": resumed";
    test::run_checked(exp);
  }
}

// A 3-tier fat-tree: a switch past the source edge that still has a choice (the source
// pod's aggregation switch) reroutes a pinned packet whose next hop is paused to an
// alternative sharing the path so far (Alg. 2 "at the downstream switches").
double downstream_fct_us(const std::string& subrtt, double* downstream_reroutes) {
  ExperimentSpec spec;
  FatTreeParams ft;  // 4 pods, 2 edge + 2 aggregation switches each, 4 cores: 4 paths
  spec.topology = fat_tree(ft);
  spec.lb = "proteus";
  spec.cc = "none";
  auto cfg = std::make_shared<ProteusSchemeConfig>();
  cfg->cfg.subrtt = subrtt;
  spec.lb_config = cfg;
  spec.flows.push_back(test::flow(0, 4, 2 * 1000 * 1000));  // pod 0 -> pod 1
  Experiment exp(spec);
  Network& net = exp.network();
  exp.run(Time{Delta::from_us(10).ps});
  // Pause, for 300 us, every aggregation-to-core port of pod 0 the flow is using.
  std::vector<EgressPort*> paused;
  for (const char* agg : {"agg0", "agg1"}) {
    Switch& sw = net.switch_at(NodeId(net.topology().find(agg)));
    for (size_t i = 0; i < sw.port_count(); ++i) {
      EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
      const std::string& peer = net.topology().nodes[port.peer()->id().index()].name;
      if (peer.rfind("core", 0) == 0 && port.counters().tx_data_packets > 0)
        paused.push_back(&port);
    }
  }
  EXPECT_EQ(paused.size(), 1u) << "the flow should leave pod 0 by one core link";
  for (EgressPort* port : paused)
    for (size_t q = 0; q < port->num_queues(); ++q) port->set_paused(q, true);
  exp.run(Time{Delta::from_us(310).ps});
  for (EgressPort* port : paused) {
    for (size_t q = 0; q < port->num_queues(); ++q) port->set_paused(q, false);
    port->kick();
  }
  test::run_checked(exp);
  EXPECT_EQ(net.counters().drops, 0u);
  *downstream_reroutes = test::lb_stat(exp, "proteus_downstream_reroutes");
  return exp.transport().records()[0].fct().us();
}

TEST(ProteusScenario, RerouteDownstreamInAFatTree) {
  double better_moves = 0, never_moves = 0;
  const double better = downstream_fct_us("better_late", &better_moves);
  const double never = downstream_fct_us("never", &never_moves);
  std::printf("fat-tree: better_late %.0f us (%.0f downstream reroutes), never %.0f us\n", better,
              better_moves, never);
  EXPECT_GT(better_moves, 10);
  EXPECT_EQ(never_moves, 0);
  EXPECT_LT(better, never - 100);
}

// §III-B-1 against Alg. 1 (issue 55): each reading of when a flow may move, by the class
// (Table II) of the path each move left. Every packet: moves leave paths of any class;
// when_not_noncongested: never a non-congested one; when_congested: only congested ones.
TEST(ProteusAlg1, EachTriggerReadingMovesOnlyOffThePathsItNames) {
  auto moves_from = [](const std::string& reading) {
    ScenarioConfig c =
        load_scenario(std::string(ROCELAB_SOURCE_DIR) + "/scenarios/default.yaml",
                      {"lb=proteus", "workloads.0.stop=1ms", "lb.rtt_reroute=" + reading});
    Experiment exp(build_experiment(c));
    test::run_checked(exp);
    return std::array<double, 3>{test::lb_stat(exp, "proteus_rtt_reroutes_from_noncongested"),
                                 test::lb_stat(exp, "proteus_rtt_reroutes_from_undetermined"),
                                 test::lb_stat(exp, "proteus_rtt_reroutes_from_congested")};
  };
  const auto every = moves_from("every_packet");
  const auto not_non = moves_from("when_not_noncongested");
  const auto congested = moves_from("when_congested");
  std::printf(
      "moves from non-congested / undetermined / congested paths: every packet %.0f / "
      "%.0f / %.0f; when_not_noncongested %.0f / %.0f / %.0f; when_congested %.0f / "
      "%.0f / %.0f\n",
      every[0], every[1], every[2], not_non[0], not_non[1], not_non[2], congested[0], congested[1],
      congested[2]);
  EXPECT_GT(every[0], 0) << "Alg. 1 as written moves flows off uncongested paths";
  EXPECT_EQ(not_non[0], 0);
  EXPECT_GT(not_non[1] + not_non[2], 0);
  EXPECT_EQ(congested[0], 0);
  EXPECT_EQ(congested[1], 0);
}

// The invariants under PFC on a loaded fabric: nothing dropped, every flow done, the run
// repeatable to the byte; and the telemetry loop closed (every report sent is read).
TEST(ProteusScenario, InvariantsAndRepeatability) {
  auto run = [] {
    ScenarioConfig c = load_scenario(std::string(ROCELAB_SOURCE_DIR) + "/scenarios/default.yaml",
                                     {"lb=proteus", "workloads.0.stop=1ms"});
    ExperimentSpec spec = build_experiment(c);
    Experiment exp(spec);
    test::run_checked(exp);
    EXPECT_EQ(exp.network().counters().drops, 0u);
    EXPECT_GT(exp.network().counters().pause_frames, 0u) << "the incast should trigger PFC";
    EXPECT_GT(test::lb_stat(exp, "proteus_feedback_sent"), 1000);
    EXPECT_EQ(test::lb_stat(exp, "proteus_feedback_sent"),
              test::lb_stat(exp, "proteus_feedback_received"));
    std::vector<int64_t> fcts;
    for (const auto& r : exp.transport().records()) fcts.push_back(r.fct().ps);
    return fcts;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace rocelab
