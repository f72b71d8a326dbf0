// A sweep: one base scenario run over a grid of parameter values x schemes x seeds.
// The file format is in docs/sweep.md. Each run writes its own run directory under
// DIR/runs/<point>/<scheme>/seed-<n>/, atomically (written aside, then renamed), so a
// rerun skips what has finished and an interrupted sweep loses no finished run.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/config/scenario_config.h"

namespace rocelab {

struct SweepAxis {
  std::string key;                  // dotted scenario key
  std::vector<std::string> values;  // each as YAML text (what --set takes)
};

struct SweepCase {
  std::string name;
  std::vector<std::string> sets;  // "dotted.key=value"
};

struct SweepScheme {
  std::string label;  // directory and CSV name
  std::string lb, cc, fc;
  std::vector<std::string> sets;  // applied after the grid, for this scheme only
};

struct SweepPoint {
  std::string id;                                           // directory name
  std::vector<std::pair<std::string, std::string>> coords;  // key -> value text (and "case")
  std::vector<std::string> sets;
};

struct SweepRun {
  size_t point = 0;
  size_t scheme = 0;
  int64_t seed = 0;
  std::string rel_dir;  // runs/<point>/<scheme>/seed-<n>
};

struct Sweep {
  std::string file;           // the sweep file
  std::string scenario_path;  // the base scenario, absolute
  std::vector<std::string> sets;
  std::vector<SweepAxis> grid;
  std::vector<SweepCase> cases;
  std::vector<SweepScheme> schemes;
  std::vector<int64_t> seeds;
  std::string x_key;  // plots: the grid key on the x axis ("" = first numeric one)
  std::vector<SweepPoint> points;
  std::vector<SweepRun> runs;             // point-major, then scheme, then seed
  std::string base_lb, base_cc, base_fc;  // the base scenario's schemes (with `set`)

  // The scenario of one run; ConfigError when the values do not make a valid scenario.
  ScenarioConfig config_of(const SweepRun& run) const;
  // The columns that name a point in the CSV files (grid keys, then "case" if any).
  std::vector<std::string> coord_columns() const;
};

// `rocelab compare`'s runs as a sweep: the scenario (with `sets`, and `seed` if given) under
// each scheme, one point and one seed, each run in DIR/<lb+cc+fc>/.
Sweep compare_sweep(const std::string& scenario_path, const std::vector<std::string>& sets,
                    std::optional<int64_t> seed, const std::vector<SweepScheme>& schemes);

// Reads and expands a sweep file strictly; ConfigError naming file:line: key on any problem.
// `seeds`, when not empty, replaces the file's seeds ("1..5" or "1,2,3"; --seeds).
Sweep load_sweep(const std::string& path, const std::string& seeds = "");
Sweep load_sweep_text(const std::string& yaml_text, const std::string& file_label,
                      const std::string& base_dir, const std::string& seeds = "");

struct RunOutcome {
  enum class Status { kNotRun, kDone, kReused, kFailed, kInterrupted };
  Status status = Status::kNotRun;
  nlohmann::json summary;  // the run's summary.json (kDone, kReused, and failed invariants)
  std::string error;       // kFailed
  double wall_s = 0;       // simulation wall time (kDone)
  bool ok() const { return status == Status::kDone || status == Status::kReused; }
  nlohmann::json to_json() const;
  static RunOutcome from_json(const nlohmann::json& j);
};

// The outcome of a run whose directory under `out_dir` holds a complete result for exactly
// this configuration (same config.resolved.yaml), else kNotRun.
RunOutcome finished_outcome(const Sweep& sweep, size_t run_index, const std::string& out_dir);

// Runs one point of the sweep, writing its directory atomically (whoever hands out the runs
// decides what to reuse, with finished_outcome); an empty out_dir writes nothing. Never
// throws for a bad point: the error is in the outcome.
struct SweepRunOptions {
  // Non-empty: the run shows its own progress line on a terminal, prefixed by this.
  std::string progress_label;
  // An interrupted run keeps its directory and summary ("complete": false), as `rocelab
  // run` does (compare); a sweep drops it, so that a rerun finishes it.
  bool keep_incomplete = false;
  // Threads for the run itself (run --threads): the same results on any number; and its
  // partitions (run --partitions, 0: four per thread).
  uint32_t threads = 1;
  uint32_t partitions = 0;
};
RunOutcome execute_sweep_run(const Sweep& sweep, size_t run_index, const std::string& out_dir,
                             const std::atomic<bool>* interrupted,
                             const SweepRunOptions& options = {});

// Writes the result files of a run computed elsewhere (another MPI rank on another file
// system) unless out_dir holds that very summary already: summary.json and
// config.resolved.yaml. An empty out_dir writes nothing.
void store_remote_outcome(const Sweep& sweep, size_t run_index, const std::string& out_dir,
                          const RunOutcome& outcome);

// DIR/runs.csv (one row per run) and DIR/sweep.csv (one row per point x scheme: each
// headline metric's mean and 95% interval over the seeds that finished). sweep.csv holds no
// wall-clock figure, so it is the same whatever ran it.
std::string sweep_runs_csv(const Sweep& sweep, const std::vector<RunOutcome>& outcomes);
std::string sweep_summary_csv(const Sweep& sweep, const std::vector<RunOutcome>& outcomes);
// Both files and DIR/sweep.json (the sweep's shape, for `rocelab plot` and `report`), each
// written aside and renamed into place.
void write_sweep_outputs(const Sweep& sweep, const std::vector<RunOutcome>& outcomes,
                         const std::string& out_dir);

}  // namespace rocelab
