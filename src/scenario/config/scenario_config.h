// A scenario as the user writes it: everything one run needs, each field with a default
// and its source (see describe()). Loaded strictly from YAML with --set overrides and a
// named preset; written back whole as config.resolved.yaml.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/flow_control.h"
#include "net/load_balancer.h"
#include "net/packet.h"
#include "net/switch_config.h"
#include "net/topology.h"
#include "scenario/config/faults_config.h"
#include "sim/params.h"
#include "transport/congestion_control.h"
#include "transport/transport_config.h"

namespace rocelab {

struct TopologyConfig {
  std::string type =
      "leaf_spine";  // a name of topology_registry() (scenario/config/topology_types.h)
  LeafSpineParams leaf_spine;
  FatTreeParams fat_tree;
  RailParams rail;
  std::string rail_layout = "rail";              // rail | tor
  BitsPerSec testbed_rate_bps = gbps(40);        // FLB §2: 40 Gb/s
  Delta testbed_link_delay = Delta::from_us(1);  // not stated by FLB; 1 us assumed
  std::string file;                              // ns3: topology file
  struct LinkRate {
    std::string a, b;
    BitsPerSec rate_bps = gbps(100);
  };
  std::vector<LinkRate> link_rates;  // asymmetric links
  // NICs with more than one port (net/topology.h with_planes, with_dual_tor): leaf_spine,
  // fat_tree and rail_optimized only.
  uint32_t planes = 1;
  bool dual_tor = false;
};

struct WorkloadConfig {
  std::string name = "background";
  std::string type = "poisson";  // a name of workload_registry() (scenario/config/workload_types.h)
  // poisson
  std::string cdf = "websearch";
  double load = 0.5;
  std::string arrivals = "poisson";  // poisson | lognormal
  double lognormal_sigma = 2.0;
  double intra_rack_fraction = -1;
  std::vector<std::string> hosts = {"all"};
  std::vector<std::string> receivers;  // empty: every host receives
  std::string load_on = "senders";     // senders | receivers | fabric: what `load` is of
  Delta start;
  Delta stop = Delta::from_ms(10);
  // incast and burst
  std::vector<std::string> senders;
  std::string receiver;
  int64_t size_per_sender = 0;
  int64_t total_size = 0;
  Delta interval;
  uint32_t repeats = 1;
  uint32_t flows_per_sender = 1;
  uint32_t fan_in = 100;                      // random_incast
  uint32_t flows_per_receiver = 4;            // long_lived
  int64_t long_flow_size = int64_t{1} << 50;  // long_lived: 1 PiB, never finishes
  int64_t flow_size = 64 * 1000;
  Delta sender_spacing;
  // flows
  struct Flow {
    std::string src, dst;
    int64_t size_bytes = 1000000;
    Delta start;
    int64_t path = -1;  // a path ID to pin the flow to; -1: not pinned
  };
  std::vector<Flow> flows;
  // trace
  std::string file;
  std::string format = "csv";  // csv (also flow DAGs) | hpcc | conweave | auto
  // collective (workload/collective.h): the first collective of every iteration, then these
  struct CollectivePhase {
    std::string op = "all_reduce";
    std::string algorithm = "default";  // default: ring, direct, chain or gpipe by op
    int64_t size_bytes = 1 << 20;
    uint32_t channels = 1;
    uint32_t chunks = 1;
    uint32_t root = 0;
    uint32_t microbatches = 4;
    Delta stage_compute;
  };
  CollectivePhase collective;
  std::vector<CollectivePhase> then;
  std::vector<std::string> ranks = {"all"};
  uint32_t rank_count = 0;             // 0: every host of ranks
  std::string placement = "explicit";  // explicit | packed | spread | random
  bool per_nic = false;
  bool qp_per_transfer = false;
  uint32_t qps_per_connection = 1;
  bool split_data_on_qps = false;
  uint32_t iterations = 1;
  Delta compute;
};

struct OutputConfig {
  bool flows_csv = true;
  bool ns3_fct = false;
  std::string ns3_fct_style = "hpcc";  // hpcc | conweave
  Delta timeseries_interval;           // 0 = no time series
  bool flow_throughput = true;
  bool path_throughput = true;
  bool link_utilization = true;
  bool queue_length = true;
  bool pfc_events = true;
  Delta buffer_sample_interval;  // 0 = no switch buffer sampling
};

struct ScenarioConfig {
  std::string name = "scenario";
  std::string description;
  int64_t seed = 1;
  std::string preset = "none";
  TopologyConfig topology;
  WireModel wire;
  SwitchConfig switch_config;
  TransportConfig transport;
  std::string lb = "ecmp";
  std::shared_ptr<LbConfig> lb_params;
  std::string lb_params_for;  // the scheme lb_params was made for
  std::string cc = "dcqcn";
  std::shared_ptr<CcConfig> cc_params;
  std::string cc_params_for;
  std::string fc = "pfc";  // fc_registry(): pfc | none (lossy) | bfc
  std::shared_ptr<FlowControlConfig> fc_params;
  std::string fc_params_for;
  std::string scheduler = "drr";             // scheduler_registry(): drr | strict
  std::vector<std::string> switch_features;  // switch_feature_registry(), after RED/ECN
  PfcConfig pfc;
  std::vector<WorkloadConfig> workloads;
  std::vector<EventConfig> events;
  FaultsSettings faults;
  Delta stop_time;             // 0 = no time limit
  bool stop_when_done = true;  // end once every flow has finished
  // How --threads cuts the network (scenario/build/partition.h): auto | pod | rail | switch.
  std::string parallel_partition = "auto";
  OutputConfig outputs;

  // The directory relative paths in the file are resolved against.
  std::string base_dir = ".";
  std::string source_file;
  std::map<std::string, int> key_lines;  // "dotted.key" -> line in source_file
  // "file:line: " for a dotted key (for errors found after reading).
  std::string where(const std::string& key) const;
};

void describe(ParamVisitor& v, ScenarioConfig& c);

// Reads `path` strictly; `overrides` are "dotted.key=value" (the --set option).
// Throws ConfigError naming the file, line and key on any problem.
ScenarioConfig load_scenario(const std::string& path, const std::vector<std::string>& overrides);
ScenarioConfig load_scenario_text(const std::string& yaml_text, const std::string& file_label,
                                  const std::vector<std::string>& overrides = {});
// Every value used, defaults filled in: reading it back gives the same scenario.
std::string resolved_yaml(ScenarioConfig& c);
// Markdown table of every parameter of the scenario with its default and source.
std::string parameter_table(ScenarioConfig& c);

// Named presets that reproduce the ns-3 reference simulators' settings (scenario/config/presets.h);
// "none" keeps rocelab's defaults. ConfigError for an unknown name.
void apply_preset(const std::string& name, ScenarioConfig& c);
// The preset's values for a scheme's parameters, applied whenever they are made.
void apply_preset_scheme(const std::string& preset, LbConfig& lb);
void apply_preset_scheme(const std::string& preset, CcConfig& cc);
// Makes the parameters of the scenario's load balancer / congestion control when they are
// missing or were made for another scheme (with the preset's values); ConfigError for an
// unknown name.
void ensure_lb_params(ScenarioConfig& c);
void ensure_cc_params(ScenarioConfig& c);
void ensure_fc_params(ScenarioConfig& c);

}  // namespace rocelab
