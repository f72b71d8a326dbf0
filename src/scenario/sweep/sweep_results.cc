// Running one point of a sweep (or reusing its finished result) and the sweep's CSV files.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/results/schema.h"
#include "scenario/run/runner.h"
#include "scenario/sweep/sweep.h"
#include "stats/confidence.h"

namespace rocelab {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// config.resolved.yaml without its comment lines (which carry the version).
std::string without_comments(const std::string& text) {
  std::string out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    if (line.empty() || line[0] != '#') out += line + "\n";
  return out;
}

// Written aside and renamed, so a reader never sees half a file.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

RunOutcome outcome_of_summary(const nlohmann::json& summary, RunOutcome::Status ok_status) {
  RunOutcome o;
  o.summary = summary;
  const std::string inv = summary.value("invariants", "ok");
  if (inv == "ok") {
    o.status = ok_status;
  } else {
    o.status = RunOutcome::Status::kFailed;
    o.error = "invariant broken: " + inv;
  }
  return o;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

const char* status_name(RunOutcome::Status s) {
  switch (s) {
    case RunOutcome::Status::kNotRun:
      return "not_run";
    case RunOutcome::Status::kDone:
      return "done";
    case RunOutcome::Status::kReused:
      return "reused";
    case RunOutcome::Status::kFailed:
      return "failed";
    case RunOutcome::Status::kInterrupted:
      return "interrupted";
  }
  return "?";
}

// Headline keys in order of first appearance over the finished runs, but those that measure
// the machine, not the model (the schema's machine_dependent): kept out of sweep.csv.
std::vector<std::string> metric_keys(const std::vector<RunOutcome>& outcomes) {
  std::vector<std::string> keys;
  for (const auto& o : outcomes) {
    if (o.summary.is_null()) continue;
    for (const auto& [k, v] : headline_values(o.summary))
      if (!results_schema().machine_dependent(k) &&
          std::find(keys.begin(), keys.end(), k) == keys.end())
        keys.push_back(k);
  }
  return keys;
}

std::string point_prefix(const Sweep& s, size_t point) {
  std::string out = csv_field(s.points[point].id);
  for (const auto& [k, v] : s.points[point].coords) out += "," + csv_field(v);
  return out;
}

std::string header_prefix(const Sweep& s) {
  std::string out = "point";
  for (const auto& c : s.coord_columns()) out += "," + csv_field(c);
  return out;
}

}  // namespace

nlohmann::json RunOutcome::to_json() const {
  return {{"status", static_cast<int>(status)},
          {"summary", summary},
          {"error", error},
          {"wall_s", wall_s}};
}

RunOutcome RunOutcome::from_json(const nlohmann::json& j) {
  RunOutcome o;
  o.status = static_cast<Status>(j.at("status").get<int>());
  o.summary = j.at("summary");
  o.error = j.at("error").get<std::string>();
  o.wall_s = j.at("wall_s").get<double>();
  return o;
}

RunOutcome finished_outcome(const Sweep& sweep, size_t i, const std::string& out_dir) {
  const fs::path dir = fs::path(out_dir) / sweep.runs[i].rel_dir;
  if (!fs::exists(dir / "summary.json") || !fs::exists(dir / "config.resolved.yaml")) return {};
  try {
    ScenarioConfig c = sweep.config_of(sweep.runs[i]);
    if (without_comments(read_file(dir / "config.resolved.yaml")) !=
        without_comments(resolved_yaml(c)))
      return {};  // the sweep changed this point: run it again
    const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
    if (!summary.value("complete", false)) return {};
    return outcome_of_summary(summary, RunOutcome::Status::kReused);
  } catch (const std::exception&) {
    return {};  // unreadable: run it again
  }
}

RunOutcome execute_sweep_run(const Sweep& sweep, size_t i, const std::string& out_dir,
                             const std::atomic<bool>* interrupted, const SweepRunOptions& options) {
  static std::atomic<uint64_t> counter{0};
  const bool writes = !out_dir.empty();
  const fs::path final_dir = writes ? fs::path(out_dir) / sweep.runs[i].rel_dir : fs::path();
  char host[256] = "host";
  ::gethostname(host, sizeof host - 1);
  const fs::path tmp =
      writes ? fs::path(final_dir.string() +
                        fmt::format(".partial-{}-{}-{}", host, ::getpid(), counter.fetch_add(1)))
             : fs::path();
  RunOutcome out;
  try {
    ScenarioConfig c = sweep.config_of(sweep.runs[i]);
    if (writes) {
      fs::remove_all(tmp);
      fs::create_directories(tmp);
    }
    RunOptions o;
    o.quiet = options.progress_label.empty();
    o.label = options.progress_label;
    o.interrupted = interrupted;
    o.threads = options.threads;
    o.partitions = options.partitions;
    o.out_dir = tmp.string();
    const nlohmann::json summary = run_scenario(c, o);
    const bool complete = summary.value("complete", false);
    if (!complete && !options.keep_incomplete) {
      if (writes) fs::remove_all(tmp);
      out.status = RunOutcome::Status::kInterrupted;
      return out;
    }
    if (writes) {
      fs::remove_all(final_dir);
      fs::rename(tmp, final_dir);
    }
    out = outcome_of_summary(summary, RunOutcome::Status::kDone);
    if (!complete) out.status = RunOutcome::Status::kInterrupted;  // kept: its summary says so
    out.wall_s = summary.value("wall_s", 0.0);
  } catch (const std::exception& e) {
    std::error_code ignored;
    if (writes) fs::remove_all(tmp, ignored);
    out.status = RunOutcome::Status::kFailed;
    out.error = e.what();
  }
  return out;
}

void store_remote_outcome(const Sweep& sweep, size_t i, const std::string& out_dir,
                          const RunOutcome& outcome) {
  if (out_dir.empty() || outcome.summary.is_null()) return;  // nothing is written
  const fs::path dir = fs::path(out_dir) / sweep.runs[i].rel_dir;
  // On a shared file system the rank wrote this very summary; an other one is an earlier
  // run's, left on a file system the ranks do not share (a --force rerun, a compare).
  if (fs::exists(dir / "summary.json")) {
    try {
      if (nlohmann::json::parse(read_file(dir / "summary.json")) == outcome.summary) return;
    } catch (const std::exception&) {
    }
  }
  ScenarioConfig c = sweep.config_of(sweep.runs[i]);
  fs::create_directories(dir);
  write_atomically(dir / "config.resolved.yaml", resolved_yaml(c));
  write_atomically(dir / "summary.json", outcome.summary.dump(2) + "\n");
}

std::string sweep_runs_csv(const Sweep& s, const std::vector<RunOutcome>& outcomes) {
  const auto keys = metric_keys(outcomes);
  std::string out = header_prefix(s) + ",scheme,seed,status,error";
  for (const auto& k : keys) out += "," + k;
  out += ",wall_s,dir\n";
  for (size_t i = 0; i < s.runs.size(); ++i) {
    const SweepRun& r = s.runs[i];
    const RunOutcome& o = outcomes[i];
    out += point_prefix(s, r.point) + "," + s.schemes[r.scheme].label + "," +
           std::to_string(r.seed) + "," + status_name(o.status) + "," + csv_field(o.error);
    std::map<std::string, std::string> values;
    if (!o.summary.is_null())
      for (auto& [k, v] : headline_values(o.summary)) values[k] = v;
    for (const auto& k : keys) out += "," + csv_field(values.count(k) ? values[k] : "");
    out += "," + (o.summary.is_null() ? "" : fmt::format("{:.3f}", o.summary.value("wall_s", 0.0)));
    out += "," + csv_field(r.rel_dir) + "\n";
  }
  return out;
}

std::string sweep_summary_csv(const Sweep& s, const std::vector<RunOutcome>& outcomes) {
  const auto keys = metric_keys(outcomes);
  std::string out = header_prefix(s) + ",scheme,runs,failed";
  for (const auto& k : keys) out += "," + k + ".mean," + k + ".ci95";
  out += "\n";
  // Runs are point-major, then scheme, then seed: each (point, scheme) is one slice.
  const size_t per = s.seeds.size();
  for (size_t first = 0; first < s.runs.size(); first += per) {
    const SweepRun& r = s.runs[first];
    std::map<std::string, std::vector<double>> samples;
    size_t ok = 0, failed = 0;
    for (size_t i = first; i < first + per; ++i) {
      const RunOutcome& o = outcomes[i];
      failed += o.status == RunOutcome::Status::kFailed;
      if (!o.ok()) continue;
      ++ok;
      for (const auto& [k, v] : headline_values(o.summary)) {
        try {
          size_t used = 0;
          const double x = std::stod(v, &used);
          if (used == v.size()) samples[k].push_back(x);
        } catch (...) {
        }
      }
    }
    out += point_prefix(s, r.point) + "," + s.schemes[r.scheme].label + "," + std::to_string(ok) +
           "," + std::to_string(failed);
    for (const auto& k : keys) {
      const auto it = samples.find(k);
      if (it == samples.end() || it->second.size() != ok) {
        out += ",,";
        continue;
      }
      const MeanInterval m = mean_interval(it->second);
      out += fmt::format(",{:.6g},", m.mean);
      if (m.n >= 2) out += fmt::format("{:.6g}", m.ci95_half);
    }
    out += "\n";
  }
  return out;
}

void write_sweep_outputs(const Sweep& s, const std::vector<RunOutcome>& outcomes,
                         const std::string& out_dir) {
  fs::create_directories(out_dir);
  const fs::path dir(out_dir);
  write_atomically(dir / "runs.csv", sweep_runs_csv(s, outcomes));
  write_atomically(dir / "sweep.csv", sweep_summary_csv(s, outcomes));
  nlohmann::json shape;
  shape["file"] = fs::absolute(s.file).string();
  shape["scenario"] = s.scenario_path;
  shape["x"] = s.x_key;
  shape["grid"] = nlohmann::json::array();
  for (const auto& a : s.grid) shape["grid"].push_back({{"key", a.key}, {"values", a.values}});
  shape["cases"] = nlohmann::json::array();
  for (const auto& c : s.cases) shape["cases"].push_back(c.name);
  shape["schemes"] = nlohmann::json::array();
  for (const auto& k : s.schemes) shape["schemes"].push_back(k.label);
  shape["seeds"] = s.seeds;
  shape["points"] = s.points.size();
  shape["runs"] = s.runs.size();
  size_t finished = 0, failed = 0;
  for (const auto& o : outcomes) {
    finished += o.ok();
    failed += o.status == RunOutcome::Status::kFailed;
  }
  shape["runs_finished"] = finished;
  shape["runs_failed"] = failed;
  write_atomically(dir / "sweep.json", shape.dump(2) + "\n");
}

}  // namespace rocelab
