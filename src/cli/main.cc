// The rocelab command: thin, it parses arguments and calls scenario/.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cc/cc_registry.h"
#include "cli/compare_cmd.h"
#include "cli/plot_cmd.h"
#include "cli/rank_mpi.h"
#include "cli/run_report.h"
#include "cli/sweep_cmd.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/build/ns3_topology.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/presets.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/switch_features.h"
#include "scenario/config/topology_types.h"
#include "scenario/config/workload_types.h"
#include "scenario/config/yaml_params.h"
#include "scenario/results/schema.h"
#include "scenario/run/runner.h"
#include "sim/units.h"
#include "transport/host_path.h"
#include "transport/loss_recovery.h"
#include "workload/flow_size_cdf.h"
#include "workload/ns3_flows.h"
#include "workload/trace.h"

using namespace rocelab;

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int64_t> g_first_signal_ns{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "used in a signal handler");

int64_t monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// The first Ctrl-C or SIGTERM ends the run at the next chunk, results written and marked
// incomplete; a second ends the process at once. A second that comes within half a second
// of the first is the same request delivered twice (`timeout` signals its child and then
// its process group; a terminal's Ctrl-C reaches every process of the job), so it is
// ignored: honouring it would lose the results the first one was asked to keep.
extern "C" void on_signal(int sig) {
  const int64_t now = monotonic_ns();
  if (!g_interrupted.exchange(true)) {
    g_first_signal_ns.store(now);
    return;
  }
  if (now - g_first_signal_ns.load() >= 500'000'000) std::_Exit(128 + sig);
}

// `rocelab schema [KEY|FILE] [--markdown]`.
int cmd_schema(const std::string& key, bool markdown) {
  const ResultsSchema& schema = results_schema();
  const auto& files = schema.files();
  if (key.empty() || std::find(files.begin(), files.end(), key) != files.end()) {
    if (!markdown && key.empty()) {
      std::printf("%s", schema.json_text().c_str());
      return 0;
    }
    for (const std::string& f : files) {
      if (!key.empty() && f != key) continue;
      if (markdown)
        std::printf("%s%s", key.empty() ? ("### " + f + "\n\n").c_str() : "",
                    schema.markdown(f).c_str());
      else
        for (const ResultKey& k : schema.keys(f))
          std::printf("%-40s %-8s %s\n", k.key.c_str(), k.unit.c_str(), k.meaning.c_str());
      if (key.empty()) std::printf("\n");
    }
    return 0;
  }
  // A key, of summary.json unless it names its file ("flows.csv:fct_ns").
  const size_t colon = key.find(':');
  const std::string file = colon == std::string::npos ? "summary.json" : key.substr(0, colon);
  const std::string name = colon == std::string::npos ? key : key.substr(colon + 1);
  if (std::find(files.begin(), files.end(), file) == files.end())
    throw ConfigError("schema: no results file '" + file +
                      "'; files: " + fmt::format("{}", fmt::join(files, ", ")));
  const ResultKey* k = schema.find(file, name);
  if (!k)
    throw ConfigError("schema: " + file + " has no key '" + name + "' (`rocelab schema " + file +
                      "` lists them)");
  std::printf("%s: %s (%s) [%s]: %s%s\n", file.c_str(), name.c_str(), k->key.c_str(),
              k->unit.c_str(), k->meaning.c_str(),
              k->when.empty() ? "" : (" Written when " + k->when + ".").c_str());
  return 0;
}

ScenarioConfig load(const std::string& path, const std::vector<std::string>& sets,
                    const std::optional<int64_t>& seed) {
  ScenarioConfig c = load_scenario(path, sets);
  if (seed) c.seed = *seed;
  return c;
}

template <class Registry>
void print_registry(const char* title, const Registry& registry) {
  std::printf("%s:\n", title);
  for (const auto* e : registry.all())
    std::printf("  %-16s %s\n", e->name.c_str(), e->description.c_str());
}

int cmd_list() {
  print_registry("load balancers (lb)", lb_registry());
  print_registry("congestion controls (cc)", cc_registry());
  print_registry("flow controls (fc)", fc_registry());
  print_registry("switch features (switch.features)", switch_feature_registry());
  print_registry("host path policies (transport.path_policy)", host_path_registry());
  print_registry("loss recoveries (transport.recovery)", loss_recovery_registry());
  print_registry("egress schedulers (switch.scheduler)", scheduler_registry());
  print_registry("topologies (topology.type)", topology_registry());
  print_registry("workload types (workloads[].type)", workload_registry());
  std::printf("flow-size distributions (workloads[].cdf):\n");
  for (const auto& [name, path] : shipped_cdfs()) {
    double mean = 0;
    try {
      mean = FlowSizeCdf::load(path).mean_bytes();
    } catch (...) {
    }
    std::printf("  %-18s mean %.0f B\n", name.c_str(), mean);
  }
  std::printf("presets (preset):\n");
  for (const auto* e : preset_registry().all())
    std::printf("  %-16s %s\n", e->name.c_str(), e->description.c_str());
  return 0;
}

int cmd_import(const std::string& topo_path, const std::string& flows_path,
               const std::string& format, const std::string& preset, const std::string& out) {
  std::string topo_note, flows_note;
  read_ns3_topology(topo_path, &topo_note);  // validates; errors name the file and line
  const auto flows = read_ns3_flows(flows_path, ns3_flow_format(format), "trace", &flows_note);
  ScenarioConfig c;
  if (!preset.empty() && preset != "none") apply_preset(preset, c);
  c.name = std::filesystem::path(out).stem().string();
  c.description = "imported from " + topo_path + " and " + flows_path;
  for (const std::string* note : {&topo_note, &flows_note}) {
    if (note->empty()) continue;
    std::fprintf(stderr, "rocelab: note: %s\n", note->c_str());
    c.description += "; " + *note;
  }
  c.topology.type = "ns3";
  c.topology.file = std::filesystem::absolute(topo_path).string();
  WorkloadConfig w;
  w.name = "trace";
  w.type = "trace";
  w.file = std::filesystem::absolute(flows_path).string();
  w.format = format;
  c.workloads = {w};
  c.outputs.ns3_fct = true;
  c.outputs.ns3_fct_style = format == "conweave" ? "conweave" : "hpcc";
  std::ofstream(out) << "# rocelab scenario imported from ns-3 files (" << flows.size()
                     << " flows); edit freely.\n"
                     << resolved_yaml(c);
  std::printf("wrote %s: %zu flows\n", out.c_str(), flows.size());
  return 0;
}

#ifndef ROCELAB_HAVE_MPI
std::unique_ptr<RankGroup> start_mpi_ranks(int*, char***) {
  throw std::runtime_error(
      "started by mpirun, but this rocelab was built without MPI (install libopenmpi-dev and "
      "rebuild); run it without mpirun, with --threads, to use the local cores");
}
void finish_mpi_ranks() {}
[[noreturn]] void abort_mpi_ranks(int status) {
  std::exit(status);
}
#endif

// `mpirun -np K rocelab run S.yaml`: one run over K processes (issue 52); rank 0 writes the
// run directory and prints what a run in one process prints.
int run_over_mpi_ranks(ScenarioConfig& c, RunOptions o, int* argc, char*** argv) {
  const std::unique_ptr<RankGroup> ranks = start_mpi_ranks(argc, argv);
  const bool root = ranks->rank() == 0;
  int status = 0;
  try {
    o.ranks = ranks.get();
    o.quiet = o.quiet || !root;
    const nlohmann::json s = run_scenario(c, o);
    if (root) {
      const std::string label = SchemeTriple{c.lb, c.cc, c.fc}.label();
      print_summary(label, s);
      std::printf("results in %s/\n", o.out_dir.c_str());
      if (!s["complete"].get<bool>()) {
        status = 130;
      } else {
        report_notes(label, s);
        status = report_invariant(label, s) ? 0 : 3;
      }
    }
  } catch (const ConfigError& e) {
    // A rank may find an error the others do not (a file missing on its machine) while
    // they wait in a collective: every rank that finds one ends them all.
    std::fprintf(stderr, "rocelab: error%s: %s\n",
                 root ? "" : (" on rank " + std::to_string(ranks->rank())).c_str(), e.what());
    abort_mpi_ranks(2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocelab: error on rank %u: %s\n", ranks->rank(), e.what());
    abort_mpi_ranks(1);
  }
  // Every rank ends with rank 0's status.
  uint64_t code = static_cast<uint64_t>(status);
  ranks->sum_u64({&code, 1});
  finish_mpi_ranks();
  return static_cast<int>(code);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocelab: a fast, faithful simulator of lossless RDMA (RoCEv2 + PFC) fabrics"};
  app.require_subcommand(1);

  std::string scenario, out_dir, schemes, topo_file, flows_file, format = "auto", preset,
                                                                 import_out;
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  bool quiet = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());

  // Options every simulating subcommand takes.
  auto add_run_options = [&](CLI::App* sub, const std::string& out_help) {
    sub->add_option("scenario", scenario, "scenario YAML file")->required();
    sub->add_option("--out,-o", out_dir, out_help);
    sub->add_option("--seed", seed, "override the scenario's seed");
    sub->add_option("--set", sets, "override a parameter: dotted.key=value (repeatable)");
    sub->add_flag("--quiet,-q", quiet, "no progress line");
  };
  auto* run = app.add_subcommand("run", "run one scenario");
  add_run_options(run, "run directory (default runs/<name>)");
  uint32_t threads = 1;
  run->add_option("--threads,-t", threads,
                  "threads for this one run: the network cut into partitions, the same results "
                  "as one thread (docs/parallel.md)")
      ->check(CLI::Range(1u, 1024u));
  uint32_t partitions = 0;
  run->add_option("--partitions", partitions,
                  "partitions to cut the network into (default: four per thread, at most one per "
                  "edge switch); several on one thread show the parallelism a larger machine "
                  "would find (summary.json's parallel.*)")
      ->check(CLI::Range(0u, 1u << 20));

  auto* cmp = app.add_subcommand("compare", "run one scenario under several schemes");
  add_run_options(cmp, "write DIR/<scheme>/ and DIR/compare.csv");
  cmp->add_option("--schemes", schemes, "LB+CC[+FC],... e.g. ecmp+dcqcn,letflow+none")->required();
  cmp->add_option("--jobs,-j", jobs,
                  "runs in parallel (default: all cores / --threads; under mpirun 1 per rank, "
                  "0: rank 0 only hands out runs)");
  const std::string threads_per_run_help =
      "threads of each run (as run --threads; the same results): the cores are split between "
      "--jobs runs at once and the threads of each";
  cmp->add_option("--threads,-t", threads, threads_per_run_help)->check(CLI::Range(1u, 1024u));
  const std::string partitions_per_run_help =
      "partitions of each run (as run --partitions; 0: four per thread)";
  cmp->add_option("--partitions", partitions, partitions_per_run_help)
      ->check(CLI::Range(0u, 1u << 20));

  auto* swp = app.add_subcommand("sweep", "run a grid of parameters x schemes x seeds");
  std::string sweep_file;
  bool force = false;
  swp->add_option("sweep", sweep_file, "sweep YAML file (docs/sweep.md)")->required();
  swp->add_option("--out,-o", out_dir, "results directory (default runs/<sweep file name>)");
  swp->add_option("--jobs,-j", jobs,
                  "runs at once in this process (default: all cores / --threads; 1 per rank "
                  "under mpirun, where 0 makes rank 0 only hand out runs)");
  swp->add_option("--threads,-t", threads, threads_per_run_help)->check(CLI::Range(1u, 1024u));
  swp->add_option("--partitions", partitions, partitions_per_run_help)
      ->check(CLI::Range(0u, 1u << 20));
  swp->add_flag("--quiet,-q", quiet, "no progress output");
  swp->add_flag("--force", force, "rerun finished runs too");
  std::string seeds_override;
  bool dry_run = false;
  swp->add_option("--seeds", seeds_override, "replace the file's seeds: 1..5 or 1,2,3");
  swp->add_flag("--dry-run,-n", dry_run, "check the sweep and list its runs; run nothing");

  std::string plot_dir, plot_out;
  auto* plt = app.add_subcommand("plot", "figures of a run, compare or sweep directory");
  plt->add_option("dir", plot_dir, "a run, compare or sweep directory")->required();
  plt->add_option("--out,-o", plot_out, "where the figures go (default DIR/plots)");
  auto* rep = app.add_subcommand("report", "a Markdown and HTML page of a sweep or compare");
  rep->add_option("dir", plot_dir, "a sweep, compare or run directory")->required();
  rep->add_option("--out,-o", plot_out, "where report.md/.html go (default DIR)");

  std::string schema_key;
  bool schema_markdown = false;
  auto* sch = app.add_subcommand("schema", "what a results key means, and its unit");
  sch->add_option("key", schema_key,
                  "a key (by_size.small.p99_slowdown, flows.csv:fct_ns) or a file (sweep.csv); "
                  "none: the whole schema as JSON");
  sch->add_flag("--markdown", schema_markdown, "as Markdown tables (docs/output.md)");

  auto* val = app.add_subcommand("validate", "check a scenario without running it");
  val->add_option("scenario", scenario, "scenario YAML file")->required();
  val->add_option("--set", sets, "override a parameter: dotted.key=value (repeatable)");
  std::string flows_out;
  val->add_option("--flows-out", flows_out,
                  "also write the scenario's flows as a flow trace (CSV with the DAG columns, "
                  "docs/workloads.md), for a trace workload or another tool");

  auto* lst = app.add_subcommand("list", "schemes, topologies, workloads and presets");
  auto* par = app.add_subcommand("params", "every parameter with its default and source");
  par->add_option("scenario", scenario, "show the values this scenario resolves to");

  auto* imp = app.add_subcommand("import", "make a scenario from ns-3 topology and flow files");
  imp->add_option("--topology", topo_file, "topology file (HPCC/ConWeave format)")->required();
  imp->add_option("--flows", flows_file, "flow file")->required();
  imp->add_option("--format", format, "hpcc | conweave | auto")
      ->check(CLI::IsMember({"hpcc", "conweave", "auto"}));
  imp->add_option("--preset", preset, "none (the default) or a preset of `rocelab list`")
      ->check(CLI::IsMember(preset_choices()));
  imp->add_option("-o,--out", import_out, "scenario file to write")->required();

  CLI11_PARSE(app, argc, argv);
  // compare, sweep: --threads T alone runs cores / T runs at once.
  for (const CLI::App* sub : {cmp, swp})
    if (sub->parsed() && !sub->count("--jobs")) jobs = std::max(1u, jobs / threads);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  try {
    if (lst->parsed()) return cmd_list();
    if (sch->parsed()) return cmd_schema(schema_key, schema_markdown);
    if (plt->parsed()) return run_plot_script("plot", plot_dir, plot_out);
    if (rep->parsed()) return run_plot_script("report", plot_dir, plot_out);
    if (swp->parsed()) {
      const Sweep sweep = load_sweep(sweep_file, seeds_override);
      if (dry_run) {
        std::printf("%s: ok: %zu points x %zu schemes x %zu seeds = %zu runs\n", sweep_file.c_str(),
                    sweep.points.size(), sweep.schemes.size(), sweep.seeds.size(),
                    sweep.runs.size());
        if (!quiet)
          for (const auto& r : sweep.runs) std::printf("  %s\n", r.rel_dir.c_str());
        return 0;
      }
      SweepOptions o;
      o.out_dir =
          out_dir.empty() ? "runs/" + std::filesystem::path(sweep_file).stem().string() : out_dir;
      o.quiet = quiet;
      o.force = force;
      o.threads = threads;
      o.partitions = partitions;
      o.interrupted = &g_interrupted;
      if (launched_by_mpi()) {
        o.jobs = swp->count("--jobs") ? jobs : 1;
        return run_sweep_mpi(sweep, o, &argc, &argv);
      }
      o.jobs = jobs;
      return run_sweep_local(sweep, o);
    }
    if (imp->parsed()) return cmd_import(topo_file, flows_file, format, preset, import_out);
    if (par->parsed()) {
      ScenarioConfig c = scenario.empty() ? ScenarioConfig{} : load(scenario, {}, std::nullopt);
      std::printf("%s", parameter_table(c).c_str());
      return 0;
    }
    ScenarioConfig c = load(scenario, sets, seed);
    if (val->parsed()) {
      const ExperimentSpec spec = build_experiment(c);
      if (!flows_out.empty()) {
        std::ofstream out(flows_out);
        write_flow_trace_csv(out, spec.flows);
        if (!out) throw std::runtime_error(flows_out + ": cannot write");
      }
      std::printf("%s: ok (%zu nodes, %zu links, %zu flows, %s+%s+%s)\n", scenario.c_str(),
                  spec.topology.nodes.size(), spec.topology.links.size(), spec.flows.size(),
                  c.lb.c_str(), c.cc.c_str(), c.fc.c_str());
      return 0;
    }
    if (run->parsed()) {
      RunOptions o;
      o.quiet = quiet;
      o.interrupted = &g_interrupted;
      o.threads = threads;
      o.partitions = partitions;
      o.out_dir = out_dir.empty() ? "runs/" + c.name : out_dir;
      if (launched_by_mpi()) return run_over_mpi_ranks(c, o, &argc, &argv);
      const nlohmann::json s = run_scenario(c, o);
      const std::string label = SchemeTriple{c.lb, c.cc, c.fc}.label();
      print_summary(label, s);
      std::printf("results in %s/\n", o.out_dir.c_str());
      if (!s["complete"].get<bool>()) return 130;
      report_notes(label, s);
      return report_invariant(label, s) ? 0 : 3;
    }
    // compare
    SweepOptions o;
    o.out_dir = out_dir;
    o.quiet = quiet;
    o.threads = threads;
    o.partitions = partitions;
    o.interrupted = &g_interrupted;
    o.jobs = launched_by_mpi() && !cmp->count("--jobs") ? 1 : jobs;
    return run_compare({scenario, sets, seed, schemes}, o, &argc, &argv);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "rocelab: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocelab: error: %s\n", e.what());
    return 1;
  }
}
