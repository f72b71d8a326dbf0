// Macro benchmarks (issue 10, "Performance: 100x ns-3"): whole simulations by name, chosen
// with --case. Each prints wall time, events, data packets and data-packet hops (and their
// rates), flows, peak RSS and headline results; --json writes the same numbers so tables
// in docs/ can be made by script.
//
//   websearch-8x8  8x8 leaf-spine, 16 hosts per leaf, 100 Gb/s, 1 us links, 12 MB buffers,
//                  ECMP + DCQCN + PFC (rocelab defaults), Poisson WebSearch at 50% load
//                  for 5 ms, cut at 10 ms simulated (the original case, unchanged).
//   conweave-128   ConWeave-ns3's reference scenario generated here: the same leaf-spine
//                  (2:1 oversubscribed), AliStorage2019 at 25% host load for 20 ms,
//                  ECMP + DCQCN + PFC with the conweave-ns3 preset, until every flow ends.
//   fattree-1024   k = 16 fat-tree (1,024 hosts), 100 Gb/s, 1 us, WebSearch at 50% load for
//                  10 ms, ECMP + DCQCN + PFC with rocelab's defaults (no preset), until
//                  every flow ends.
//   rail-1024-allreduce  1,024 GPUs: 128 servers x 8 NICs at 400 Gb/s, rail-optimised
//                  (scalable units of 32 servers, 32 rail leaves, 32 spines, 1 us links),
//                  ECMP + DCQCN + PFC; one all-reduce of 64 MB per GPU as NCCL runs it there
//                  (one ring of 128 per rail, 2 channels x 2 chunks: 1,040,384 flows with
//                  dependencies), until it ends.
//   rail-8192-allreduce  8,192 GPUs: 1,024 servers x 8 NICs at 400 Gb/s (32 scalable units of
//                  32 servers, 256 rail leaves, 32 spines, 1 us links), ECMP + DCQCN + PFC;
//                  one all-reduce of 256 MB per GPU, a ring of 1,024 per rail, 1 channel x
//                  1 chunk (16,760,832 messages of 32 KB on 8,192 QPs), for 0.05 ms
//                  simulated by default: what a large job costs to build and hold (RSS) and
//                  per event, not its iteration time.
//   rail-1024-poisson  the same fabric and schemes with Poisson WebSearch at 50% load for
//                  0.5 ms instead: the per-event cost of ordinary traffic on it.
//   million-flows  the conweave-128 network (and preset) with --flows (1,000,000) flows of
//                  4,000 B each, Poisson at 25% host load: what a million flows cost in
//                  memory (RSS after setup, peak RSS) and time.
//
// --sim-ms, --arrival-ms, --load, --seed, --lb, --cc, --cdf and --preset override any
// case's values, so e.g. `--case conweave-128 --arrival-ms 40` doubles its traffic.
// --deadlock-detect sets faults.deadlock.detect (auto, the default, is on under PFC; the
// websearch-8x8 case, built without a scenario, has no detector unless asked).
#include <malloc.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include <fmt/format.h>

#include "scenario/build/experiment.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/version.h"
#include "scenario/results/results.h"
#include "stats/fct_summary.h"
#include "workload/flow_size_cdf.h"
#include "workload/poisson.h"

using namespace rocelab;

namespace {

// What the command line sets; unset fields keep the case's own value.
struct Overrides {
  std::optional<double> sim_ms;
  std::optional<double> arrival_ms;
  std::optional<double> load;
  std::optional<uint64_t> seed;
  std::optional<std::string> lb;
  std::optional<std::string> cc;
  std::optional<std::string> cdf;
  std::optional<std::string> preset;
  std::optional<std::string> deadlock_detect;  // the scenario-built cases' faults.deadlock
  uint64_t max_flows = 1000 * 1000;            // million-flows only
};

// A case made ready to run.
struct CaseSetup {
  ExperimentSpec spec;
  std::string scenario;  // one line saying what runs
  Time limit = Time::never();
  std::string preset = "none";
  std::string cdf;
  double load = 0;
  double arrival_ms = 0;
};

Time after_ms(double ms) {
  return Time::zero() + Delta::from_seconds(ms * 1e-3);
}

// "lb+cc+fc"; without a flow-control name the network runs PFC when its config enables it.
std::string scheme_names(const ExperimentSpec& spec) {
  const std::string fc = !spec.fc.empty()                         ? spec.fc
                         : spec.network.switch_config.pfc.enabled ? "pfc"
                                                                  : "none";
  return spec.lb + "+" + spec.cc + "+" + fc;
}

// ---------------------------------------------------------------- the original case

// Built directly as an ExperimentSpec, as before the cases existed, so that its numbers
// (same flows from the same "workload" stream) stay comparable with earlier runs.
CaseSetup websearch_8x8(const Overrides& o) {
  if (o.preset) throw std::invalid_argument("--preset: websearch-8x8 runs rocelab's defaults");
  CaseSetup c;
  const uint64_t seed = o.seed.value_or(1);
  c.load = o.load.value_or(0.5);
  c.arrival_ms = o.arrival_ms.value_or(5);
  c.limit = after_ms(o.sim_ms.value_or(10));
  ExperimentSpec& spec = c.spec;
  LeafSpineParams ls;  // defaults: 8 x 8, 16 hosts/leaf, 100 Gb/s, 1 us
  spec.topology = leaf_spine(ls);
  spec.network.switch_config.buffer_bytes = 12 * 1000 * 1000;
  spec.network.seed = seed;
  spec.lb = o.lb.value_or("ecmp");
  spec.cc = o.cc.value_or("dcqcn");
  // No detector unless asked (as the case ran before `rocelab run` turned it on by default).
  if (o.deadlock_detect && *o.deadlock_detect != "off") {
    const ScenarioConfig defaults;
    spec.faults.deadlock.check_interval = defaults.faults.deadlock_check_interval;
    spec.faults.deadlock.persist = defaults.faults.deadlock_persist;
  }

  const FlowSizeCdf cdf = FlowSizeCdf::load(resolve_cdf(o.cdf.value_or("websearch")));
  c.cdf = cdf.name();
  PoissonParams pp;
  for (uint32_t h : spec.topology.hosts()) {
    pp.hosts.push_back(h);
    pp.host_rack.push_back(h / ls.hosts_per_leaf);
  }
  pp.host_rate_bps = ls.host_rate_bps;
  pp.load = c.load;
  pp.start = Time::zero();
  pp.stop = after_ms(c.arrival_ms);
  RandomStream rng(seed, "workload");
  spec.flows = generate_poisson(pp, cdf, rng);
  c.scenario = fmt::format("{}, 100 Gb/s, 1 us links, 12 MB buffers, {}", spec.topology.description,
                           scheme_names(spec));
  return c;
}

// ---------------------------------------------------------------- scenario-built cases

// A scenario as `rocelab run` builds one: the preset first (its defaults, and its scheme
// parameters through build_experiment), then what the case and the command line set.
ScenarioConfig scenario_base(const Overrides& o, const std::string& default_preset) {
  ScenarioConfig c;
  apply_preset(o.preset.value_or(default_preset), c);
  c.seed = static_cast<int64_t>(o.seed.value_or(1));
  c.lb = o.lb.value_or("ecmp");
  if (o.cc) c.cc = *o.cc;  // else the preset's (conweave-ns3: dcqcn) or rocelab's (dcqcn)
  if (o.deadlock_detect) c.faults.deadlock = *o.deadlock_detect;
  return c;
}

WorkloadConfig poisson_workload(const std::string& cdf, double load, double arrival_ms) {
  WorkloadConfig w;
  w.name = "background";
  w.type = "poisson";
  w.cdf = cdf;
  w.load = load;  // of each sender's host link (load_on: senders)
  w.start = Delta::zero();
  w.stop = Delta::from_seconds(arrival_ms * 1e-3);
  return w;
}

// ConWeave-ns3's leaf_spine_128_100G_OS2: 8 leaves x 8 spines, 16 hosts per leaf, every
// link 100 Gb/s and 1 us, so 1,600 Gb/s of hosts share 800 Gb/s of uplinks per leaf.
void conweave_leaf_spine(ScenarioConfig& c) {
  c.topology.type = "leaf_spine";
  c.topology.leaf_spine = LeafSpineParams{8, 8, 16, gbps(100), gbps(100), Delta::from_us(1)};
}

CaseSetup finish_scenario_case(ScenarioConfig& sc, const Overrides& o, const std::string& what) {
  CaseSetup c;
  c.preset = sc.preset;
  const WorkloadConfig& w = sc.workloads.at(0);
  c.cdf = w.type == "poisson" ? w.cdf : w.type + ": " + w.collective.op;
  c.load = w.type == "poisson" ? w.load : 0;
  c.arrival_ms = w.type == "poisson" ? (w.stop - w.start).seconds() * 1e3 : 0;
  c.spec = build_experiment(sc);
  if (o.sim_ms) c.limit = after_ms(*o.sim_ms);
  c.scenario = fmt::format("{}, {}, {}, preset {}", c.spec.topology.description, what,
                           scheme_names(c.spec), c.preset);
  return c;
}

CaseSetup conweave_128(const Overrides& o) {
  ScenarioConfig sc = scenario_base(o, "conweave-ns3");
  conweave_leaf_spine(sc);
  sc.workloads = {poisson_workload(o.cdf.value_or("alistorage2019"), o.load.value_or(0.25),
                                   o.arrival_ms.value_or(20))};
  return finish_scenario_case(sc, o, "100 Gb/s, 1 us links, 2:1 oversubscribed");
}

CaseSetup fattree_1024(const Overrides& o) {
  ScenarioConfig sc = scenario_base(o, "none");
  // k = 16: 16 pods of 8 edge and 8 aggregation switches, 8 hosts per edge, (k/2)^2 = 64
  // cores, each aggregation switch reaching 8 of them; no oversubscription.
  sc.topology.type = "fat_tree";
  sc.topology.fat_tree = FatTreeParams{16, 8, 8, 8, 64, gbps(100), gbps(100), Delta::from_us(1)};
  sc.workloads = {poisson_workload(o.cdf.value_or("websearch"), o.load.value_or(0.5),
                                   o.arrival_ms.value_or(10))};
  return finish_scenario_case(sc, o, "k = 16, 100 Gb/s, 1 us links");
}

CaseSetup million_flows(const Overrides& o) {
  constexpr double kFlowBytes = 4000;  // AliStorage2019's smallest size (23% of its flows)
  ScenarioConfig sc = scenario_base(o, "conweave-ns3");
  conweave_leaf_spine(sc);
  // build_experiment wants a workload that makes flows; the scenario's own (a placeholder
  // flow) is replaced below by the fixed-size ones, which need no CDF file.
  WorkloadConfig placeholder;
  placeholder.name = "background";
  placeholder.type = "flows";
  placeholder.flows = {{"h0", "h1", 1000, Delta::zero()}};
  sc.workloads = {placeholder};
  CaseSetup c;
  c.spec = build_experiment(sc);
  c.preset = sc.preset;
  c.load = o.load.value_or(0.25);
  if (o.sim_ms) c.limit = after_ms(*o.sim_ms);

  const FlowSizeCdf cdf = o.cdf ? FlowSizeCdf::load(resolve_cdf(*o.cdf))
                                : FlowSizeCdf::from_points({{kFlowBytes, 100}}, "fixed-4000B");
  c.cdf = cdf.name();
  PoissonParams pp;
  for (uint32_t h : c.spec.topology.hosts()) {
    pp.hosts.push_back(h);
    pp.host_rack.push_back(h / sc.topology.leaf_spine.hosts_per_leaf);
  }
  pp.host_rate_bps = sc.topology.leaf_spine.host_rate_bps;
  pp.load = c.load;
  // Unless given, the arrival window is the one in which the hosts start max_flows flows
  // at this load on average, plus 1% so that a Poisson draw nearly surely reaches the count
  // (its standard deviation is sqrt(1e6) = 0.1%); the flows beyond it are dropped.
  const double flows_per_s = static_cast<double>(pp.hosts.size()) * c.load *
                             static_cast<double>(pp.host_rate_bps) / (8 * cdf.mean_bytes());
  c.arrival_ms = o.arrival_ms.value_or(1.01 * static_cast<double>(o.max_flows) / flows_per_s * 1e3);
  pp.start = Time::zero();
  pp.stop = after_ms(c.arrival_ms);
  RandomStream rng(static_cast<uint64_t>(sc.seed), "workload:million-flows");
  c.spec.flows = generate_poisson(pp, cdf, rng);
  if (c.spec.flows.size() > o.max_flows) c.spec.flows.resize(o.max_flows);
  c.scenario =
      fmt::format("{}, 100 Gb/s, 1 us links, {}, preset {}, {} flows of {}",
                  c.spec.topology.description, scheme_names(c.spec), c.preset, o.max_flows, c.cdf);
  return c;
}

// 128 servers x 8 NICs, 400 Gb/s, scalable units of 32 servers (DGX SuperPOD): 4 x 8 rail
// leaves with 32 NICs each and 32 uplinks to 32 spines.
void rail_1024(ScenarioConfig& c) {
  c.topology.type = "rail_optimized";
  c.topology.rail = RailParams{128, 8, 32, 32, true, gbps(400), gbps(400), Delta::from_us(1)};
  c.switch_config.buffer_bytes = 64 * 1000 * 1000;
}

// A rail fabric of `servers` servers (rail_1024's otherwise) running one all-reduce per
// rail (per_nic), NCCL-style: `size_bytes` per GPU, `channels` x `chunks`.
CaseSetup rail_allreduce(const Overrides& o, const std::string& name, uint32_t servers,
                         uint64_t size_bytes, uint32_t channels, uint32_t chunks,
                         const std::string& size_text) {
  if (o.cdf || o.load || o.arrival_ms)
    throw std::invalid_argument("--cdf, --load, --arrival-ms: " + name + " is one collective");
  ScenarioConfig sc = scenario_base(o, "none");
  rail_1024(sc);
  sc.topology.rail.servers = servers;
  WorkloadConfig w;
  w.name = "allreduce";
  w.type = "collective";
  w.collective.op = "all_reduce";
  w.per_nic = true;
  w.collective.size_bytes = size_bytes;
  w.collective.channels = channels;
  w.collective.chunks = chunks;
  sc.workloads = {w};
  CaseSetup c = finish_scenario_case(sc, o, "400 Gb/s, 1 us links, 64 MB buffers");
  c.cdf = "collective: all_reduce, a ring per rail, " + size_text + " per GPU";
  return c;
}

CaseSetup rail_1024_allreduce(const Overrides& o) {
  return rail_allreduce(o, "rail-1024-allreduce", 128, 64 * 1000 * 1000, 2, 2, "64 MB");
}

CaseSetup rail_8192_allreduce(const Overrides& o) {
  Overrides with_limit = o;
  if (!with_limit.sim_ms) with_limit.sim_ms = 0.05;
  return rail_allreduce(with_limit, "rail-8192-allreduce", 1024, 256 * 1024 * 1024, 1, 1,
                        "256 MiB");
}

CaseSetup rail_1024_poisson(const Overrides& o) {
  ScenarioConfig sc = scenario_base(o, "none");
  rail_1024(sc);
  sc.workloads = {poisson_workload(o.cdf.value_or("websearch"), o.load.value_or(0.5),
                                   o.arrival_ms.value_or(0.5))};
  return finish_scenario_case(sc, o, "400 Gb/s, 1 us links, 64 MB buffers");
}

struct BenchCase {
  const char* name;
  std::function<CaseSetup(const Overrides&)> setup;
};

const BenchCase kCases[] = {
    {"websearch-8x8", websearch_8x8},
    {"conweave-128", conweave_128},
    {"fattree-1024", fattree_1024},
    {"million-flows", million_flows},
    {"rail-1024-allreduce", rail_1024_allreduce},
    {"rail-8192-allreduce", rail_8192_allreduce},
    {"rail-1024-poisson", rail_1024_poisson},
};

// ---------------------------------------------------------------- measuring

double peak_rss_mb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024;  // ru_maxrss is in KiB on Linux
}

// Resident set now (Linux /proc/self/statm), after handing freed heap back to the system
// so that it counts only what is still allocated.
double current_rss_mb() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return static_cast<double>(resident_pages) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576;
}

double per(double a, double b) {
  return b > 0 ? a / b : 0;
}

// Set by SIGINT/SIGTERM (e.g. from `timeout`): a run in chunks stops at the next chunk and
// still reports how far it got.
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

// The run in chunks of simulated time, with a progress line on stderr every `progress_s`
// wall seconds; the same events in the same order as one exp.run(limit) call.
RunStats run_with_progress(Experiment& exp, Time limit, double progress_s, bool* interrupted) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto last_print = t0;
  const uint64_t events0 = exp.sim().events_processed();
  Delta chunk = Delta::from_us(10);
  RunStats st;
  for (;;) {
    const auto c0 = Clock::now();
    st = exp.run(std::min(limit, exp.sim().now() + chunk));
    if (st.done || exp.sim().now() >= limit || exp.sim().pending_events() == 0) break;
    if (g_interrupted) {
      *interrupted = true;
      break;
    }
    // About 0.1 s of wall time per chunk: the checks cost nothing next to it.
    const double chunk_wall_s = std::chrono::duration<double>(Clock::now() - c0).count();
    if (chunk_wall_s < 0.05 && chunk < Delta::from_ms(100)) chunk = chunk * 2;
    if (chunk_wall_s > 0.2 && chunk > Delta::from_ns(100)) chunk = chunk / 2;
    if (std::chrono::duration<double>(Clock::now() - last_print).count() >= progress_s) {
      last_print = Clock::now();
      std::fprintf(
          stderr, "progress: %.1f s wall, %.3f ms simulated, %llu of %zu flows done, %llu events\n",
          std::chrono::duration<double>(last_print - t0).count(), exp.sim().now().us() / 1000,
          static_cast<unsigned long long>(exp.transport().counters().flows_finished),
          exp.transport().flow_count(),
          static_cast<unsigned long long>(exp.sim().events_processed() - events0));
    }
  }
  st.events = exp.sim().events_processed() - events0;
  st.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return st;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocelab macro benchmark"};
  std::string case_name = "websearch-8x8";
  std::string json_path;
  Overrides o;
  std::vector<std::string> names;
  for (const BenchCase& c : kCases) names.push_back(c.name);
  app.add_option("--case", case_name, "which simulation to run")
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  app.add_option("--sim-ms", o.sim_ms, "stop after this much simulated time (ms)");
  app.add_option("--arrival-ms", o.arrival_ms, "flows arrive during the first this many ms");
  app.add_option("--load", o.load, "offered load per host link (0,1)");
  app.add_option("--seed", o.seed, "scenario seed");
  app.add_option("--lb", o.lb, "load balancer");
  app.add_option("--cc", o.cc, "congestion control");
  app.add_option("--cdf", o.cdf, "flow-size CDF: a shipped name or a file");
  app.add_option("--preset", o.preset, "preset (none, conweave-ns3, hpcc-ns3)");
  app.add_option("--deadlock-detect", o.deadlock_detect,
                 "faults.deadlock.detect of the scenario-built cases (its cost: auto against off)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--flows", o.max_flows, "million-flows: how many flows")->capture_default_str();
  app.add_option("--json", json_path, "also write the numbers to this JSON file");
  uint32_t threads = 1, partitions = 0;
  app.add_option("--threads", threads, "threads for the run (rocelab run --threads)")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--partitions", partitions,
                 "partitions to cut the network into (0: four per thread)");
  double progress_s = 0;
  app.add_option("--progress-s", progress_s,
                 "run in chunks, a progress line every this many wall seconds; SIGINT or "
                 "SIGTERM then ends the run early and still reports");
  CLI11_PARSE(app, argc, argv);

  try {
    const BenchCase* bench_case = nullptr;
    for (const BenchCase& c : kCases)
      if (case_name == c.name) bench_case = &c;

    const auto setup_t0 = std::chrono::steady_clock::now();
    CaseSetup setup = bench_case->setup(o);
    // The simulation takes the flows (no second copy inflates the memory figures).
    const size_t flow_count = setup.spec.flows.size();
    Experiment exp(std::move(setup.spec));
    exp.set_threads(threads, partitions);
    const double setup_wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_t0).count();
    const double setup_rss_mb = current_rss_mb();

    bool interrupted = false;
    const RunStats st = progress_s > 0
                            ? run_with_progress(exp, setup.limit, progress_s, &interrupted)
                            : exp.run(setup.limit);

    const double rss_mb = peak_rss_mb();
    const auto& tc = exp.transport().counters();
    const auto& nc = exp.network().counters();
    const uint64_t hops = exp.network().data_packet_hops();
    std::vector<FctSample> samples;
    for (const FlowRecord& r : exp.transport().records())
      if (r.finished()) samples.push_back({r.size_bytes, r.fct().us(), r.ideal_fct.us()});
    const FctSummary fs = summarize(samples);
    const double events = static_cast<double>(st.events);
    const double data_packets = static_cast<double>(tc.data_packets_sent);

    fmt::print("case          : {}\n", bench_case->name);
    fmt::print("scenario      : {}\n", setup.scenario);
    fmt::print("workload      : {} at load {:.2f}, arrivals for {:.3f} ms, seed {}\n", setup.cdf,
               setup.load, setup.arrival_ms, o.seed.value_or(1));
    fmt::print("flows         : {}, {} finished by {:.3f} ms simulated{}\n", flow_count,
               tc.flows_finished, st.sim_end.us() / 1000,
               st.all_finished ? ""
               : interrupted   ? " (INTERRUPTED)"
                               : " (NOT all finished)");
    fmt::print("setup         : {:.3f} s, RSS after setup {:.1f} MB\n", setup_wall_s, setup_rss_mb);
    fmt::print("wall time     : {:.3f} s\n", st.wall_s);
    fmt::print("events        : {}\n", st.events);
    fmt::print("events/s      : {:.3e}\n", per(events, st.wall_s));
    fmt::print("data packets  : {} sent, {:.3e} per wall second\n", tc.data_packets_sent,
               per(data_packets, st.wall_s));
    fmt::print("data hops     : {} (data frames sent by all ports), {:.3f} events per hop\n", hops,
               per(events, static_cast<double>(hops)));
    fmt::print("peak RSS      : {:.1f} MB\n", rss_mb);
    const auto ev = exp.sim().event_list_counts();
    fmt::print(
        "event wheel   : {} slots of {} ps; of {} pushes, {:.2f}% to the heap beyond the "
        "horizon, {:.2f}% into a full slot\n",
        exp.sim().event_wheel_slots(), exp.sim().event_slot_width_ps(), ev.pushes,
        100.0 * per(static_cast<double>(ev.far_beyond), static_cast<double>(ev.pushes)),
        100.0 * per(static_cast<double>(ev.far_full), static_cast<double>(ev.pushes)));
    fmt::print(
        "finished flows: AFCT {:.1f} us, p99 FCT {:.1f} us, mean slowdown {:.2f}, "
        "p99 slowdown {:.2f}\n",
        fs.afct_us, fs.p99_fct_us, fs.mean_slowdown, fs.p99_slowdown);
    fmt::print("PFC PAUSE     : {} frames, drops {}, ECN marks {}, CNPs {}\n", nc.pause_frames,
               nc.drops, nc.ecn_marks, tc.cnps_sent);
    const nlohmann::json par = parallel_profile_json(exp.sim());
    fmt::print(
        "parallel      : {} threads, {} partitions, {} windows, {:.0f} events per window, "
        "critical path {:.3f}; wall {:.3f} s: busy {:.3f} s (all threads), between windows "
        "{:.3f} s, barrier wait {:.3f} s (unequal work {:.3f} s)\n",
        threads, par["partitions"].get<uint32_t>(), par["windows"].get<uint64_t>(),
        par["events_per_window"].get<double>(), par["critical_path_share"].get<double>(),
        par["run_s"].get<double>(), par["busy_s"].get<double>(),
        par["between_windows_s"].get<double>(), par["barrier_wait_s"].get<double>(),
        par["imbalance_s"].get<double>());

    if (!json_path.empty()) {
      nlohmann::json j;
      j["version"] = rocelab_version();
      j["case"] = bench_case->name;
      j["scenario"] = setup.scenario;
      j["preset"] = setup.preset;
      j["lb"] = exp.spec().lb;
      j["cc"] = exp.spec().cc;
      j["cdf"] = setup.cdf;
      j["load"] = setup.load;
      j["arrival_ms"] = setup.arrival_ms;
      j["seed"] = o.seed.value_or(1);
      j["sim_limit_ms"] = setup.limit == Time::never() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(setup.limit.us() / 1000);
      j["flows"] = flow_count;
      j["flows_finished"] = tc.flows_finished;
      j["all_finished"] = st.all_finished;
      j["interrupted"] = interrupted;
      j["sim_end_ms"] = st.sim_end.us() / 1000;
      j["setup_wall_s"] = setup_wall_s;
      j["rss_after_setup_mb"] = setup_rss_mb;
      j["wall_s"] = st.wall_s;
      j["events"] = st.events;
      j["events_per_s"] = per(events, st.wall_s);
      j["data_packets_sent"] = tc.data_packets_sent;
      j["data_packets_per_wall_s"] = per(data_packets, st.wall_s);
      j["data_packet_hops"] = hops;
      j["events_per_data_packet_hop"] = per(events, static_cast<double>(hops));
      j["peak_rss_mb"] = rss_mb;
      j["event_wheel_slots"] = exp.sim().event_wheel_slots();
      j["event_slot_width_ps"] = exp.sim().event_slot_width_ps();
      j["afct_us"] = fs.afct_us;
      j["p99_fct_us"] = fs.p99_fct_us;
      j["mean_slowdown"] = fs.mean_slowdown;
      j["p99_slowdown"] = fs.p99_slowdown;
      j["pfc_pause_frames"] = nc.pause_frames;
      j["drops"] = nc.drops;
      j["ecn_marks"] = nc.ecn_marks;
      j["cnps_sent"] = tc.cnps_sent;
      j["parallel"] = par;
      std::ofstream out(json_path);
      if (!out) throw std::runtime_error("--json: cannot write " + json_path);
      out << j.dump(2) << "\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_macro: %s\n", e.what());
    return 1;
  }
  return 0;
}
