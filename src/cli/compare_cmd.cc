#include "cli/compare_cmd.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/run_report.h"
#include "scenario/run/runner.h"

namespace rocelab {

namespace {

// After the runs: the table, compare.csv, the runs' notes; failures were printed as they came.
int finish_compare(SweepDriver& driver, const Sweep& sweep, const SweepOptions& options) {
  driver.print_progress(true);
  std::vector<std::pair<std::string, nlohmann::json>> results;
  bool all_ok = true, interrupted = false;
  for (size_t i = 0; i < sweep.runs.size(); ++i) {
    const RunOutcome& o = driver.outcomes()[i];
    all_ok &= o.ok();
    interrupted |=
        o.status == RunOutcome::Status::kInterrupted || o.status == RunOutcome::Status::kNotRun;
    // A run that broke an invariant keeps its summary: it is in the table, marked failed.
    if (!o.summary.is_null())
      results.emplace_back(sweep.schemes[sweep.runs[i].scheme].label, o.summary);
  }
  if (results.empty()) {
    std::fprintf(stderr, "rocelab compare: no scheme ran; nothing written\n");
    return interrupted ? 130 : 3;
  }
  std::printf("%s", compare_table(results).c_str());
  if (!options.out_dir.empty()) {
    std::filesystem::create_directories(options.out_dir);
    std::ofstream(options.out_dir + "/compare.csv") << compare_csv(results);
    std::printf("results in %s/ (compare.csv and one directory per scheme)\n",
                options.out_dir.c_str());
  }
  if (interrupted) return 130;
  for (const auto& [label, s] : results) report_notes(label, s);
  return all_ok ? 0 : 3;
}

}  // namespace

int run_compare(const CompareRequest& request, SweepOptions options, int* argc, char*** argv) {
  std::vector<SweepScheme> schemes;
  for (const SchemeTriple& t : parse_schemes(request.schemes))
    schemes.push_back({t.label(), t.lb, t.cc, t.fc, {}});
  const Sweep sweep = compare_sweep(request.scenario_path, request.sets, request.seed, schemes);
  options.command = "compare";
  options.force = true;  // a compare always runs: it reuses nothing of an earlier one
  options.run_progress = !options.quiet && !launched_by_mpi();
  options.keep_incomplete = true;  // Ctrl-C keeps what each scheme got to, as `run` does
  const SweepFinish finish = [&](SweepDriver& d) { return finish_compare(d, sweep, options); };
  if (launched_by_mpi()) return run_sweep_mpi(sweep, options, argc, argv, finish);
  return run_sweep_local(sweep, options, finish);
}

}  // namespace rocelab
