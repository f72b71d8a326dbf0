// The results schema (python/rocelab/schema.json) against what the writers write: every key
// of a summary is defined and every defined key is written, flows.csv's header is the
// schema's, the headline keys resolve, and docs/output.md's tables are the schema's.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "../cli_util.h"
#include "scenario/config/scenario_config.h"
#include "scenario/results/schema.h"
#include "scenario/run/runner.h"

namespace rocelab {
namespace {

void flatten(const nlohmann::json& j, const std::string& prefix, std::set<std::string>& out) {
  if (!j.is_object()) {
    out.insert(prefix);
    return;
  }
  for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
}

// LetFlow (reports lb_stats) on a small leaf-spine with two workloads, buffer sampling on.
nlohmann::json run_small(const std::filesystem::path& dir) {
  ScenarioConfig c = load_scenario(std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios/tiny.yaml",
                                   {"outputs.buffer_sample_interval=5us", "outputs.flows_csv=true",
                                    "outputs.timeseries_interval=0"});
  RunOptions o;
  o.quiet = true;
  o.out_dir = dir.string();
  return run_scenario(c, o);
}

// A run with two collective jobs, for their keys and collectives.csv.
nlohmann::json run_collectives(const std::filesystem::path& dir) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: rail_optimized, servers: 2, nics_per_server: 2, spines: 2}
workloads:
  - {name: ar, type: collective, op: all_reduce, ranks: all, size: 40KB, iterations: 2}
  - {name: a2a, type: collective, op: all_to_all, ranks: all, size: 40KB}
)",
                                        "collectives.yaml");
  RunOptions o;
  o.quiet = true;
  o.out_dir = dir.string();
  return run_scenario(c, o);
}

// A run with faults (a failed link, a NIC stall under a watchdog), for faults.*; under the
// ConWeave-ns3 pause style and egress threshold, for pfc_lapse_* and egress_threshold_*.
nlohmann::json run_faults(const std::filesystem::path& dir) {
  ScenarioConfig c = load_scenario(
      std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios/tiny.yaml",
      {"events=[{type: link_down, a: leaf0, b: spine0, at: 20us, until: 60us}, "
       "{type: nic_stall, host: h1, at: 10us, until: 40us}]",
       "faults.pfc_watchdog={enabled: true, detection_time: 5us, restoration_time: 5us}",
       "faults.detection_delay=10us", "outputs.timeseries_interval=0", "fc.pause_style=per_packet",
       "fc.egress_alpha=1"});
  RunOptions o;
  o.quiet = true;
  o.out_dir = dir.string();
  return run_scenario(c, o);
}

// Two planes and a NIC port's link failing, for by_nic_port, by_plane and nic_failovers.
nlohmann::json run_planes(const std::filesystem::path& dir) {
  ScenarioConfig c = load_scenario(
      std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios/tiny.yaml",
      {"topology.planes=2", "events=[{type: link_down, a: h1, b: leaf0_p1, at: 20us}]",
       "nic.failover_delay=5us", "outputs.timeseries_interval=0"});
  RunOptions o;
  o.quiet = true;
  o.out_dir = dir.string();
  return run_scenario(c, o);
}

TEST(ResultsSchema, EveryKeyWrittenIsDefinedAndEveryDefinedKeyWritten) {
  const auto dir = test::temp_dir("schema_keys");
  const nlohmann::json s = run_small(dir);
  std::set<std::string> written;
  flatten(s, "", written);
  flatten(run_collectives(dir / "collectives"), "", written);
  flatten(run_faults(dir / "faults"), "", written);
  flatten(run_planes(dir / "planes"), "", written);
  const ResultsSchema& schema = results_schema();
  for (const std::string& k : written)
    EXPECT_NE(schema.find("summary.json", k), nullptr) << k << " is written but not defined";
  // A defined key is written (families need one member: by_tag.<tag>.* has two workloads).
  for (const ResultKey& def : schema.keys("summary.json")) {
    bool seen = false;
    for (const std::string& k : written) seen = seen || schema.find("summary.json", k) == &def;
    // Empty families: no switch feature here reports, nor does the flow control (PFC).
    if (def.key == "feature_stats.<name>" || def.key == "fc_stats.<name>") {
      EXPECT_FALSE(seen) << def.key;
      continue;
    }
    EXPECT_TRUE(seen) << def.key << " is defined but not written";
  }
  EXPECT_GT(s["lb_stats"].size(), 0u);
  std::filesystem::remove_all(dir);
}

// The writer takes flows.csv's header from the schema and writes its rows in its own
// order: every row must have the schema's columns, each value of its column's unit, and
// fct_ns = finish_ns - start_ns (a swapped pair of columns fails here).
TEST(ResultsSchema, FlowsCsvRowsFollowTheSchemasColumns) {
  const auto dir = test::temp_dir("schema_flows");
  const nlohmann::json summary = run_small(dir);
  std::istringstream text(test::slurp((dir / "flows.csv").string()));
  const auto& columns = results_schema().keys("flows.csv");
  std::string line;
  std::getline(text, line);
  EXPECT_EQ(line.substr(0, 7), "id,src,");
  auto is_int = [](const std::string& v) {
    return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
  };
  auto is_ns = [](const std::string& v) {  // three decimals, exact picoseconds
    const size_t dot = v.find('.');
    return dot != std::string::npos && v.size() - dot == 4 && dot > 0;
  };
  size_t rows = 0;
  while (std::getline(text, line)) {
    std::vector<std::string> v;
    std::stringstream ls(line);
    for (std::string f; std::getline(ls, f, ',');) v.push_back(f);
    if (!line.empty() && line.back() == ',') v.emplace_back();
    ASSERT_EQ(v.size(), columns.size()) << line;
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < columns.size(); ++c) {
      const ResultKey& k = columns[c];
      row[k.key] = v[c];
      const bool empty_ok = k.meaning.find("empty if unfinished") != std::string::npos;
      if (v[c].empty() && empty_ok) continue;
      if (k.unit == "count" || k.unit == "bytes") {
        EXPECT_TRUE(is_int(v[c])) << k.key << ": " << line;
      }
      if (k.unit == "ns") {
        EXPECT_TRUE(is_ns(v[c])) << k.key << ": " << line;
      }
      if (k.unit == "bool") {
        EXPECT_TRUE(v[c] == "0" || v[c] == "1") << k.key << ": " << line;
      }
      if (k.unit == "text") {
        EXPECT_FALSE(is_int(v[c]) || v[c].empty()) << k.key << ": " << line;
      }
      if (k.unit == "1") {
        EXPECT_GT(std::stod(v[c]), 0) << k.key << ": " << line;
      }
    }
    if (!row["fct_ns"].empty()) {
      EXPECT_NEAR(std::stod(row["finish_ns"]) - std::stod(row["start_ns"]),
                  std::stod(row["fct_ns"]), 1e-3)
          << line;
    }
    ++rows;
  }
  EXPECT_EQ(rows, summary["flows_total"].get<uint64_t>());
  std::filesystem::remove_all(dir);
}

TEST(ResultsSchema, HeadlineKeysAreDefinedSummaryKeysWithKnownUnits) {
  const ResultsSchema& schema = results_schema();
  const nlohmann::json doc = nlohmann::json::parse(schema.json_text());
  for (const std::string& k : schema.headline()) {
    const ResultKey* def = schema.find("summary.json", k);
    EXPECT_NE(def, nullptr) << k;
    EXPECT_EQ(k.find('<'), std::string::npos) << "a headline key is a column: concrete, " << k;
  }
  for (const std::string& f : schema.files())
    for (const ResultKey& k : schema.keys(f)) {
      EXPECT_FALSE(k.meaning.empty()) << f << " " << k.key;
      if (k.unit.rfind("as in", 0) != 0) {
        EXPECT_TRUE(doc["units"].contains(k.unit)) << f << " " << k.key << ": unit " << k.unit;
      }
    }
  EXPECT_TRUE(schema.machine_dependent("wall_s"));
  EXPECT_FALSE(schema.machine_dependent("afct_us"));
  // A placeholder stands for one segment or more; the most literal definition wins.
  EXPECT_EQ(schema.find("summary.json", "by_size.small.afct_us")->key, "by_size.<bucket>.afct_us");
  EXPECT_EQ(schema.find("summary.json", "by_size.small"), nullptr);
  EXPECT_EQ(schema.find("summary.json", "afct_us.x"), nullptr);
  EXPECT_EQ(schema.find("summary.json", "lb_stats.a.b")->key, "lb_stats.<name>");
  EXPECT_EQ(schema.find("sweep.csv", "by_size.small.afct_us.mean")->key, "<headline>.mean");
  EXPECT_EQ(schema.find("sweep.csv", "scheme")->key, "scheme");
  EXPECT_EQ(schema.find("sweep.csv", "workloads.0.load")->key, "<grid key>");
}

// collectives.csv: the schema's columns, one row per collective, cct = end - start.
TEST(ResultsSchema, CollectivesCsvRowsFollowTheSchemasColumns) {
  const auto dir = test::temp_dir("schema_collectives");
  const nlohmann::json summary = run_collectives(dir);
  std::istringstream text(test::slurp((dir / "collectives.csv").string()));
  const auto& columns = results_schema().keys("collectives.csv");
  std::string line;
  std::getline(text, line);
  EXPECT_EQ(line,
            "job,iteration,phase,op,algorithm,ranks,size_bytes,first_flow,flows,steps,start_ns,"
            "end_ns,cct_us,ideal_us,slowdown,algbw_GBps,busbw_GBps,straggler_step,"
            "straggler_rank,straggler_lag_us");
  EXPECT_EQ(line, results_schema().csv_header("collectives.csv"));
  size_t rows = 0;
  while (std::getline(text, line)) {
    std::map<std::string, std::string> row;
    std::istringstream fields(line);
    std::string v;
    for (const ResultKey& k : columns) {
      std::getline(fields, v, ',');
      row[k.key] = v;
    }
    EXPECT_NEAR((std::stod(row["end_ns"]) - std::stod(row["start_ns"])) / 1000,
                std::stod(row["cct_us"]), 1e-3)
        << line;
    EXPECT_EQ(row["job"], rows < 2 ? "ar" : "a2a");
    ++rows;
  }
  EXPECT_EQ(rows, 3u);
  EXPECT_EQ(summary["collectives"]["count"], 3);
  std::filesystem::remove_all(dir);
}

TEST(ResultsSchema, CompareColumnsFollowTheHeadline) {
  const auto dir = test::temp_dir("schema_compare");
  const nlohmann::json s = run_small(dir);
  const auto values = headline_values(s);
  std::vector<std::string> keys;
  for (const auto& [k, v] : values) keys.push_back(k);
  // Buffer sampling on: every one written, but the collectives' and the faults' (no
  // collective or fault here).
  std::vector<std::string> expected, faults_expected;
  for (const std::string& k : results_schema().headline()) {
    if (k.rfind("faults.", 0) == 0) faults_expected.push_back(k);
    if (k.rfind("collectives.", 0) != 0 && k.rfind("faults.", 0) != 0) expected.push_back(k);
  }
  EXPECT_EQ(keys, expected);
  // With faults, their headline keys are there too.
  std::vector<std::string> faults_keys;
  for (const auto& [k, v] : headline_values(run_faults(dir / "faults")))
    if (k.rfind("faults.", 0) == 0) faults_keys.push_back(k);
  EXPECT_EQ(faults_keys, faults_expected);
  std::filesystem::remove_all(dir);
}

// docs/output.md holds `rocelab schema --markdown FILE` for each file, between markers.
TEST(ResultsSchema, DocsTablesAreTheSchemas) {
  const std::string doc = test::slurp(std::string(ROCELAB_SOURCE_DIR) + "/docs/output.md");
  for (const std::string& f : results_schema().files()) {
    const std::string begin = "<!-- generated: rocelab schema --markdown " + f + " -->\n";
    const size_t at = doc.find(begin);
    ASSERT_NE(at, std::string::npos) << "docs/output.md lacks the table of " << f;
    const size_t end = doc.find("<!-- end generated -->", at);
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(doc.substr(at + begin.size(), end - at - begin.size()), results_schema().markdown(f))
        << "docs/output.md's table of " << f
        << " differs from the schema: paste `rocelab schema --markdown " << f << "`";
  }
}

}  // namespace
}  // namespace rocelab
