// Whole-scenario properties: determinism, invariants under load for every combination of
// load balancer and congestion control, and load-balancer behaviour. Per-scheme properties
// (YAML round trip, invariants, no allocation, documentation) are in registry_test.cc.
#include <gtest/gtest.h>

#include <set>

#include "cc/cc_registry.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "lb/letflow.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "test_util.h"
#include "workload/flow_size_cdf.h"
#include "workload/poisson.h"

namespace rocelab {
namespace {

ExperimentSpec loaded_leaf_spine(const std::string& lb, const std::string& cc, uint64_t seed) {
  ExperimentSpec spec;
  LeafSpineParams ls;
  ls.leaves = 4;
  ls.spines = 4;
  ls.hosts_per_leaf = 8;
  spec.topology = leaf_spine(ls);
  spec.network.seed = seed;
  spec.network.switch_config.buffer_bytes = 4 * 1000 * 1000;
  spec.lb = lb;
  spec.cc = cc;
  const FlowSizeCdf cdf =
      FlowSizeCdf::load(std::string(ROCELAB_SOURCE_DIR) + "/workloads/fb_webserver.cdf");
  PoissonParams pp;
  for (uint32_t h : spec.topology.hosts()) {
    pp.hosts.push_back(h);
    pp.host_rack.push_back(h / ls.hosts_per_leaf);
  }
  pp.host_rate_bps = ls.host_rate_bps;
  pp.load = 0.6;
  pp.start = Time::zero();
  pp.stop = Time{Delta::from_us(300).ps};
  RandomStream rng(seed, "workload");
  spec.flows = generate_poisson(pp, cdf, rng);
  // An incast on top, so that PFC is exercised.
  for (uint32_t i = 8; i < 24; ++i)
    spec.flows.push_back(test::flow(i, 0, 200 * 1000, Time{Delta::from_us(100).ps}, "incast"));
  return spec;
}

class EveryScheme : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(EveryScheme, InvariantsHoldUnderLoadAndIncast) {
  const auto& [lb, cc] = GetParam();
  Experiment exp(loaded_leaf_spine(lb, cc, 11));
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
  EXPECT_GT(exp.transport().flow_count(), 100u);
}

INSTANTIATE_TEST_SUITE_P(LbCc, EveryScheme,
                         ::testing::Combine(::testing::Values("ecmp", "rps", "letflow", "drill",
                                                              "conga", "conweave"),
                                            ::testing::Values("none", "dcqcn", "dcqcn_win", "hpcc",
                                                              "timely", "swift", "pcn")));

// The host path policies (spraying, Hermes' source routes) under every congestion control.
class EveryHostPathPolicy : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
};

TEST_P(EveryHostPathPolicy, InvariantsHoldUnderLoadAndIncast) {
  const auto& [policy, cc] = GetParam();
  ExperimentSpec spec = loaded_leaf_spine("ecmp", cc, 11);
  spec.transport.path_policy = policy;
  Experiment exp(spec);
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
}

INSTANTIATE_TEST_SUITE_P(PolicyCc, EveryHostPathPolicy,
                         ::testing::Combine(::testing::Values("spray", "hermes"),
                                            ::testing::Values("none", "dcqcn", "hpcc", "swift",
                                                              "pcn")));

TEST(MpRdmaUnderLoad, InvariantsHold) {
  ExperimentSpec spec = loaded_leaf_spine("ecmp", "none", 11);
  spec.transport.path_policy = "mprdma";
  spec.transport.recovery = "bitmap";
  Experiment exp(spec);
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
}

TEST(Determinism, SameSeedSameFlowResults) {
  auto run = [](uint64_t seed) {
    Experiment exp(loaded_leaf_spine("letflow", "dcqcn", seed));
    exp.run(Time{Delta::from_ms(500).ps});
    std::vector<int64_t> out;
    for (const FlowRecord& r : exp.transport().records()) out.push_back(r.finish.ps);
    out.push_back(static_cast<int64_t>(exp.sim().events_processed()));
    return out;
  };
  const auto a = run(5), b = run(5), c = run(6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(LoadBalancing, EcmpPinsAFlowRpsSpreadsIt) {
  auto spine_bytes = [](const std::string& lb) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 4, 1);
    spec.lb = lb;
    spec.flows = {test::flow(0, 1, 4 * 1000 * 1000)};
    Experiment exp(spec);
    test::run_checked(exp);
    std::vector<uint64_t> bytes;
    Switch& leaf0 = exp.network().switch_at(NodeId(spec.topology.find("leaf0")));
    for (PortId p :
         exp.network().routing().next_hops(leaf0.id().index(), spec.topology.find("leaf1")))
      bytes.push_back(leaf0.port(p).counters().tx_data_bytes);
    return bytes;
  };
  const auto ecmp = spine_bytes("ecmp");
  EXPECT_EQ(std::count_if(ecmp.begin(), ecmp.end(), [](uint64_t b) { return b > 0; }), 1);
  const auto rps = spine_bytes("rps");
  const double total = static_cast<double>(rps[0] + rps[1] + rps[2] + rps[3]);
  for (uint64_t b : rps) EXPECT_NEAR(static_cast<double>(b) / total, 0.25, 0.02);
}

TEST(LoadBalancing, LetFlowBackToBackFlowIsOneFlowlet) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 1);
  spec.lb = "letflow";
  spec.flows = {test::flow(0, 1, 2 * 1000 * 1000)};
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_EQ(exp.transport().counters().out_of_order_packets, 0u);
  Switch& leaf0 = exp.network().switch_at(NodeId(spec.topology.find("leaf0")));
  int used = 0;
  for (PortId p :
       exp.network().routing().next_hops(leaf0.id().index(), spec.topology.find("leaf1")))
    used += leaf0.port(p).counters().tx_data_bytes > 0;
  EXPECT_EQ(used, 1);
}

// Advances a simulator's clock by scheduling a no-op event.
struct Tick : EventHandler {
  void on_event(uint32_t, uint64_t) override {}
};

TEST(LoadBalancing, LetFlowRepicksOnlyAfterTheFlowletTimeout) {
  const TopologySpec t = test::small_leaf_spine(2, 4, 1);
  Simulator sim;
  Network net(sim, t, NetworkConfig{});
  Switch& leaf0 = net.switch_at(NodeId(t.find("leaf0")));
  const auto hops = net.routing().next_hops(leaf0.id().index(), t.find("leaf1"));
  LetFlow lf(leaf0.view(), LetFlowConfig{});  // 50 us timeout
  Tick tick;
  const uint32_t tick_id = sim.add_handler(&tick);
  const PacketId pkt = net.context().alloc_packet();
  net.context().pkt(pkt).flow_hash = 1234;
  auto choice_at = [&](Delta t_since_start) {
    sim.schedule(Time::zero() + t_since_start, tick_id, 0);
    sim.run_until(Time::zero() + t_since_start);
    return lf.choose_egress(leaf0.view(), net.context().pkt(pkt), hops).index();
  };
  std::set<uint16_t> within, across;
  const uint16_t first = choice_at(Delta::zero());
  for (int i = 1; i <= 100; ++i) within.insert(choice_at(Delta::from_us(40) * i));
  EXPECT_EQ(within, std::set<uint16_t>{first}) << "gaps of 40 us < 50 us keep the flowlet";
  for (int i = 1; i <= 100; ++i) across.insert(choice_at(Delta::from_us(4000 + 60 * i)));
  EXPECT_GT(across.size(), 2u) << "gaps of 60 us start new flowlets on random next hops";
  EXPECT_EQ(lf.flowlets_started(), 101u);
  std::vector<SchemeStat> stats;  // summary.json lb_stats.letflow_flowlets
  lf.add_stats(stats);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].name, "letflow_flowlets");
  EXPECT_EQ(stats[0].value, 101.0);
  net.context().free_packet(pkt);
}

// A buffer must exceed what the MMU sets aside per port: headroom per lossless class and
// the pool reserve. A leaf here has 2 ports: 2 x (10 KB + 10 KB) = 40 KB set aside, so a
// 30 KB buffer (more than the headroom alone) is refused, naming the key.
TEST(PfcBuffer, ABufferNotAboveHeadroomAndReserveIsRefused) {
  const std::string base =
      "topology: {type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 1}\n"
      "fc: {name: pfc, headroom: 10KB, pool_reserve_per_port: 10KB}\n"
      "workloads: [{name: w, type: flows, flows: [{src: h0, dst: h1, size: 1KB, start: 0}]}]\n";
  ScenarioConfig ok = load_scenario_text(base + "switch: {buffer: 41KB}\n", "b.yaml");
  EXPECT_NO_THROW(build_experiment(ok));
  ScenarioConfig small = load_scenario_text(base + "switch: {buffer: 30KB}\n", "b.yaml");
  try {
    build_experiment(small);
    ADD_FAILURE() << "a 30 KB buffer was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("switch.buffer"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("40000 B"), std::string::npos) << e.what();
  }
}

// The schemes the papers rocelab reproduces compare are there by name (a subset: adding a
// scheme does not break this test, removing or renaming one does).
TEST(Registry, ListsThePapersSchemes) {
  auto has_all = [](const std::vector<std::string>& names, std::set<std::string> want) {
    for (const auto& n : names) want.erase(n);
    return want;
  };
  EXPECT_EQ(has_all(lb_registry().names(),
                    {"conga", "conweave", "drill", "ecmp", "flb", "letflow", "proteus", "rps"}),
            std::set<std::string>{});
  EXPECT_EQ(
      has_all(cc_registry().names(), {"dcqcn", "hpcc", "none", "pcn", "rc", "swift", "timely"}),
      std::set<std::string>{});
  EXPECT_EQ(has_all(fc_registry().names(), {"bfc", "none", "pfc", "sfq"}), std::set<std::string>{});
}

}  // namespace
}  // namespace rocelab

namespace rocelab {
namespace {

// An event that schedules itself again every microsecond, forever: a drain after it never
// empties the event list.
struct Forever final : EventHandler {
  Simulator* sim = nullptr;
  uint32_t id = 0;
  void on_event(uint32_t, uint64_t) override { sim->schedule_in(Delta::from_us(1), id, 0); }
};

// The drain runs in chunks and asks before each whether to go on (Ctrl-C during the drain):
// a drain that would never end stops at the first "no", with its events still queued; an
// ordinary one empties the list.
TEST(Drain, AnEndlessDrainStopsWhenAsked) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 10'000)};
  Experiment exp(spec);
  Forever forever;
  forever.sim = &exp.sim();
  forever.id = exp.sim().add_handler(&forever);
  exp.sim().schedule_in(Delta::from_us(1), forever.id, 0);
  exp.run();
  ASSERT_EQ(exp.transport().counters().flows_finished, 1u);
  int asked = 0;
  EXPECT_FALSE(exp.drain([&] { return ++asked < 5; }));
  EXPECT_EQ(asked, 5);
  EXPECT_GT(exp.sim().pending_events(), 0u);
  EXPECT_GT(exp.sim().now(), Time{Delta::from_us(100).ps}) << "four chunks went by";

  Experiment plain(spec);
  plain.run();
  EXPECT_TRUE(plain.drain([] { return true; }));
  EXPECT_EQ(plain.sim().pending_events(), 0u);
}

}  // namespace
}  // namespace rocelab
