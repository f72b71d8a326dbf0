// Macro benchmark (issue "Simulation core"): 8x8 leaf-spine, 16 hosts per leaf, 100 Gb/s,
// 1 us links, 12 MB switch buffers, ECMP + DCQCN, Poisson WebSearch at 50% load.
// Prints events/s, simulated packets per wall second, wall time and peak RSS.
#include <sys/resource.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>

#include "scenario/experiment.h"
#include "stats/fct_summary.h"
#include "workload/flow_size_cdf.h"
#include "workload/poisson.h"

using namespace rocelab;

int main(int argc, char** argv) {
  CLI::App app{"rocelab macro benchmark"};
  double sim_ms = 10, arrival_ms = 5, load = 0.5;
  uint64_t seed = 1;
  std::string lb = "ecmp", cc = "dcqcn";
  std::string cdf_path = std::string(ROCELAB_SOURCE_DIR) + "/workloads/websearch.cdf";
  app.add_option("--sim-ms", sim_ms, "simulated time to run (ms)");
  app.add_option("--arrival-ms", arrival_ms, "flows arrive during the first this many ms");
  app.add_option("--load", load, "offered load per host link (0,1)");
  app.add_option("--seed", seed, "scenario seed");
  app.add_option("--lb", lb, "load balancer");
  app.add_option("--cc", cc, "congestion control");
  app.add_option("--cdf", cdf_path, "flow-size CDF file");
  CLI11_PARSE(app, argc, argv);

  try {
    ExperimentSpec spec;
    LeafSpineParams ls;  // defaults: 8 x 8, 16 hosts/leaf, 100 Gb/s, 1 us
    spec.topology = leaf_spine(ls);
    spec.network.switch_config.buffer_bytes = 12 * 1000 * 1000;
    spec.network.seed = seed;
    spec.lb = lb;
    spec.cc = cc;

    const FlowSizeCdf cdf = FlowSizeCdf::load(cdf_path);
    PoissonParams pp;
    for (uint32_t h : spec.topology.hosts()) {
      pp.hosts.push_back(h);
      pp.host_rack.push_back(h / ls.hosts_per_leaf);
    }
    pp.host_rate_bps = ls.host_rate_bps;
    pp.load = load;
    pp.start = Time::zero();
    pp.stop = Time{Delta::from_seconds(arrival_ms * 1e-3).ps};
    RandomStream rng(seed, "workload");
    spec.flows = generate_poisson(pp, cdf, rng);

    Experiment exp(spec);
    const RunStats st = exp.run(Time{Delta::from_seconds(sim_ms * 1e-3).ps});

    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const auto& tc = exp.transport().counters();
    std::vector<FctSample> samples;
    for (const FlowRecord& r : exp.transport().records())
      if (r.finished()) samples.push_back({r.size_bytes, r.fct().us(), r.ideal_fct.us()});
    const FctSummary fs = summarize(samples);

    fmt::print("scenario      : {}, 100 Gb/s, 1 us links, 12 MB buffers, {}+{}, {} load {:.2f}\n",
               spec.topology.description, lb, cc, cdf.name(), load);
    fmt::print("flows         : {} arriving in {} ms, {} finished by {:.3f} ms\n",
               spec.flows.size(), arrival_ms, tc.flows_finished, st.sim_end.us() / 1000);
    fmt::print("events        : {}\n", st.events);
    fmt::print("wall time     : {:.3f} s\n", st.wall_s);
    fmt::print("events/s      : {:.3e}\n", static_cast<double>(st.events) / st.wall_s);
    fmt::print("data pkts/s   : {:.3e} (simulated data packets per wall second)\n",
               static_cast<double>(tc.data_packets_sent) / st.wall_s);
    fmt::print("peak RSS      : {:.1f} MB\n", static_cast<double>(ru.ru_maxrss) / 1024);
    fmt::print(
        "finished flows: AFCT {:.1f} us, p99 FCT {:.1f} us, mean slowdown {:.2f}, "
        "p99 slowdown {:.2f}\n",
        fs.afct_us, fs.p99_fct_us, fs.mean_slowdown, fs.p99_slowdown);
    fmt::print("PFC PAUSE     : {} frames, drops {}, ECN marks {}, CNPs {}\n",
               exp.network().counters().pause_frames, exp.network().counters().drops,
               exp.network().counters().ecn_marks, tc.cnps_sent);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_macro: %s\n", e.what());
    return 1;
  }
  return 0;
}
