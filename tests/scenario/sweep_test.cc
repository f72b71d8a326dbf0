// rocelab sweep: the grid's expansion, strict reading, confidence intervals, and the command:
// resumable, the same sweep.csv under -j 1, -j 2 and mpirun, failures reported not fatal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "scenario/config/yaml_params.h"
#include "scenario/sweep/sweep.h"
#include "stats/confidence.h"

namespace rocelab {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::slurp;
using test::temp_dir;

const std::string kTests = std::string(ROCELAB_SOURCE_DIR) + "/tests";
const std::string kTinySweep = kTests + "/sweeps/tiny_sweep.yaml";

Sweep sweep_of(const std::string& body) {
  return load_sweep_text("scenario: " + kTests + "/scenarios/tiny.yaml\n" + body, "s.yaml", kTests);
}

std::string error_of(const std::string& body) {
  try {
    sweep_of(body);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Confidence, MeanAndStudentIntervalByHand) {
  // {1, 2, 3}: mean 2, s = 1, half-width t(0.975, 2) / sqrt(3) = 4.303 / 1.7320508.
  const MeanInterval m = mean_interval({1, 2, 3});
  EXPECT_DOUBLE_EQ(m.mean, 2);
  EXPECT_DOUBLE_EQ(m.stddev, 1);
  EXPECT_NEAR(m.ci95_half, 2.48434, 1e-5);
  EXPECT_EQ(mean_interval({5}).ci95_half, 0);
  EXPECT_DOUBLE_EQ(student_t975(1), 12.706);
  EXPECT_NEAR(student_t975(60), 2.000, 1e-3);  // the table's value
  EXPECT_NEAR(student_t975(120), 1.980, 1e-3);
}

TEST(Sweep, GridTimesCasesTimesSchemesTimesSeeds) {
  const Sweep s = sweep_of(
      "grid:\n  workloads.0.load: {from: 0.5, to: 0.8, step: 0.1}\n  switch.buffer: [1MB, 2MB]\n"
      "cases: [{name: gbn}, {name: sr, set: {transport.recovery: selective_repeat}}]\n"
      "schemes: [ecmp+dcqcn, {name: rps-nocc, scheme: rps+none}]\nseeds: {from: 3, to: 5}\n");
  ASSERT_EQ(s.grid[0].values, (std::vector<std::string>{"0.5", "0.6", "0.7", "0.8"}));
  EXPECT_EQ(s.points.size(), 4u * 2 * 2);
  EXPECT_EQ(s.runs.size(), 16u * 2 * 3);
  EXPECT_EQ(s.points[0].id, "load=0.5,buffer=1MB,gbn");
  EXPECT_EQ(s.points[1].id, "load=0.5,buffer=1MB,sr");
  EXPECT_EQ(s.points[2].id, "load=0.5,buffer=2MB,gbn");
  EXPECT_EQ(s.runs[0].rel_dir, "runs/load=0.5,buffer=1MB,gbn/ecmp+dcqcn+pfc/seed-3");
  EXPECT_EQ(s.runs[3].rel_dir, "runs/load=0.5,buffer=1MB,gbn/rps-nocc/seed-3");
  const ScenarioConfig c = s.config_of(s.runs[3 * 2 + 4]);  // point 1 (sr), rps-nocc, seed 4
  EXPECT_EQ(c.transport.recovery, "selective_repeat");
  EXPECT_EQ(c.lb, "rps");
  EXPECT_EQ(c.cc, "none");
  EXPECT_EQ(c.seed, 4);
  EXPECT_EQ(c.workloads[0].load, 0.5);
}

TEST(Sweep, TheBaseSchemeKeepsItsParametersAnotherStartsFromDefaults) {
  // tiny.yaml: lb {name: letflow, flowlet_timeout: 20us}.
  const Sweep s = sweep_of(
      "schemes: [letflow+dcqcn, {name: lf50, scheme: letflow+dcqcn, set: "
      "{lb.flowlet_timeout: 50us}}]\n");
  const ScenarioConfig same = s.config_of(s.runs[0]);
  const ScenarioConfig changed = s.config_of(s.runs[1]);
  EXPECT_NE(resolved_yaml(const_cast<ScenarioConfig&>(same)).find("20us"), std::string::npos);
  EXPECT_NE(resolved_yaml(const_cast<ScenarioConfig&>(changed)).find("50us"), std::string::npos);
  EXPECT_EQ(s.seeds, (std::vector<int64_t>{7}));  // the scenario's own seed by default
}

TEST(Sweep, BadFilesNameTheKeyAndLine) {
  EXPECT_NE(error_of("grdi: {a: [1]}\n").find("s.yaml:2: grdi: unknown key; did you mean 'grid'"),
            std::string::npos);
  EXPECT_NE(error_of("grid: {workloads.0.laod: [0.3]}\n").find("laod"), std::string::npos);
  EXPECT_NE(error_of("grid: {workloads.0.load: [0.3, 0.3]}\n").find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of("schemes: [ecmp+dcqnc]\n").find("did you mean 'dcqcn'"), std::string::npos);
  EXPECT_NE(error_of("seeds: [1, -2]\n").find("seeds: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error_of("grid: {workloads.0.load: {from: 0.5, to: 0.1, step: 0.1}}\n").find(">= from"),
            std::string::npos);
  EXPECT_NE(error_of("x: switch.buffer\n").find("not a grid key"), std::string::npos);
  // A scheme's set that picks a scheme after the grid filled its section would drop the
  // grid's values: refused, naming both.
  const std::string dropped = error_of(
      "grid: {transport.path_policy.rtt_high: [3us, 50us]}\n"
      "schemes: [{name: h, scheme: ecmp+dcqcn, set: {transport.path_policy: hermes}}]\n");
  EXPECT_NE(dropped.find("replaces transport.path_policy after the point set "
                         "'transport.path_policy.rtt_high=3us'"),
            std::string::npos)
      << dropped;
  // Picked first (the sweep's set), the grid's values hold.
  const Sweep ok = sweep_of(
      "set: {transport.path_policy: hermes}\n"
      "grid: {transport.path_policy.rtt_high: [3us, 50us]}\n");
  ScenarioConfig second = ok.config_of(ok.runs[1]);
  EXPECT_NE(resolved_yaml(second).find("rtt_high: 50us"), std::string::npos);
}

std::string sweep_csv_after(const std::string& args, const fs::path& out) {
  std::string log;
  EXPECT_EQ(run_cli("sweep " + kTinySweep + " -q --out " + out.string() + " " + args, &log), 0)
      << log;
  return slurp((out / "sweep.csv").string());
}

TEST(SweepCommand, ResumableAndTheSameUnderAnyNumberOfJobs) {
  const fs::path dir = temp_dir("sweep_jobs");
  const std::string two = sweep_csv_after("-j 2", dir / "j2");
  const std::string one = sweep_csv_after("-j 1", dir / "j1");
  EXPECT_EQ(two, one);
  // Threads inside each run (run --threads) change nothing either.
  EXPECT_EQ(sweep_csv_after("-j 1 --threads 2", dir / "t2"), one);
  const nlohmann::json threaded = nlohmann::json::parse(
      slurp((dir / "t2/runs/load=0.3/ecmp+dcqcn+pfc/seed-2/summary.json").string()));
  EXPECT_EQ(threaded["parallel"]["threads"], 2);
  // 2 loads x 3 schemes: 6 rows and a header; means and intervals over 3 seeds.
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 7);
  EXPECT_NE(two.find("load=0.5,0.5,rps+none+pfc,3,0,"), std::string::npos) << two;

  // A rerun of a finished sweep simulates nothing: every run directory stays as it was.
  const fs::path probe = dir / "j2/runs/load=0.3/ecmp+dcqcn+pfc/seed-2/summary.json";
  const auto written = fs::last_write_time(probe);
  std::string log;
  ASSERT_EQ(run_cli("sweep " + kTinySweep + " -q --out " + (dir / "j2").string(), &log), 0);
  EXPECT_NE(log.find("18 finished (18 reused)"), std::string::npos) << log;
  EXPECT_EQ(fs::last_write_time(probe), written);
  EXPECT_EQ(slurp((dir / "j2/sweep.csv").string()), one);

  // A lost run (and a half-written one left by a killed process) is redone alone.
  fs::remove_all(probe.parent_path());
  fs::create_directories(dir / "j2/runs/load=0.3/ecmp+dcqcn+pfc/seed-3.partial-x-1-0");
  ASSERT_EQ(run_cli("sweep " + kTinySweep + " -q --out " + (dir / "j2").string(), &log), 0);
  EXPECT_NE(log.find("18 finished (17 reused)"), std::string::npos) << log;
  EXPECT_EQ(slurp((dir / "j2/sweep.csv").string()), one);

  // --force runs everything again, finished or not: the run directories are rewritten.
  const fs::path kept = dir / "j2/runs/load=0.5/rps+none+pfc/seed-1/summary.json";
  const auto before_force = fs::last_write_time(kept);
  ASSERT_EQ(run_cli("sweep " + kTinySweep + " -q --force --out " + (dir / "j2").string(), &log), 0);
  EXPECT_NE(log.find("18 finished (0 reused)"), std::string::npos) << log;
  EXPECT_NE(fs::last_write_time(kept), before_force);
  EXPECT_EQ(slurp((dir / "j2/sweep.csv").string()), one);
  fs::remove_all(dir);
}

TEST(SweepCommand, AChangedPointRunsAgainAndAFailedOneDoesNotStopTheOthers) {
  const fs::path dir = temp_dir("sweep_fail");
  const fs::path file = dir / "s.yaml";
  auto write = [&](const std::string& buffer) {
    std::ofstream(file) << "scenario: " << kTests << "/scenarios/tiny.yaml\n"
                        << "set: {switch.buffer: " << buffer << "}\n"
                        << "cases: [{name: ok}, {name: bad, set: {workloads.1.receiver: h99}}]\n"
                        << "schemes: [ecmp+dcqcn]\nseeds: [1, 2]\n";
  };
  write("2MB");
  std::string log;
  EXPECT_EQ(run_cli("sweep " + file.string() + " -q --out " + (dir / "o").string(), &log), 3);
  EXPECT_NE(log.find("bad ecmp+dcqcn+pfc seed 1 failed:"), std::string::npos) << log;
  EXPECT_NE(log.find("no host named 'h99'"), std::string::npos) << log;
  EXPECT_NE(log.find("4 runs: 2 finished (0 reused), 2 failed"), std::string::npos) << log;
  const std::string runs = slurp((dir / "o/runs.csv").string());
  EXPECT_NE(runs.find("ok,ok,ecmp+dcqcn+pfc,1,done,"), std::string::npos) << runs;
  EXPECT_NE(runs.find("bad,bad,ecmp+dcqcn+pfc,2,failed,"), std::string::npos) << runs;
  // The sweep changed: its finished runs are stale and run again.
  write("3MB");
  EXPECT_EQ(run_cli("sweep " + file.string() + " -q --out " + (dir / "o").string(), &log), 3);
  EXPECT_NE(log.find("2 finished (0 reused)"), std::string::npos) << log;
  fs::remove_all(dir);
}

// Every sweep file the repository ships loads, and every point of it checks under every
// scheme (what `sweep --dry-run` does): a reproduction script must not find a broken one
// hours into its run, as it found scenarios/bfc/sweeps/readings.yaml.
TEST(Sweep, EveryShippedSweepFileChecks) {
  size_t files = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(std::string(ROCELAB_SOURCE_DIR) + "/scenarios")) {
    const fs::path& p = entry.path();
    if (!entry.is_regular_file() || p.extension() != ".yaml" ||
        p.parent_path().filename() != "sweeps")
      continue;
    ++files;
    try {
      const Sweep sweep = load_sweep(p.string());
      EXPECT_FALSE(sweep.runs.empty()) << p;
    } catch (const std::exception& e) {
      ADD_FAILURE() << p << ": " << e.what();
    }
  }
  EXPECT_GE(files, 90u) << "the shipped sweeps were not found";
}

TEST(SweepCommand, CtrlCKeepsWhatFinishedAndLeavesNoPartialRun) {
  const fs::path dir = temp_dir("sweep_interrupt");
  const fs::path file = dir / "s.yaml";
  // Runs of about half a second (longer under the sanitizers): SIGINT after 1.5 s lands
  // while the sweep is in the middle of its 12 runs.
  std::ofstream(file) << "scenario: " << kTests << "/scenarios/tiny.yaml\n"
                      << "set: {workloads.0.stop: 8ms, outputs.timeseries_interval: 0}\n"
                      << "schemes: [ecmp+dcqcn]\nseeds: {from: 1, to: 12}\n";
  std::string log;
  EXPECT_EQ(run_cli("sweep " + file.string() + " -j 1 -q --out " + (dir / "o").string(), &log,
                    "timeout --preserve-status -s INT 1.5 "),
            130)
      << log;
  EXPECT_NE(log.find("the rest not run (rerun to finish)"), std::string::npos) << log;
  size_t finished = 0;
  for (const auto& e : fs::directory_iterator(dir / "o/runs/base/ecmp+dcqcn+pfc")) {
    EXPECT_EQ(e.path().string().find("partial"), std::string::npos) << e.path();
    const auto summary = nlohmann::json::parse(slurp((e.path() / "summary.json").string()));
    EXPECT_TRUE(summary["complete"].get<bool>()) << e.path();
    ++finished;
  }
  EXPECT_LT(finished, 12u);
  const std::string runs = slurp((dir / "o/runs.csv").string());
  EXPECT_NE(runs.find(",not_run,"), std::string::npos) << runs;
  fs::remove_all(dir);
}

#ifdef ROCELAB_TEST_MPIEXEC
TEST(SweepCommand, MpirunWithTwoRanksGivesTheSameSweep) {
  const fs::path dir = temp_dir("sweep_mpi");
  const std::string local = sweep_csv_after("-j 2", dir / "local");
  std::string log;
  // Root in a container, and shared memory without ptrace rights: both allowed explicitly.
  const std::string prefix =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none " +
      std::string(ROCELAB_TEST_MPIEXEC) + " --oversubscribe -np 2 ";
  ASSERT_EQ(run_cli("sweep " + kTinySweep + " -q --out " + (dir / "mpi").string(), &log, prefix), 0)
      << log;
  EXPECT_EQ(slurp((dir / "mpi/sweep.csv").string()), local);
  fs::remove_all(dir);
}
#endif

TEST(SweepCommand, ReportAndPlotOfASweep) {
  const fs::path dir = temp_dir("sweep_report");
  sweep_csv_after("-j 2", dir);
  std::string log;
  // Without matplotlib the report still has its tables (and says why it has no figures).
  ASSERT_EQ(run_cli("report " + dir.string(), &log), 0) << log;
  const std::string md = slurp((dir / "report.md").string());
  EXPECT_NE(md.find("## workloads.0.load = 0.5"), std::string::npos) << md;
  EXPECT_NE(md.find("| rps+none+pfc |"), std::string::npos) << md;
  EXPECT_NE(slurp((dir / "report.html").string()).find("<table>"), std::string::npos);
  if (fs::exists(dir / "plots/against_x.png")) {
    EXPECT_NE(md.find("![against_x.png](plots/against_x.png)"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir / "plots/against_x.pdf"));
    EXPECT_TRUE(fs::exists(dir / "plots/slowdown_by_size__load=0.3.png"));
  } else {
    EXPECT_NE(md.find("python3-matplotlib is not installed"), std::string::npos) << md;
  }
  EXPECT_NE(run_cli("plot " + (dir / "nothing").string(), &log), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelab
