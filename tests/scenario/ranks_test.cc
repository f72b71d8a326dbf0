// One run over several processes (issue 52): the members of an in-process rank group (a
// thread each, sim/ranks.h) run the protocol MPI ranks run (the cut links' frames traded as
// bytes, the windows agreed, the results gathered), and rank 0 writes the flows.csv,
// pfc_events.csv and summary.json (but its wall-clock and parallel fields) of one process.
// tests/cli/frontend_test.cc runs the same under mpirun.
#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "../cli_util.h"
#include "parallel_scenarios.h"
#include "scenario/build/experiment.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/yaml_params.h"
#include "scenario/run/runner.h"

namespace rocelab {
namespace {

struct Outcome {
  std::string flows_csv, pfc_csv;
  std::map<std::string, std::string> files;  // every file of the run directory but summary.json
  nlohmann::json summary;
  nlohmann::json parallel;
};

Outcome read_outcome(const std::filesystem::path& dir, nlohmann::json summary) {
  Outcome out;
  out.flows_csv = test::slurp((dir / "flows.csv").string());
  if (std::filesystem::exists(dir / "pfc_events.csv"))
    out.pfc_csv = test::slurp((dir / "pfc_events.csv").string());
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename() != "summary.json")
      out.files[entry.path().filename().string()] = test::slurp(entry.path().string());
  out.parallel = summary["parallel"];
  for (const char* key : {"wall_s", "events_per_s", "version", "parallel"}) summary.erase(key);
  out.summary = std::move(summary);
  return out;
}

// `ranks` ranks of `threads` threads each (0 ranks: one process, one thread).
Outcome run(const std::string& scenario, const std::string& schemes, uint32_t ranks,
            uint32_t threads = 1, std::vector<std::string> sets = {}) {
  for (const std::string& s : test::scheme_sets(schemes)) sets.push_back(s);
  const std::filesystem::path dir =
      test::temp_dir("ranks_" + std::to_string(ranks) + "x" + std::to_string(threads));
  nlohmann::json summary;
  if (ranks == 0) {
    ScenarioConfig c = load_scenario_text(scenario, "ranks.yaml", sets);
    RunOptions o;
    o.quiet = true;
    o.out_dir = dir.string();
    summary = run_scenario(c, o);
  } else {
    LocalRankGroup group(ranks);
    std::vector<std::exception_ptr> errors(ranks);
    std::vector<std::thread> members;
    for (uint32_t r = 0; r < ranks; ++r) {
      members.emplace_back([&, r] {
        try {
          const std::unique_ptr<RankGroup> me = group.member(r);
          ScenarioConfig c = load_scenario_text(scenario, "ranks.yaml", sets);
          RunOptions o;
          o.quiet = true;
          o.threads = threads;
          o.ranks = me.get();
          o.out_dir = dir.string();
          nlohmann::json s = run_scenario(c, o);
          if (r == 0) summary = std::move(s);
        } catch (...) {
          errors[r] = std::current_exception();
          group.fail();  // the others stop at their next collective
        }
      });
    }
    for (std::thread& t : members) t.join();
    // The first rank's own error (the others' may only say that it failed).
    for (const std::exception_ptr& e : errors) {
      if (!e) continue;
      try {
        std::rethrow_exception(e);
      } catch (const std::runtime_error& failed) {
        if (std::string(failed.what()) == "another rank of the group failed") continue;
        throw;
      }
    }
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }
  Outcome out = read_outcome(dir, std::move(summary));
  std::filesystem::remove_all(dir);
  return out;
}

void expect_same_over_ranks(const std::string& scenario, const std::string& schemes,
                            std::vector<uint32_t> rank_counts = {2, 3}) {
  SCOPED_TRACE(schemes);
  const Outcome one = run(scenario, schemes, 0);
  ASSERT_EQ(one.summary["invariants"], "ok");
  ASSERT_GT(one.summary["pfc_pause_frames"].get<uint64_t>(), 0u) << "the incast pauses links";
  for (const uint32_t ranks : rank_counts) {
    const Outcome many = run(scenario, schemes, ranks);
    EXPECT_EQ(many.flows_csv, one.flows_csv) << ranks << " ranks";
    EXPECT_EQ(many.pfc_csv, one.pfc_csv) << ranks << " ranks";
    EXPECT_EQ(many.summary.dump(1), one.summary.dump(1)) << ranks << " ranks";
    EXPECT_EQ(many.parallel["ranks"], ranks);
  }
}

// The scenario with `from` in it replaced by `to`.
std::string with(const std::string& scenario, const std::string& from, const std::string& to) {
  std::string s = scenario;
  s.replace(s.find(from), from.size(), to);
  return s;
}
const std::string kWithPfcLog = with(test::kScenario, "pfc_events: false", "pfc_events: true");

TEST(Ranks, LeafSpineGivesTheSameResultsOverTwoAndThreeRanks) {
  for (const char* schemes :
       {"ecmp+dcqcn", "flb+rc", "conweave+dcqcn", "letflow+hpcc", "ecmp+none+bfc"})
    expect_same_over_ranks(kWithPfcLog, schemes);
}

TEST(Ranks, FatTreeGivesTheSameResultsOverRanksOfSeveralThreads) {
  const Outcome one = run(test::kFatTree, "ecmp+dcqcn", 0);
  ASSERT_EQ(one.summary["invariants"], "ok");
  const Outcome many = run(test::kFatTree, "ecmp+dcqcn", 2, 2);
  EXPECT_EQ(many.flows_csv, one.flows_csv);
  EXPECT_EQ(many.summary.dump(1), one.summary.dump(1));
  EXPECT_EQ(many.parallel["threads"], 2);
  EXPECT_EQ(many.parallel["partitions"], 8) << "four per thread of each rank, one per edge";
  // Windows and their events are the same on every rank: the profile is the whole run's.
  EXPECT_GT(many.parallel["windows"].get<uint64_t>(), 100u);
}

TEST(Ranks, CollectiveAndPathPolicyFiguresGatherFromEveryRank) {
  // The ring's release across hosts keeps each rail's ring whole: two partitions, two ranks.
  expect_same_over_ranks(test::kRailCollective, "ecmp+dcqcn", {2});
  // Hermes' counters live at the senders: summed over the ranks as over partitions.
  expect_same_over_ranks(kWithPfcLog + "transport: {path_policy: hermes}\n", "ecmp+dcqcn");
}

// Scripted faults run on every rank, each acting on its own nodes: a link that fails with
// frames on it (the rank of its far end loses them), and a NIC that storms its switch with
// PAUSE frames; the deadlock detector (on with events) looks at every rank's queues; the
// PFC watchdog acts at its switch's rank, its log merged in one process's order.
TEST(Ranks, LinkFailureNicStallAndWatchdogGiveTheSameResultsOverRanks) {
  const std::string scenario = kWithPfcLog + R"(events:
  - {type: link_down, a: leaf1, b: spine0, at: 30us, until: 90us}
  - {type: nic_stall, host: h5, at: 50us, until: 80us}
faults:
  detection_delay: 10us
  pfc_watchdog: {enabled: true, detection_time: 10us, restoration_time: 20us}
)";
  const Outcome one = run(scenario, "ecmp+dcqcn", 0);
  ASSERT_GT(one.summary["faults"]["lost_data_packets"].get<uint64_t>(), 0u)
      << one.summary["faults"];
  ASSERT_GT(one.summary["faults"]["watchdog"]["storms"].get<uint64_t>(), 0u)
      << one.summary["faults"];
  ASSERT_EQ(one.summary["faults"]["routing_changes"].size(), 2u);
  expect_same_over_ranks(scenario, "ecmp+dcqcn");
  expect_same_over_ranks(scenario, "conweave+dcqcn", {3});
}

// One direction of a link fails while the other is paused from across it: the pause, whose
// XON the dead direction would carry, lapses after its time (a global event), and the port
// sends again, as its node's event, over a link cut between ranks. Its frames must reach the
// other rank (they were dropped there, and one packet leaked, before the fix).
TEST(Ranks, APauseThatLapsesSendsAcrossRanks) {
  const std::string scenario = kWithPfcLog + R"(events:
  - {type: link_down, a: leaf3, b: spine1, direction: b_to_a, at: 55us}
faults:
  detection_delay: 10us
)";
  expect_same_over_ranks(scenario, "ecmp+dcqcn");
}

// A routing change that closes a cycle of paused queues (scenarios/faults/ring5_chords.yaml,
// five switches each with a host, a partition each): the detector finds the same cycle at
// the same time over 2 and 3 ranks as in one process.
TEST(Ranks, DeadlockIsDetectedAtTheSameTimeOverRanks) {
  const std::string dir = std::string(ROCELAB_SOURCE_DIR) + "/scenarios/faults/";
  const std::string scenario =
      with(test::slurp(dir + "ring5_chords.yaml"), "ring5_chords.txt", dir + "ring5_chords.txt");
  const Outcome one = run(scenario, "ecmp+none", 0);
  ASSERT_TRUE(one.summary["faults"]["deadlock"]["detected"].get<bool>());
  for (const uint32_t ranks : {2u, 3u}) {
    const Outcome many = run(scenario, "ecmp+none", ranks);
    EXPECT_EQ(many.summary.dump(1), one.summary.dump(1)) << ranks << " ranks";
    EXPECT_EQ(many.pfc_csv, one.pfc_csv) << ranks << " ranks";
  }
}

// The samplers look at every rank's nodes: each rank samples its own, rank 0 writes them in
// one process's order (time series) or sums them up (switch buffers).
TEST(Ranks, TimeSeriesAndBufferSamplesAreThoseOfOneProcess) {
  const std::string scenario =
      with(kWithPfcLog, "pfc_events: true",
           "pfc_events: true, timeseries_interval: 5us, flow_throughput: true, "
           "link_utilization: true, path_throughput: true, queue_length: true, "
           "buffer_sample_interval: 5us");
  const Outcome one = run(scenario, "letflow+dcqcn", 0);
  ASSERT_EQ(one.files.count("ts_queue_length.csv"), 1u);
  ASSERT_GT(one.files.at("ts_queue_length.csv").size(), 1000u);
  ASSERT_GT(one.summary["switch_buffer"]["samples"].get<uint64_t>(), 100u);
  for (const uint32_t ranks : {2u, 3u}) {
    const Outcome many = run(scenario, "letflow+dcqcn", ranks);
    EXPECT_EQ(many.summary.dump(1), one.summary.dump(1)) << ranks << " ranks";
    ASSERT_EQ(many.files.size(), one.files.size());
    for (const auto& [name, text] : one.files)
      EXPECT_EQ(many.files.at(name), text) << name << ", " << ranks << " ranks";
  }
}

TEST(Ranks, WhatCannotRunOverRanksIsNamed) {
  auto error_of = [](const std::string& scenario, uint32_t ranks) {
    try {
      run(scenario, "ecmp+dcqcn", ranks);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(test::kRailCollective, 3).find("2 partitions, fewer than the 3 ranks"),
            std::string::npos);
}

TEST(Ranks, PartitionsAreDealtInContiguousRuns) {
  EXPECT_EQ(Experiment::deal_to_ranks(8, 3), (std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(Experiment::deal_to_ranks(4, 2), (std::vector<uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(Experiment::deal_to_ranks(3, 3), (std::vector<uint32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace rocelab
