// The output contract of a run directory (DESIGN.md): summary.json, flows.csv,
// config.resolved.yaml, and on request the ns-3 FCT file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "scenario/build/experiment.h"
#include "scenario/config/scenario_config.h"

namespace rocelab {

// How a run spread over threads and partitions (summary.json's parallel.*): the windows,
// the critical path's share of the events and where the wall time went.
nlohmann::json parallel_profile_json(const Simulator& sim);

// The headline figures; keys documented in docs/output.md.
nlohmann::json make_summary(const ScenarioConfig& c, Experiment& exp, const RunStats& st,
                            bool complete);
void write_flows_csv(const std::string& path, Experiment& exp);
void write_fct_file(const std::string& path, Experiment& exp, const std::string& style);
// Writes summary.json, flows.csv (if asked), config.resolved.yaml and fct.txt (if asked).
void write_run_dir(const std::string& dir, ScenarioConfig& c, Experiment& exp,
                   const nlohmann::json& summary);

// Picosecond times as nanoseconds with three decimals, exactly.
std::string ns_text(int64_t ps);

}  // namespace rocelab
