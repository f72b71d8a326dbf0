#include "scenario/scenario_config.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cc/cc_registry.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/yaml_params.h"

namespace rocelab {

namespace {

// Beyond this a scenario would exhaust memory before it ran; say so instead of crashing.
constexpr uint64_t kMaxLinks = 10 * 1000 * 1000;
const std::string kTopologyTypes[] = {"leaf_spine", "fat_tree", "flb_testbed", "ns3"};
const std::string kWorkloadTypes[] = {"poisson", "incast", "burst", "flows", "trace"};
const std::string kArrivals[] = {"poisson", "lognormal"};
const std::string kTraceFormats[] = {"csv", "hpcc", "conweave", "auto"};
const std::string kFctStyles[] = {"hpcc", "conweave"};

void describe_topology(ParamVisitor& v, TopologyConfig& t) {
  v.choice("type", t.type, kTopologyTypes, "fabric to build");
  if (t.type == "leaf_spine") {
    LeafSpineParams& p = t.leaf_spine;
    v.count("leaves", p.leaves, 1, 100000, "leaf (ToR) switches");
    v.count("spines", p.spines, 1, 100000, "spine switches");
    v.count("hosts_per_leaf", p.hosts_per_leaf, 1, 100000, "hosts under each leaf");
    v.rate("host_rate", p.host_rate_bps, 1, kNoLimit, "host-leaf link rate");
    v.rate("fabric_rate", p.fabric_rate_bps, 1, kNoLimit,
           "leaf-spine link rate (oversubscription = hosts x host_rate / spines x fabric_rate)");
    v.duration("link_delay", p.link_delay, Delta::zero(), Delta::max(),
               "propagation delay per link");
    const uint64_t ls_links =
        uint64_t{t.leaf_spine.leaves} * (t.leaf_spine.hosts_per_leaf + t.leaf_spine.spines);
    v.require(ls_links <= kMaxLinks, "leaves", "the fabric would have more than 10 million links");
  } else if (t.type == "fat_tree") {
    FatTreeParams& p = t.fat_tree;
    v.count("pods", p.pods, 1, 10000, "pods (FLB §4.3: 12)");
    v.count("edges_per_pod", p.edges_per_pod, 1, 10000, "edge switches per pod (FLB: 6)");
    v.count("aggs_per_pod", p.aggs_per_pod, 1, 10000, "aggregation switches per pod (FLB: 6)");
    v.count("hosts_per_edge", p.hosts_per_edge, 1, 100000, "hosts per edge switch (FLB: 14)");
    v.count("cores", p.cores, 1, 100000, "core switches (FLB: 36)");
    v.require(p.cores % p.aggs_per_pod == 0, "cores", "must be a multiple of aggs_per_pod");
    v.rate("host_rate", p.host_rate_bps, 1, kNoLimit, "host-edge link rate");
    v.rate("fabric_rate", p.fabric_rate_bps, 1, kNoLimit, "switch-switch link rate");
    v.duration("link_delay", p.link_delay, Delta::zero(), Delta::max(),
               "propagation delay per link");
    const uint64_t ft_links =
        uint64_t{p.pods} * p.edges_per_pod * (p.hosts_per_edge + p.aggs_per_pod) +
        uint64_t{p.pods} * p.cores;
    v.require(ft_links <= kMaxLinks, "pods", "the fabric would have more than 10 million links");
  } else if (t.type == "flb_testbed") {
    v.rate("rate", t.testbed_rate_bps, 1, kNoLimit, "every link's rate (FLB §2: 40 Gb/s)");
    v.duration("link_delay", t.testbed_link_delay, Delta::zero(), Delta::max(),
               "propagation delay per link (not stated by FLB)");
  } else {
    v.text("file", t.file, "topology file in the HPCC/ConWeave ns-3 format");
    if (v.reading()) v.require(!t.file.empty(), "file", "an ns3 topology needs a file");
  }
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
  v.choice("type", w.type, kWorkloadTypes, "traffic pattern");
  if (w.type == "poisson") {
    v.text("cdf", w.cdf, "flow-size CDF: a shipped name (see `rocelab list`) or a file path");
    v.real("load", w.load, -1e9, 1e9, "offered load per host link, fraction of its capacity");
    v.require(w.load > 0 && w.load < 1, "load", "must be in (0, 1)");
    v.choice("arrivals", w.arrivals, kArrivals, "inter-arrival law (lognormal: BFC paper)");
    if (w.arrivals == "lognormal")
      v.real("lognormal_sigma", w.lognormal_sigma, 0.01, 10, "sigma of the lognormal (2: BFC)");
    v.real("intra_rack_fraction", w.intra_rack_fraction, -1, 1,
           "share of destinations in the sender's rack; -1 = uniform over all hosts "
           "(FLB §4.3 uses intra:inter 1:3, i.e. 0.25)");
    v.text_list("hosts", w.hosts, "hosts that send and receive: names, ranges h0..h15, or all");
    v.text_list("receivers", w.receivers,
                "if given, the hosts send only to these (uniformly; FLB Fig. 8: R0..R2)");
    static const std::string kLoadOn[] = {"senders", "receivers", "fabric"};
    v.choice("load_on", w.load_on, kLoadOn,
             "what the load is a fraction of: each sender's link; the receivers' links "
             "together (\"target load at the bottleneck link\", FLB §4.1); or the uplinks "
             "of the busiest rack, counting its traffic to other racks (oversubscribed "
             "fabrics)");
    v.require(w.load_on != "receivers" || !w.receivers.empty(), "load_on",
              "load_on: receivers needs a receivers list");
    v.require(w.load_on != "fabric" || w.receivers.empty(), "load_on",
              "load_on: fabric is for traffic among all the hosts, not to receivers");
    v.require(w.receivers.empty() || w.intra_rack_fraction < 0, "receivers",
              "give receivers or intra_rack_fraction, not both");
    v.duration("start", w.start, Delta::zero(), Delta::max(), "first arrival not before");
    v.duration("stop", w.stop, Delta::zero(), Delta::max(), "no arrival at or after");
    v.require(w.stop > w.start, "stop", "must be after start");
  } else if (w.type == "incast" || w.type == "burst") {
    v.text_list("senders", w.senders, "sending hosts: names or ranges like H3..H16");
    v.text("receiver", w.receiver, "receiving host");
    if (v.reading()) {
      v.require(!w.senders.empty(), "senders", "at least one sender is needed");
      v.require(!w.receiver.empty(), "receiver", "a receiver is needed");
    }
    v.duration("start", w.start, Delta::zero(), Delta::max(), "when the senders start");
    if (w.type == "incast") {
      v.bytes("size_per_sender", w.size_per_sender, 0, kNoLimit, "bytes each sender sends");
      v.bytes("total_size", w.total_size, 0, kNoLimit, "bytes of all senders together");
      v.require((w.size_per_sender > 0) != (w.total_size > 0), "size_per_sender",
                "give exactly one of size_per_sender and total_size");
      v.duration("interval", w.interval, Delta::zero(), Delta::max(), "between repeats");
      v.count("repeats", w.repeats, 1, 1000000, "how many incasts");
      v.require(w.repeats == 1 || w.interval > Delta::zero(), "interval",
                "repeats need a positive interval");
    } else {
      v.count("flows_per_sender", w.flows_per_sender, 1, 1000000, "flows each sender starts");
      v.bytes("flow_size", w.flow_size, 1, kNoLimit, "bytes per flow (FLB §2: 64 KB)");
      v.duration("sender_spacing", w.sender_spacing, Delta::zero(), Delta::max(),
                 "stagger between consecutive senders");
    }
  } else if (w.type == "flows") {
    size_t n = w.flows.size();
    v.list(
        "flows", n, [&](size_t k) { w.flows.resize(k); },
        [&](ParamVisitor& item, size_t i) {
          auto& f = w.flows[i];
          item.text("src", f.src, "sending host");
          item.text("dst", f.dst, "receiving host");
          item.bytes("size", f.size_bytes, 0, kNoLimit, "bytes");
          item.duration("start", f.start, Delta::zero(), Delta::max(), "start time");
        },
        "explicit flows");
    if (v.reading()) v.require(!w.flows.empty(), "flows", "at least one flow is needed");
  } else {
    v.text("file", w.file, "flow trace file");
    v.choice("format", w.format, kTraceFormats,
             "csv (src,dst,size_bytes,start_ns), ns-3 hpcc / conweave flow file, or auto");
    if (v.reading()) v.require(!w.file.empty(), "file", "a trace workload needs a file");
  }
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
}

std::vector<std::string> with_none(std::vector<std::string> names) {
  names.insert(names.begin(), "none");
  return names;
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
  static const std::vector<std::string> presets = with_none(preset_names());
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
        s.choice("name", c.fc, fcs, "flow control: pfc (lossless, 802.1Qbb) or none (lossy)");
        if (c.fc == "pfc") describe(s, c.pfc);
      },
      "flow control", "name");
  static const std::vector<std::string> schedulers = scheduler_registry().names();
  v.section(
      "switch",
      [&](ParamVisitor& s) {
        describe(s, c.switch_config);
        s.choice("scheduler", c.scheduler, schedulers,
                 "egress scheduler among the data queues of a port (drr: DRR, one MTU quantum)");
      },
      "switches");
  v.section(
      "wire", [&](ParamVisitor& s) { describe(s, c.wire); }, "header model");
  v.section(
      "transport", [&](ParamVisitor& s) { describe(s, c.transport); }, "RoCE transport");

  size_t n = c.workloads.size();
  v.list(
      "workloads", n, [&](size_t k) { c.workloads.resize(k); },
      [&](ParamVisitor& item, size_t i) { describe_workload(item, c.workloads[i]); },
      "traffic; several run together, each tagged by its name");
  if (v.reading()) v.require(!c.workloads.empty(), "workloads", "at least one workload is needed");

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
    const std::string p = root["preset"].Scalar();
    const auto names = preset_names();
    if (p != "none" && std::find(names.begin(), names.end(), p) != names.end()) apply_preset(p, c);
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
    if (w.type == "poisson" && looks_like_path(w.cdf)) w.cdf = absolute_from(c.base_dir, w.cdf);
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
