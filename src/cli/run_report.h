// What `rocelab run` and `compare` tell the user about a finished run, beside its files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rocelab {

// The headline table row and the run's cost.
void print_summary(const std::string& label, const nlohmann::json& summary);
// Prints a broken model invariant (summary.json "invariants"); false when one is.
bool report_invariant(const std::string& label, const nlohmann::json& summary);
// Prints what the run noted for the user (summary.json "notes": needless timeouts).
void report_notes(const std::string& label, const nlohmann::json& summary);

}  // namespace rocelab
