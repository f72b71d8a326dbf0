// Runs a scenario end to end: build, simulate with a progress line, write the run directory.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/config/scenario_config.h"
#include "sim/ranks.h"

namespace rocelab {

struct RunOptions {
  bool quiet = false;                              // no progress line on stderr
  const std::atomic<bool>* interrupted = nullptr;  // set by Ctrl-C: stop, still write results
  std::string out_dir;                             // empty: write nothing
  std::string label;                               // prefix of the progress line
  uint32_t threads = 1;     // threads for the run (Experiment::set_threads); the same results
  uint32_t partitions = 0;  // partitions to cut (0: as many as the threads call for)
  // One run over several processes (MPI ranks): every rank calls run_scenario alike; rank
  // 0 writes the run directory. Null: one process.
  RankGroup* ranks = nullptr;
};

// The summary (also written to out_dir/summary.json). `complete` is false when interrupted.
nlohmann::json run_scenario(ScenarioConfig& c, const RunOptions& options);

struct SchemeTriple {
  std::string lb, cc, fc;
  std::string label() const { return lb + "+" + cc + "+" + fc; }
};
// "ecmp+dcqcn", "letflow+none+pfc": checked against the registries (ConfigError if wrong).
std::vector<SchemeTriple> parse_schemes(const std::string& list);

// The headline keys of a summary, flattened with dots (by_size.small.p99_slowdown ...).
std::vector<std::pair<std::string, std::string>> headline_values(const nlohmann::json& summary);
// A side-by-side table of several runs' summaries.
std::string compare_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs);
std::string compare_csv(const std::vector<std::pair<std::string, nlohmann::json>>& runs);

}  // namespace rocelab
