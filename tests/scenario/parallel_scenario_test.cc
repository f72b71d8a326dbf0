// One run on several threads (issue 52): `rocelab run --threads N` writes the same
// flows.csv and summary.json (but its wall-clock and thread fields) for every N, 1 included,
// on more threads than this machine has cores too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../cli_util.h"
#include "parallel_scenarios.h"
#include "scenario/build/partition.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "scenario/run/runner.h"

namespace rocelab {
namespace {

using test::kFatTree;
using test::kRailCollective;
using test::kScenario;

struct Outcome {
  std::string flows_csv;
  nlohmann::json summary;
  nlohmann::json parallel;  // summary.json's parallel.*, stripped from `summary`
};

// The fields that say how the run ran, not what it simulated.
void strip_run_fields(nlohmann::json& s) {
  for (const char* key : {"wall_s", "events_per_s", "version", "threads", "setup_s", "parallel"})
    s.erase(key);
}

// Runs `c` quietly on `threads` threads, writing into `dir`; the summary.
nlohmann::json run_into(ScenarioConfig& c, uint32_t threads, const std::filesystem::path& dir,
                        uint32_t partitions = 0) {
  RunOptions o;
  o.quiet = true;
  o.threads = threads;
  o.partitions = partitions;
  o.out_dir = dir.string();
  return run_scenario(c, o);
}

Outcome run(const std::string& schemes, uint32_t threads, const std::string& dir_name,
            uint32_t partitions = 0, const std::string& scenario = kScenario) {
  ScenarioConfig c = load_scenario_text(scenario, "parallel.yaml", test::scheme_sets(schemes));
  const std::filesystem::path dir = test::temp_dir(dir_name + std::to_string(threads));
  Outcome out;
  out.summary = run_into(c, threads, dir, partitions);
  out.flows_csv = test::slurp((dir / "flows.csv").string());
  out.parallel = out.summary["parallel"];
  strip_run_fields(out.summary);
  std::filesystem::remove_all(dir);
  return out;
}

// `partitions`: how many the scenario's edge switches give on 2 threads and more.
void expect_same_on_any_threads(const std::string& schemes, const std::string& scenario = kScenario,
                                uint32_t partitions = 4) {
  SCOPED_TRACE(schemes);
  const Outcome one = run(schemes, 1, "par_" + schemes, 0, scenario);
  ASSERT_EQ(one.summary["invariants"], "ok");
  ASSERT_GT(one.summary["pfc_pause_frames"].get<uint64_t>(), 0u) << "the incast pauses links";
  ASSERT_GT(one.flows_csv.size(), 1000u);
  EXPECT_EQ(one.parallel["partitions"], 1);
  EXPECT_EQ(one.parallel["windows"], 0);
  for (const uint32_t threads : {2u, 3u, 4u, 8u}) {
    const Outcome many = run(schemes, threads, "par_" + schemes, 0, scenario);
    EXPECT_EQ(many.flows_csv, one.flows_csv) << threads << " threads";
    EXPECT_EQ(many.summary.dump(1), one.summary.dump(1)) << threads << " threads";
    EXPECT_EQ(many.parallel["threads"], std::min(threads, partitions)) << "no more than partitions";
    EXPECT_EQ(many.parallel["partitions"], std::min(partitions, threads * 4)) << threads;
  }
}

TEST(ParallelScenario, CollectiveOnARailFabricGivesTheSameResultsOnAnyThreads) {
  // A rank's next iteration waits for the delivery of its last send of the one before, a
  // release across hosts: each rail's ring (its leaves in both groups) is one partition.
  {
    ScenarioConfig c = load_scenario_text(kRailCollective, "parallel.yaml");
    Experiment exp(build_experiment(c));
    const auto pairs = exp.transport().dependent_host_pairs();
    EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{
                         {0, 2}, {0, 6}, {1, 3}, {1, 7}, {2, 4}, {3, 5}, {4, 6}, {5, 7}}));
  }
  expect_same_on_any_threads("ecmp+dcqcn", kRailCollective, 2);
  expect_same_on_any_threads("conweave+dcqcn", kRailCollective, 2);
}

TEST(ParallelScenario, FatTreeGivesTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads("ecmp+dcqcn", kFatTree, 8);
  expect_same_on_any_threads("letflow+hpcc", kFatTree, 8);
}

// parallel.partition: a fat-tree's pods (edge and aggregation switches together, cores
// round robin: only aggregation-core links cut), every switch alone on a leaf-spine, a rail
// fabric's rails; structure a topology lacks is refused by name, as is --partitions beside it.
TEST(ParallelScenario, PartitionByPodRailOrSwitchCutsWhereTheStructureIs) {
  {
    ScenarioConfig c = load_scenario_text(kFatTree, "parallel.yaml");
    Experiment exp(build_experiment(c));
    const Network& net = exp.network();
    const PartitionPlan plan = plan_partitions(net, 0, {}, PartitionBy::kPod);
    EXPECT_EQ(plan.count, 4u);
    const TopologySpec& topo = net.topology();
    for (const uint32_t l : plan.cut_links) {
      const LinkSpec& link = topo.links[l];
      const Layer a = topo.nodes[link.a].layer, b = topo.nodes[link.b].layer;
      EXPECT_TRUE((a == Layer::kAggregation && b == Layer::kCore) ||
                  (a == Layer::kCore && b == Layer::kAggregation))
          << topo.nodes[link.a].name << " - " << topo.nodes[link.b].name;
    }
    // 4 pods x 2 aggregation switches x 2 cores each: 16 links; each core sits with one
    // pod, whose link to it stays whole.
    EXPECT_EQ(plan.cut_links.size(), 12u);
    // The edge and aggregation switches of a pod (edge<2p>, edge<2p+1>, agg<2p>, agg<2p+1>).
    for (uint32_t pod = 0; pod < 4; ++pod)
      for (const std::string name : {"edge", "agg"})
        for (uint32_t k = 0; k < 2; ++k)
          EXPECT_EQ(plan.node_partition[topo.find(name + std::to_string(2 * pod + k))], pod)
              << name << 2 * pod + k;
  }
  {
    ScenarioConfig c = load_scenario_text(kScenario, "parallel.yaml");
    Experiment exp(build_experiment(c));
    const PartitionPlan plan = plan_partitions(exp.network(), 0, {}, PartitionBy::kSwitch);
    EXPECT_EQ(plan.count, 6u) << "4 leaves and 2 spines";
    EXPECT_EQ(plan.cut_links.size(), 8u) << "every leaf-spine link";
    for (const PartitionBy by : {PartitionBy::kPod, PartitionBy::kRail}) {
      try {
        plan_partitions(exp.network(), 0, {}, by);
        ADD_FAILURE() << "accepted";
      } catch (const std::invalid_argument& e) {
        const std::string want = by == PartitionBy::kPod ? "pod" : "rail";
        EXPECT_NE(std::string(e.what()).find("parallel.partition: " + want), std::string::npos)
            << e.what();
      }
    }
  }
  {
    ScenarioConfig c = load_scenario_text(kRailCollective, "parallel.yaml");
    Experiment exp(build_experiment(c));
    const PartitionPlan plan = plan_partitions(exp.network(), 0, {}, PartitionBy::kRail);
    EXPECT_EQ(plan.count, 2u) << "one per rail";
    const TopologySpec& topo = exp.network().topology();
    for (const NodeId h : exp.network().hosts())
      EXPECT_EQ(plan.node_partition[h.index()], topo.nodes[h.index()].nic) << h.index();
  }
  ScenarioConfig c = load_scenario_text(kFatTree, "parallel.yaml", {"parallel.partition=pod"});
  Experiment exp(build_experiment(c));
  EXPECT_THROW(exp.set_threads(2, 3), std::invalid_argument) << "--partitions beside pod";
  EXPECT_THROW(load_scenario_text(kFatTree, "parallel.yaml", {"parallel.partition=pods"}),
               ConfigError);
}

// A rail fabric with a third tier: two rails (leaves rail0, rail1, each with NIC i of two
// servers), three aggregation switches above both leaves, one core above those. The
// aggregation switches see both rails below them and go round robin (0, 1, 0); so does the
// core, which sees only switches of several partitions (1): it is not taken for a follower
// of partition 0, where the aggregation switches' partitions had not been set yet.
TEST(ParallelScenario, PartitionByRailDealsSwitchesAboveSeveralRailsRoundRobin) {
  TopologySpec t;
  for (uint32_t server = 0; server < 2; ++server)
    for (uint16_t nic = 0; nic < 2; ++nic) {
      const uint32_t h =
          t.add_node(NodeKind::kHost, Layer::kHost, "h" + std::to_string(server * 2 + nic));
      t.nodes[h].server = server;
      t.nodes[h].nic = nic;
    }
  const uint32_t rail0 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "rail0");
  const uint32_t rail1 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "rail1");
  const BitsPerSec rate = gbps(100);
  const Delta delay = Delta::from_us(1);
  for (uint32_t h = 0; h < 4; ++h) t.add_link(h, h % 2 == 0 ? rail0 : rail1, rate, delay);
  std::vector<uint32_t> aggs;
  for (int a = 0; a < 3; ++a) {
    aggs.push_back(t.add_node(NodeKind::kSwitch, Layer::kAggregation, "agg" + std::to_string(a)));
    t.add_link(rail0, aggs.back(), rate, delay);
    t.add_link(rail1, aggs.back(), rate, delay);
  }
  const uint32_t core = t.add_node(NodeKind::kSwitch, Layer::kCore, "core");
  for (const uint32_t a : aggs) t.add_link(a, core, rate, delay);
  ExperimentSpec spec;
  spec.topology = t;
  Experiment exp(spec);
  const PartitionPlan plan = plan_partitions(exp.network(), 0, {}, PartitionBy::kRail);
  ASSERT_EQ(plan.count, 2u);
  EXPECT_EQ(plan.node_partition[rail0], 0u);
  EXPECT_EQ(plan.node_partition[rail1], 1u);
  EXPECT_EQ(plan.node_partition[aggs[0]], 0u);
  EXPECT_EQ(plan.node_partition[aggs[1]], 1u);
  EXPECT_EQ(plan.node_partition[aggs[2]], 0u);
  EXPECT_EQ(plan.node_partition[core], 1u) << "dealt round robin after the aggregation switches";
}

TEST(ParallelScenario, PartitionByPodOrRailGivesTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads("ecmp+dcqcn", kFatTree + "parallel: {partition: pod}\n", 4);
  expect_same_on_any_threads("ecmp+dcqcn", kRailCollective + "parallel: {partition: rail}\n", 2);
  expect_same_on_any_threads("ecmp+dcqcn", kScenario + "parallel: {partition: switch}\n", 6);
}

// Flows that release flows of other hosts at once: those hosts' leaves share a partition
// (h0 on leaf 0 releases h8's flow on leaf 2, h12 on leaf 3 releases h4's on leaf 1), and
// the results are the same.
TEST(ParallelScenario, FlowsReleasedAcrossLeavesKeepTheirHostsTogether) {
  const auto dir = test::temp_dir("par_dag");
  const std::string trace = (dir / "dag.csv").string();
  {
    std::ofstream out(trace);
    out << "id,src,dst,size_bytes,start_ns,tag,sport,dport,path,after,after_delay_ns,behind\n"
        << "0,4,0,200000,0,dag,,,,,,\n"        // h4 -> h0: delivered at h0 (leaf 0)
        << "1,0,8,150000,0,dag,,,,0,,\n"       // h0 -> h8, once 0 is at h0: same host
        << "2,8,12,150000,0,dag,,,,1,,\n"      // h8 -> h12, once 1 is at h8: same host
        << "3,4,12,100000,0,dag,,,,2,2000,\n"  // h4 (leaf 1) after 2 reached h12 (leaf 3)
        << "4,9,1,100000,0,dag,,,,0,,\n";      // h9 (leaf 2) after 0 reached h0 (leaf 0)
  }
  std::string scenario = kScenario;
  scenario.insert(scenario.find("  - name: incast"),
                  "  - {name: dag, type: trace, file: " + trace + "}\n");
  ScenarioConfig c = load_scenario_text(scenario, "parallel.yaml");
  Experiment exp(build_experiment(c));
  // Node ids: hosts h0..h15 are 0..15 (4 per leaf).
  const auto pairs = exp.transport().dependent_host_pairs();
  EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 9}, {4, 12}}));
  exp.set_threads(4);
  ASSERT_TRUE(exp.sim().parallel());
  EXPECT_EQ(exp.sim().partition_count(), 2u) << "leaves 0 and 2 together, 1 and 3 together";
  expect_same_on_any_threads("ecmp+dcqcn", scenario, 2);
  std::filesystem::remove_all(dir);
}

// Every file of the run directory: the PFC event log (records of several partitions merged
// into the serial order), the time series and the buffer samples (global events).
TEST(ParallelScenario, EveryOutputFileIsTheSameOnAnyThreads) {
  auto files_of = [](uint32_t threads) {
    ScenarioConfig c =
        load_scenario_text(kScenario, "parallel.yaml",
                           {"outputs.pfc_events=true", "outputs.timeseries_interval=5us",
                            "outputs.buffer_sample_interval=5us", "outputs.flow_throughput=true",
                            "outputs.link_utilization=true", "outputs.queue_length=true"});
    const auto dir = test::temp_dir("par_files" + std::to_string(threads));
    nlohmann::json summary = run_into(c, threads, dir);
    strip_run_fields(summary);
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().filename() != "summary.json")
        files[entry.path().filename().string()] = test::slurp(entry.path().string());
    files["summary.json"] = summary.dump(1);
    std::filesystem::remove_all(dir);
    return files;
  };
  const auto one = files_of(1);
  ASSERT_TRUE(one.count("pfc_events.csv"));
  EXPECT_GT(std::count(one.at("pfc_events.csv").begin(), one.at("pfc_events.csv").end(), '\n'), 20);
  ASSERT_TRUE(one.count("ts_queue_length.csv"));
  for (const uint32_t threads : {2u, 3u, 8u}) {
    const auto many = files_of(threads);
    ASSERT_EQ(many.size(), one.size());
    for (const auto& [name, text] : one) EXPECT_EQ(many.at(name), text) << name << ", " << threads;
  }
}

// A link that fails and comes back under load, with the PFC watchdog on and the deadlock
// detector (on by default with events): scripted faults run between windows, the pauses'
// requests to the watchdog and the detector are merged after each window.
TEST(ParallelScenario, LinkFailureWithWatchdogGivesTheSameResultsOnAnyThreads) {
  std::string scenario = kScenario;
  scenario += R"(events:
  - {type: link_down, a: leaf1, b: spine0, at: 30us, until: 90us}
faults:
  detection_delay: 10us
  pfc_watchdog: {enabled: true, detection_time: 20us, restoration_time: 20us}
  deadlock: {check_interval: 5us, persist: 10us}
)";
  const Outcome one = run("ecmp+dcqcn", 1, "par_fault", 0, scenario);
  ASSERT_GT(one.summary["faults"]["lost_data_packets"].get<uint64_t>(), 0u)
      << one.summary["faults"];
  expect_same_on_any_threads("ecmp+dcqcn", scenario, 4);
}

// A routing change that closes a cycle of paused queues (scenarios/faults/ring5_chords.yaml,
// five switches each with a host): the detector finds the same cycle at the same time on any
// number of threads.
TEST(ParallelScenario, DeadlockIsDetectedAtTheSameTimeOnAnyThreads) {
  auto deadlock_on = [](uint32_t threads) {
    ScenarioConfig c =
        load_scenario(std::string(ROCELAB_SOURCE_DIR) + "/scenarios/faults/ring5_chords.yaml", {});
    const auto dir = test::temp_dir("par_ring" + std::to_string(threads));
    nlohmann::json s = run_into(c, threads, dir);
    EXPECT_EQ(s["parallel"]["partitions"], threads == 1 ? 1 : 5) << threads;
    strip_run_fields(s);
    s["pfc_events.csv"] = test::slurp((dir / "pfc_events.csv").string());
    std::filesystem::remove_all(dir);
    return s;
  };
  const nlohmann::json one = deadlock_on(1);
  ASSERT_TRUE(one["faults"]["deadlock"]["detected"].get<bool>());
  EXPECT_EQ(one["faults"]["deadlock"]["cycle"].size(), 5u);
  for (const uint32_t threads : {2u, 3u, 5u}) EXPECT_EQ(deadlock_on(threads), one) << threads;
}

// The detector's looks follow the first pause after each look, whichever partition paused:
// as many looks, at the same times, on any partitioning.
TEST(ParallelScenario, DeadlockChecksAreTheSerialRunsOnAnyPartitioning) {
  std::string scenario = kScenario;
  scenario += R"(events:
  - {type: link_down, a: leaf1, b: spine0, at: 30us, until: 90us}
faults: {deadlock: {check_interval: 2us, persist: 2us}}
)";
  auto checks_on = [&](uint32_t partitions) {
    ScenarioConfig c = load_scenario_text(scenario, "parallel.yaml");
    Experiment exp(build_experiment(c));
    exp.set_threads(1, partitions);
    exp.run(Time{Delta::from_ms(50).ps});
    return std::make_pair(exp.faults()->deadlock_checks(), exp.sim().now());
  };
  const auto serial = checks_on(1);
  EXPECT_GT(serial.first.size(), 3u);
  for (const uint32_t partitions : {2u, 3u, 4u})
    EXPECT_EQ(checks_on(partitions), serial) << partitions;
}

// The watchdog's timers are its switch's own events: one faster than a window (the cut
// links' 1 us) runs inside the partition, with the same results on any threads.
TEST(ParallelScenario, AWatchdogFasterThanAWindowGivesTheSameResults) {
  std::string scenario = kScenario;
  scenario += R"(faults:
  pfc_watchdog: {enabled: true, detection_time: 500ns, restoration_time: 2us}
)";
  const Outcome one = run("ecmp+dcqcn", 1, "par_wd", 0, scenario);
  ASSERT_GT(one.summary["faults"]["watchdog"]["storms"].get<uint64_t>(), 10u)
      << one.summary["faults"];
  // A watchdog this quick lets its queues send into paused peers, whose headroom then
  // overflows (10 drops, as at 49ac96a, when its timers were global events): the drops too
  // must be the same on any threads.
  for (const uint32_t threads : {2u, 3u, 8u}) {
    const Outcome many = run("ecmp+dcqcn", threads, "par_wd", 0, scenario);
    EXPECT_EQ(many.flows_csv, one.flows_csv) << threads << " threads";
    EXPECT_EQ(many.summary.dump(1), one.summary.dump(1)) << threads << " threads";
    EXPECT_EQ(many.parallel["partitions"], 4) << threads;
  }
}

// Cut links of unequal delays (an ns-3 topology file: host links 500 ns, leaf-spine links of
// 1.3-2.6 us) and a leaf whose hosts stay idle for the first 300 us (its partition has no
// events for a hundred windows and more): the lookahead is the shortest cut link, and the
// results are the same on any threads.
TEST(ParallelScenario, UnequalCutDelaysAndAnIdlePartitionGiveTheSameResults) {
  const auto dir = test::temp_dir("par_unequal");
  const std::string topo = (dir / "topo.txt").string();
  {
    std::ofstream out(topo);
    out << "14 6 16\n8 9 10 11 12 13\n";
    for (int h = 0; h < 8; ++h) out << h << ' ' << 8 + h / 2 << " 100Gbps 500ns 0\n";
    const char* delays[4][2] = {
        {"1300ns", "2600ns"}, {"1700ns", "1400ns"}, {"2100ns", "1900ns"}, {"1500ns", "2300ns"}};
    for (int leaf = 0; leaf < 4; ++leaf)
      for (int spine = 0; spine < 2; ++spine)
        out << 8 + leaf << ' ' << 12 + spine << " 100Gbps " << delays[leaf][spine] << " 0\n";
  }
  const std::string scenario = "name: unequal\nseed: 4\ntopology: {type: ns3, file: " + topo +
                               R"(}
switch: {buffer: 1MB}
workloads:
  - {name: background, type: poisson, cdf: fb_webserver, load: 0.5, stop: 100us,
     hosts: [h0, h1, h2, h3, h4, h5]}
  - {name: incast, type: incast, senders: h2..h5, receiver: h0, total_size: 1200KB, start: 40us}
  - name: late
    type: flows
    flows:
      - {src: h6, dst: h0, size: 300KB, start: 300us}
      - {src: h7, dst: h2, size: 300KB, start: 300us}
outputs: {flows_csv: true, pfc_events: false}
)";
  ScenarioConfig c = load_scenario_text(scenario, "unequal.yaml");
  Experiment exp(build_experiment(c));
  exp.set_threads(2, 4);
  ASSERT_TRUE(exp.sim().parallel());
  EXPECT_EQ(exp.sim().partition_count(), 4u);
  // The spines go round robin to partitions 0 and 1: leaf0-spine0 (1.3 us) and
  // leaf1-spine1 (1.4 us) are inside a partition, and the shortest cut link is leaf3-spine0.
  EXPECT_EQ(exp.sim().lookahead(), Delta::from_ns(1500)) << "the shortest cut link";
  const RunStats st = exp.run(Time{Delta::from_ms(50).ps});
  ASSERT_TRUE(st.done);
  // h6 and h7's leaf: nothing before 300 us, when the others' traffic is long done.
  const ParallelProfile& prof = exp.sim().parallel_profile();
  const uint32_t idle = plan_partitions(exp.network(), 4).node_partition[6];  // h6's
  EXPECT_LT(prof.partition_events[idle] * 5, prof.node_events);
  expect_same_on_any_threads("ecmp+dcqcn", scenario, 4);
  std::filesystem::remove_all(dir);
}

TEST(ParallelScenario, ThreadsCutTheNetworkAtItsEdgeSwitches) {
  ScenarioConfig c = load_scenario_text(kScenario, "parallel.yaml");
  Experiment exp(build_experiment(c));
  exp.set_threads(3);
  ASSERT_TRUE(exp.sim().parallel());
  EXPECT_EQ(exp.sim().partition_count(), 4u) << "one per leaf, its hosts with it";
  EXPECT_EQ(exp.sim().thread_count(), 3u);
  EXPECT_EQ(exp.sim().lookahead(), Delta::from_us(1));
  const RunStats st = exp.run(Time{Delta::from_ms(50).ps});
  EXPECT_TRUE(st.done);
  const ParallelProfile& prof = exp.sim().parallel_profile();
  EXPECT_GT(prof.windows, 100u);
  EXPECT_EQ(prof.node_events + prof.global_events, st.events);
  for (const uint64_t n : prof.partition_events) EXPECT_GT(n, 1000u);
  // The model of more cores: 2 cores carry at least half of each window and at least its
  // busiest partition; 4 cores or more, a core per partition: the busiest partition.
  const uint64_t two_cores = prof.makespan_events[0];
  EXPECT_GE(two_cores * 2, prof.node_events);
  EXPECT_GT(two_cores, prof.critical_path_events);
  EXPECT_LT(two_cores, prof.node_events);
  for (size_t m = 1; m < ParallelProfile::kModelCores.size(); ++m)
    EXPECT_EQ(prof.makespan_events[m], prof.critical_path_events) << m;
}

// BFC beside a link that fails for good: the same results on any threads, and neither end
// sends a filter (or anything) into the dead link.
TEST(ParallelScenario, BfcWithALinkDownSendsNothingIntoItOnAnyThreads) {
  const std::string scenario = kScenario + R"(events:
  - {type: link_down, a: leaf1, b: spine0, at: 30us}
faults: {detection_delay: 10us}
)";
  expect_same_on_any_threads("ecmp+none+bfc", scenario, 4);
  ScenarioConfig c = load_scenario_text(scenario, "parallel.yaml", {"fc=bfc", "cc=none"});
  Experiment exp(build_experiment(c));
  const Network& net = exp.network();
  const TopologySpec& topo = net.topology();
  auto port_to = [&](const char* from, const char* to) -> const EgressPort& {
    const Node& node = net.node(NodeId(topo.find(from)));
    for (size_t p = 0; p < node.port_count(); ++p) {
      const EgressPort& port = node.port(PortId(static_cast<uint16_t>(p)));
      if (port.peer()->id().index() == topo.find(to)) return port;
    }
    throw std::logic_error("no link");
  };
  exp.run(Time{Delta::from_us(45).ps});  // past the detection: rerouted
  const uint64_t up = port_to("leaf1", "spine0").counters().tx_bytes;
  const uint64_t down = port_to("spine0", "leaf1").counters().tx_bytes;
  EXPECT_GT(up, 0u);
  const RunStats st = exp.run(Time{Delta::from_ms(50).ps});
  EXPECT_TRUE(st.done);
  EXPECT_EQ(port_to("leaf1", "spine0").counters().tx_bytes, up);
  EXPECT_EQ(port_to("spine0", "leaf1").counters().tx_bytes, down);
}

// The host path policies draw from one stream per sender and keep their tables per host.
TEST(ParallelScenario, HostPathPoliciesGiveTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads(
      "ecmp+dcqcn", kScenario + "transport: {path_policy: spray, recovery: selective_repeat}\n");
  expect_same_on_any_threads("ecmp+dcqcn", kScenario + "transport: {path_policy: hermes}\n");
  expect_same_on_any_threads("ecmp+none",
                             kScenario + "transport: {path_policy: mprdma, recovery: bitmap}\n");
}

// BFC's filter frames cross the cut links: each carries a snapshot put in one partition and
// read and released in another's next window.
TEST(ParallelScenario, BfcGivesTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads("ecmp+none+bfc");
  const Outcome one = run("ecmp+none+bfc", 1, "par_bfc_filters");
  uint64_t filters = 0, pauses = 0;
  for (const auto& [key, value] : one.summary["fc_stats"].items()) {
    if (key == "bfc.filter_frames") filters = value.get<uint64_t>();
    if (key == "bfc.pauses") pauses = value.get<uint64_t>();
  }
  EXPECT_GT(filters, 1000u);
  EXPECT_GT(pauses, 10u) << "the incast pauses flows per hop";
}

TEST(ParallelScenario, EcmpDcqcnGivesTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads("ecmp+dcqcn");
}

// Partitions on one thread: the parallel engine's windows run one after another, with the
// same results, and the profile a machine with a core per partition would see.
TEST(ParallelScenario, PartitionsOnOneThreadGiveTheSameResults) {
  const Outcome serial = run("ecmp+dcqcn", 1, "part_serial");
  const Outcome cut = run("ecmp+dcqcn", 1, "part_cut", 2);
  EXPECT_EQ(cut.flows_csv, serial.flows_csv);
  EXPECT_EQ(cut.summary.dump(1), serial.summary.dump(1));
  EXPECT_EQ(cut.parallel["threads"], 1);
  EXPECT_EQ(cut.parallel["partitions"], 2) << "two runs of two leaves";
  EXPECT_EQ(cut.parallel["lookahead_ns"], 1000.0);
  EXPECT_GT(cut.parallel["windows"].get<uint64_t>(), 100u);
  // Two partitions: the busiest holds at least half of each window's events.
  const double share = cut.parallel["critical_path_share"].get<double>();
  EXPECT_GE(share, 0.5);
  EXPECT_LT(share, 1.0);
  // barrier_wait_s is what is left of run_s after the timed steps, so on a loaded machine
  // it holds the timer's noise (4 ms of a 32 ms run was seen under a parallel build); a thread
  // that waited for a missing second one would hold most of the run.
  EXPECT_LE(cut.parallel["barrier_wait_s"].get<double>(),
            cut.parallel["run_s"].get<double>() * 0.25 + 2e-3)
      << "one thread waits for no other";
}

// The switch load balancers keep their state per switch: each runs where its switch is.
TEST(ParallelScenario, SwitchLoadBalancersGiveTheSameResultsOnAnyThreads) {
  for (const char* schemes :
       {"letflow+hpcc", "conweave+dcqcn", "flb+dcqcn", "flb+rc", "drill+dcqcn", "conga+dcqcn",
        "proteus+dcqcn", "lbodsn+dcqcn", "rps+timely"})
    expect_same_on_any_threads(schemes);
}

}  // namespace
}  // namespace rocelab
