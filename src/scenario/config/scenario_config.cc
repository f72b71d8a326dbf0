#include "scenario/config/scenario_config.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cc/cc_registry.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/build/partition.h"
#include "scenario/config/presets.h"
#include "scenario/config/switch_features.h"
#include "scenario/config/topology_types.h"
#include "scenario/config/workload_types.h"
#include "scenario/config/yaml_params.h"

namespace rocelab {

namespace {

const std::string kFctStyles[] = {"hpcc", "conweave"};

// Planes and dual ToR copy a generated fabric: a file or a testbed has no rule to copy by.
void describe_nic_ports(ParamVisitor& v, TopologyConfig& t) {
  const bool generated =
      t.type == "leaf_spine" || t.type == "fat_tree" || t.type == "rail_optimized";
  v.count("planes", t.planes, 1, 16,
          "parallel copies of the fabric, NIC port k on plane k (multi-plane GPU fabrics)");
  v.require(t.planes == 1 || generated, "planes",
            "a " + t.type +
                " topology has one plane; planes are built for leaf_spine, fat_tree and "
                "rail_optimized");
  v.flag("dual_tor", t.dual_tor,
         "every NIC has two ports, to the two ToRs of a pair (Alibaba HPN); one plane");
  v.require(!t.dual_tor || generated, "dual_tor",
            "a " + t.type +
                " topology has one ToR per host; dual_tor is built for leaf_spine, fat_tree and "
                "rail_optimized");
  v.require(!t.dual_tor || t.planes == 1, "dual_tor",
            "with planes each port already has its own plane's ToR; use one or the other");
}

void describe_topology(ParamVisitor& v, TopologyConfig& t) {
  static const std::vector<std::string> types = topology_registry().names();
  v.choice("type", t.type, types, "fabric to build");
  // A type set in code to an unknown name has no keys; building it names the problem.
  if (const auto* type = topology_registry().find(t.type)) type->factory.describe(v, t);
  describe_nic_ports(v, t);
  size_t n = t.link_rates.size();
  v.list(
      "link_rates", n, [&](size_t k) { t.link_rates.resize(k); },
      [&](ParamVisitor& item, size_t i) {
        auto& lr = t.link_rates[i];
        item.text("a", lr.a, "node name at one end");
        item.text("b", lr.b, "node name at the other end");
        item.rate("rate", lr.rate_bps, 1, kNoLimit, "new rate of every link between a and b");
      },
      "links given another rate (asymmetric fabrics)");
}

void describe_workload(ParamVisitor& v, WorkloadConfig& w) {
  v.text("name", w.name, "tag of these flows in the results");
  static const std::vector<std::string> types = workload_registry().names();
  v.choice("type", w.type, types, "traffic pattern");
  // A type set in code to an unknown name has no keys; building it names the problem.
  if (const auto* type = workload_registry().find(w.type)) type->factory.describe(v, w);
}

void describe_outputs(ParamVisitor& v, OutputConfig& o) {
  v.flag("flows_csv", o.flows_csv, "write flows.csv (one row per flow)");
  v.flag("ns3_fct", o.ns3_fct, "also write fct.txt in the ns-3 simulators' format");
  v.choice("ns3_fct_style", o.ns3_fct_style, kFctStyles, "hpcc: hex IPs; conweave: node ids");
  v.duration("timeseries_interval", o.timeseries_interval, Delta::zero(), Delta::max(),
             "sampling interval of the time series; 0 = none");
  v.flag("flow_throughput", o.flow_throughput, "time series: goodput per flow");
  v.flag("path_throughput", o.path_throughput, "time series: throughput per switch-switch link");
  v.flag("link_utilization", o.link_utilization, "time series: utilisation per link");
  v.flag("queue_length", o.queue_length, "time series: egress queue bytes per switch port");
  v.flag("pfc_events", o.pfc_events, "every PAUSE/RESUME with its time and link");
  v.duration("buffer_sample_interval", o.buffer_sample_interval, Delta::zero(), Delta::max(),
             "sample each switch's buffered bytes this often into summary.json's "
             "switch_buffer (BFC Fig. 6a, 8); 0 = off");
}

}  // namespace

void ensure_lb_params(ScenarioConfig& c) {
  if (c.lb_params && c.lb_params_for == c.lb) return;
  const auto* e = lb_registry().find(c.lb);
  if (!e) throw ConfigError("lb: unknown load balancer '" + c.lb + "'");
  c.lb_params = e->factory();
  apply_preset_scheme(c.preset, *c.lb_params);
  c.lb_params_for = c.lb;
}

void ensure_fc_params(ScenarioConfig& c) {
  if (c.fc_params && c.fc_params_for == c.fc) return;
  const auto* e = fc_registry().find(c.fc);
  if (!e) throw ConfigError("fc: unknown flow control '" + c.fc + "'");
  c.fc_params = e->factory();
  c.fc_params_for = c.fc;
}

void ensure_cc_params(ScenarioConfig& c) {
  if (c.cc_params && c.cc_params_for == c.cc) return;
  const auto* e = cc_registry().find(c.cc);
  if (!e) throw ConfigError("cc: unknown congestion control '" + c.cc + "'");
  c.cc_params = e->factory();
  apply_preset_scheme(c.preset, *c.cc_params);
  c.cc_params_for = c.cc;
}

void describe(ParamVisitor& v, ScenarioConfig& c) {
  v.text("name", c.name, "scenario name");
  v.text("description", c.description, "free text");
  v.integer("seed", c.seed, 0, kNoLimit, "seed of every random stream");
  static const std::vector<std::string> presets = preset_choices();
  v.choice("preset", c.preset, presets,
           "defaults of an ns-3 reference simulator, applied before the rest of the file");
  v.section(
      "topology", [&](ParamVisitor& s) { describe_topology(s, c.topology); }, "the fabric");

  static const std::vector<std::string> lbs = lb_registry().names();
  v.section(
      "lb",
      [&](ParamVisitor& s) {
        s.choice("name", c.lb, lbs, "switch load balancer");
        ensure_lb_params(c);
        c.lb_params->describe(s);
      },
      "load balancing", "name");
  static const std::vector<std::string> ccs = cc_registry().names();
  v.section(
      "cc",
      [&](ParamVisitor& s) {
        s.choice("name", c.cc, ccs, "congestion control");
        ensure_cc_params(c);
        c.cc_params->describe(s);
      },
      "congestion control", "name");
  static const std::vector<std::string> fcs = fc_registry().names();
  v.section(
      "fc",
      [&](ParamVisitor& s) {
        s.choice("name", c.fc, fcs,
                 "flow control: pfc (lossless, 802.1Qbb), none (lossy), bfc (per-flow "
                 "backpressure, PFC as backstop) or sfq (per-flow fair queues, PFC)");
        ensure_fc_params(c);
        if (c.fc_params->lossless()) describe(s, c.pfc);
        c.fc_params->describe(s);
      },
      "flow control", "name");
  static const std::vector<std::string> schedulers = scheduler_registry().names();
  v.section(
      "switch",
      [&](ParamVisitor& s) {
        describe(s, c.switch_config);
        s.choice("scheduler", c.scheduler, schedulers,
                 "egress scheduler among the data queues of a port (drr: DRR, one MTU quantum)");
        s.text_list("features", c.switch_features,
                    "switch features after RED/ECN, in pipeline order (rocelab list; ecn itself "
                    "is switch.ecn.enabled)");
        for (const std::string& f : c.switch_features) {
          const bool known = f != "ecn" && switch_feature_registry().find(f) != nullptr;
          s.require(known, "features",
                    f == "ecn" ? "ecn is switched by switch.ecn.enabled"
                               : "unknown switch feature '" + f + "' (see rocelab list)");
        }
      },
      "switches");
  v.section(
      "wire", [&](ParamVisitor& s) { describe(s, c.wire); }, "header model");
  v.section(
      "transport", [&](ParamVisitor& s) { describe(s, c.transport); }, "RoCE transport");
  v.section(
      "nic", [&](ParamVisitor& s) { describe_nic(s, c.transport); },
      "NICs with several ports (topology.planes, topology.dual_tor)");

  size_t n = c.workloads.size();
  v.list(
      "workloads", n, [&](size_t k) { c.workloads.resize(k); },
      [&](ParamVisitor& item, size_t i) { describe_workload(item, c.workloads[i]); },
      "traffic; several run together, each tagged by its name");
  if (v.reading()) v.require(!c.workloads.empty(), "workloads", "at least one workload is needed");
  describe_events(v, c.events);
  v.section(
      "faults", [&](ParamVisitor& s) { describe(s, c.faults); },
      "how the fabric answers faults: routing, the PFC watchdog, deadlock detection");

  v.section(
      "stop",
      [&](ParamVisitor& s) {
        s.duration("time", c.stop_time, Delta::zero(), Delta::max(),
                   "simulated time limit; 0 = none");
        s.flag("all_flows_done", c.stop_when_done, "end when every flow has finished");
        s.require(c.stop_time > Delta::zero() || c.stop_when_done, "time",
                  "give a time limit or set all_flows_done");
      },
      "when the run ends");
  v.section(
      "parallel",
      [&](ParamVisitor& s) {
        s.choice("partition", c.parallel_partition, partition_by_names(),
                 "how --threads cuts the network: auto (runs of neighbouring edge switches, "
                 "--partitions of them), pod (a fat-tree's pods), rail (a rail fabric's "
                 "rails), switch (every switch)");
      },
      "how a run on several threads is cut (docs/parallel.md)");
  v.section(
      "outputs", [&](ParamVisitor& s) { describe_outputs(s, c.outputs); }, "what to write");
}

namespace {

// Applies "a.b.0.c=value" to the document, creating maps along the way.
void apply_override(YAML::Node root, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + assignment + ": expected dotted.key=value");
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError("--set " + assignment + ": " + e.msg);
  }
  std::vector<std::string> keys;
  std::stringstream ss(path);
  for (std::string k; std::getline(ss, k, '.');) keys.push_back(k);
  YAML::Node cur = root;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    const bool last = i + 1 == keys.size();
    if (cur.IsSequence()) {
      size_t idx = 0;
      try {
        idx = std::stoul(k);
      } catch (...) {
        throw ConfigError("--set " + assignment + ": '" + k + "' must be a list index");
      }
      if (idx >= cur.size())
        throw ConfigError("--set " + assignment + ": index " + k + " is past the end of the list");
      if (last) {
        cur[idx] = value;
        return;
      }
      YAML::Node next = cur[idx];
      cur.reset(next);
      continue;
    }
    if (cur.IsScalar()) {
      // A scheme written as `lb: ecmp` becomes {name: ecmp} so that lb.param=... works.
      YAML::Node expanded(YAML::NodeType::Map);
      expanded["name"] = cur.Scalar();
      cur = expanded;
    }
    if (last) {
      cur[k] = value;
      return;
    }
    if (!cur[k] || cur[k].IsNull()) cur[k] = YAML::Node(YAML::NodeType::Map);
    YAML::Node next = cur[k];
    cur.reset(next);
  }
}

std::string absolute_from(const std::string& base, const std::string& p) {
  if (p.empty()) return p;
  std::filesystem::path path(p);
  if (path.is_absolute()) return p;
  return std::filesystem::weakly_canonical(std::filesystem::path(base) / path).string();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.find('.') != std::string::npos;
}

}  // namespace

ScenarioConfig load_scenario_text(const std::string& text, const std::string& file_label,
                                  const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(file_label + ":" + std::to_string(e.mark.line + 1) +
                      ": not valid YAML: " + e.msg);
  }
  if (!root || root.IsNull()) throw ConfigError(file_label + ": the scenario file is empty");
  if (!root.IsMap()) throw ConfigError(file_label + ":1: a scenario must be a map of key: value");
  for (const std::string& o : overrides) apply_override(root, o);

  ScenarioConfig c;
  c.source_file = file_label;
  // The preset goes first: it changes defaults that the rest of the file may override.
  if (root["preset"] && root["preset"].IsScalar()) {
    // An unknown name is left to the reader, whose error names the file and line.
    const std::string p = root["preset"].Scalar();
    if (preset_registry().find(p)) apply_preset(p, c);
  }
  try {
    YamlReader reader(root, file_label, "");
    reader.set_line_index(&c.key_lines);
    describe(reader, c);
    reader.finish();
  } catch (const YAML::Exception& e) {
    throw ConfigError(file_label + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return c;
}

ScenarioConfig load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the scenario file");
  std::stringstream buf;
  buf << in.rdbuf();
  ScenarioConfig c = load_scenario_text(buf.str(), path, overrides);
  c.source_file = path;
  c.base_dir = std::filesystem::absolute(std::filesystem::path(path)).parent_path().string();
  // Paths become absolute, so that config.resolved.yaml runs from any directory.
  c.topology.file = absolute_from(c.base_dir, c.topology.file);
  for (WorkloadConfig& w : c.workloads) {
    w.file = absolute_from(c.base_dir, w.file);
    // Only the types that read a cdf key hold one other than the default name.
    if (looks_like_path(w.cdf)) w.cdf = absolute_from(c.base_dir, w.cdf);
  }
  return c;
}

std::string ScenarioConfig::where(const std::string& key) const {
  // The key itself, else its closest enclosing key that has a line.
  for (std::string k = key; !k.empty();) {
    const auto it = key_lines.find(k);
    if (it != key_lines.end() && it->second > 0)
      return source_file + ":" + std::to_string(it->second) + ": ";
    const size_t dot = k.rfind('.');
    k = dot == std::string::npos ? "" : k.substr(0, dot);
  }
  return source_file.empty() ? "" : source_file + ": ";
}

std::string resolved_yaml(ScenarioConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  YamlWriter writer(out);
  describe(writer, c);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string parameter_table(ScenarioConfig& c) {
  ParamLister lister;
  describe(lister, c);
  return "| key | default | meaning and source |\n|---|---|---|\n" + lister.rows();
}

}  // namespace rocelab
