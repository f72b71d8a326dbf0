#include "cli/run_report.h"

#include <cstdio>

#include "scenario/run/runner.h"

namespace rocelab {

void print_summary(const std::string& label, const nlohmann::json& s) {
  std::printf("%s", compare_table({{label, s}}).c_str());
  // Losses a preset's model makes on purpose, apart from drops (their notes say why).
  std::string apart;
  if (const uint64_t n = s.value("pfc_lapse_drops", uint64_t{0}); n > 0)
    apart += " +" + std::to_string(n) + " lost to lapsed PAUSEs";
  if (const uint64_t n = s.value("egress_threshold_drops", uint64_t{0}); n > 0)
    apart += " +" + std::to_string(n) + " to the egress threshold";
  if (!apart.empty()) apart = " (" + apart.substr(1) + ": notes)";
  std::printf("drops %llu%s, PFC pauses %llu, events %llu in %.2f s (%.2f M events/s)%s\n",
              static_cast<unsigned long long>(s["drops"].get<uint64_t>()), apart.c_str(),
              static_cast<unsigned long long>(s["pfc_pause_frames"].get<uint64_t>()),
              static_cast<unsigned long long>(s["events"].get<uint64_t>()),
              s["wall_s"].get<double>(), s["events_per_s"].get<double>() / 1e6,
              s["complete"].get<bool>() ? "" : "  [interrupted: incomplete]");
}

bool report_invariant(const std::string& label, const nlohmann::json& s) {
  const std::string inv = s.value("invariants", "ok");
  if (inv == "ok" || inv.rfind("not checked", 0) == 0) return true;
  std::fprintf(stderr, "rocelab: %s: invariant broken: %s (results written)\n", label.c_str(),
               inv.c_str());
  return false;
}

void report_notes(const std::string& label, const nlohmann::json& s) {
  if (!s.contains("notes") || s["notes"].empty()) return;
  std::fflush(stdout);  // after the table, when both go to one file
  for (const auto& note : s["notes"])
    std::fprintf(stderr, "rocelab: %s: note: %s\n", label.c_str(), note.get<std::string>().c_str());
}

}  // namespace rocelab
