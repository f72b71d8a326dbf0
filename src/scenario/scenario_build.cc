#include "scenario/scenario_build.h"
#include "fc/fc_registry.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>

#include "net/mmu.h"
#include "scenario/ns3_format.h"
#include "scenario/yaml_params.h"
#include "workload/flow_size_cdf.h"
#include "workload/patterns.h"
#include "workload/poisson.h"
#include "workload/trace.h"

namespace rocelab {

namespace {

std::string workloads_dir() {
  return std::string(ROCELAB_SOURCE_DIR) + "/workloads";
}

uint32_t host_id(const TopologySpec& topo, const std::string& name, const std::string& key) {
  for (uint32_t i = 0; i < topo.nodes.size(); ++i) {
    if (topo.nodes[i].name != name) continue;
    if (topo.nodes[i].kind != NodeKind::kHost)
      throw ConfigError(key + ": '" + name + "' is a switch, not a host");
    return i;
  }
  std::vector<std::string> hosts;
  for (uint32_t h : topo.hosts()) hosts.push_back(topo.nodes[h].name);
  const std::string hint = did_you_mean(name, hosts);
  throw ConfigError(key + ": no host named '" + name + "' in the topology" +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

// The edge switch each host hangs off (its rack).
std::vector<uint32_t> rack_of_hosts(const TopologySpec& topo) {
  std::vector<uint32_t> rack(topo.nodes.size(), 0);
  for (const LinkSpec& l : topo.links) {
    if (topo.nodes[l.a].kind == NodeKind::kHost) rack[l.a] = l.b;
    if (topo.nodes[l.b].kind == NodeKind::kHost) rack[l.b] = l.a;
  }
  return rack;
}

void ensure_schemes(ScenarioConfig& c) {
  ensure_lb_params(c);
  ensure_cc_params(c);
}

// Total rate of the links at `node`; with switches_only, only those to switches.
double links_bps(const TopologySpec& topo, uint32_t node, bool switches_only) {
  double bps = 0;
  for (const LinkSpec& l : topo.links) {
    if (l.a != node && l.b != node) continue;
    const uint32_t other = l.a == node ? l.b : l.a;
    if (!switches_only || topo.nodes[other].kind == NodeKind::kSwitch)
      bps += static_cast<double>(l.rate_bps);
  }
  return bps;
}

// Per-host load per unit of fabric load: the largest per-host load at which no rack's
// uplinks (its edge switch's links to other switches) carry more than their capacity of
// traffic leaving the rack. With a fraction f of each host's flows leaving its rack, a
// rack of n hosts sends n x load x rate x f over uplinks of capacity U.
double fabric_load_factor(const TopologySpec& topo, const std::vector<uint32_t>& hosts,
                          const std::vector<uint32_t>& rack, BitsPerSec host_rate,
                          double intra_rack_fraction, const std::string& key) {
  std::map<uint32_t, size_t> members;
  for (uint32_t h : hosts) ++members[rack[h]];
  double factor = std::numeric_limits<double>::infinity();
  for (const auto& [edge, n] : members) {
    const double uplink_bps = links_bps(topo, edge, true);
    const double leaving = intra_rack_fraction >= 0 ? 1 - intra_rack_fraction
                                                    : static_cast<double>(hosts.size() - n) /
                                                          static_cast<double>(hosts.size() - 1);
    if (uplink_bps <= 0 || leaving <= 0) continue;
    factor = std::min(
        factor, uplink_bps / (static_cast<double>(n) * static_cast<double>(host_rate) * leaving));
  }
  if (!std::isfinite(factor))
    throw ConfigError(key + ": no traffic leaves a rack, so there is no fabric load to set");
  return factor;
}

std::vector<FlowSpec> generate(const WorkloadConfig& w, size_t index, const TopologySpec& topo,
                               const std::vector<uint32_t>& rack, uint64_t seed) {
  const std::string key = "workloads." + std::to_string(index);
  RandomStream rng(seed, "workload:" + w.name, index);
  if (w.type == "poisson") {
    std::string cdf_path;
    try {
      cdf_path = resolve_cdf(w.cdf);
    } catch (const ConfigError& e) {
      throw ConfigError(key + ".cdf: " + e.what());
    }
    const FlowSizeCdf cdf = FlowSizeCdf::load(cdf_path);
    PoissonParams p;
    p.hosts = resolve_hosts(topo, w.hosts, key + ".hosts");
    if (p.hosts.size() < (w.receivers.empty() ? 2u : 1u))
      throw ConfigError(key + ".hosts: needs at least two hosts");
    BitsPerSec rate = 0;
    for (uint32_t h : p.hosts) {
      p.host_rack.push_back(rack[h]);
      for (const LinkSpec& l : topo.links)
        if (l.a == h || l.b == h) rate = rate == 0 ? l.rate_bps : std::min(rate, l.rate_bps);
    }
    p.host_rate_bps = rate;
    p.load = w.load;
    if (!w.receivers.empty()) {
      p.receivers = resolve_hosts(topo, w.receivers, key + ".receivers");
      if (p.hosts.size() == 1 && p.receivers.size() == 1 && p.hosts[0] == p.receivers[0])
        throw ConfigError(key + ".receivers: the only receiver is the only sender");
    }
    if (w.load_on == "receivers") {
      // The senders together offer load x the receivers' link capacity.
      double receive_bps = 0;
      for (uint32_t h : p.receivers) receive_bps += links_bps(topo, h, false);
      p.load =
          w.load * receive_bps / (static_cast<double>(p.hosts.size()) * static_cast<double>(rate));
    } else if (w.load_on == "fabric") {
      p.load = w.load * fabric_load_factor(topo, p.hosts, rack, rate, w.intra_rack_fraction,
                                           key + ".load_on");
    }
    if (p.load >= 1)
      throw ConfigError(key + ".load: " + std::to_string(w.load) + " on the " + w.load_on +
                        " asks each sender for " + std::to_string(p.load) +
                        " of its own link; the senders' links would be the bottleneck");
    p.start = Time::zero() + w.start;
    p.stop = Time::zero() + w.stop;
    p.intra_rack_fraction = w.intra_rack_fraction;
    p.arrivals = w.arrivals == "lognormal" ? ArrivalProcess::kLognormal : ArrivalProcess::kPoisson;
    p.lognormal_sigma = w.lognormal_sigma;
    p.tag = w.name;
    // Refuse what would not fit in memory, instead of dying in the generator.
    const double expected_flows = static_cast<double>(p.hosts.size()) * p.load *
                                  static_cast<double>(rate) / (8 * cdf.mean_bytes()) *
                                  (w.stop - w.start).seconds();
    if (expected_flows > 5e7)
      throw ConfigError(key + ".stop: about " +
                        std::to_string(static_cast<uint64_t>(expected_flows)) +
                        " flows would be generated; more than 50 million is refused");
    return generate_poisson(p, cdf, rng);
  }
  if (w.type == "incast") {
    IncastParams p;
    p.senders = resolve_hosts(topo, w.senders, key + ".senders");
    p.receiver = host_id(topo, w.receiver, key + ".receiver");
    p.size_per_sender = static_cast<uint64_t>(w.size_per_sender);
    p.total_size = static_cast<uint64_t>(w.total_size);
    p.start = Time::zero() + w.start;
    p.interval = w.interval;
    p.repeats = w.repeats;
    p.tag = w.name;
    if (static_cast<double>(p.senders.size()) * p.repeats > 5e7)
      throw ConfigError(key + ".repeats: more than 50 million flows is refused");
    return generate_incast(p);
  }
  if (w.type == "burst") {
    BurstParams p;
    p.senders = resolve_hosts(topo, w.senders, key + ".senders");
    p.receiver = host_id(topo, w.receiver, key + ".receiver");
    p.flows_per_sender = w.flows_per_sender;
    p.flow_size = static_cast<uint64_t>(w.flow_size);
    p.start = Time::zero() + w.start;
    p.sender_spacing = w.sender_spacing;
    p.tag = w.name;
    if (static_cast<double>(p.senders.size()) * p.flows_per_sender > 5e7)
      throw ConfigError(key + ".flows_per_sender: more than 50 million flows is refused");
    return generate_burst(p);
  }
  if (w.type == "flows") {
    std::vector<ExplicitFlow> flows;
    for (size_t i = 0; i < w.flows.size(); ++i) {
      const auto& f = w.flows[i];
      const std::string k = key + ".flows." + std::to_string(i);
      flows.push_back(ExplicitFlow{host_id(topo, f.src, k + ".src"),
                                   host_id(topo, f.dst, k + ".dst"),
                                   static_cast<uint64_t>(f.size_bytes), Time::zero() + f.start});
    }
    return generate_explicit(flows, w.name);
  }
  // trace
  std::vector<FlowSpec> flows;
  if (w.format == "csv") {
    flows = load_flow_trace_csv(w.file, w.name);
  } else {
    const Ns3FlowFormat f = w.format == "hpcc"       ? Ns3FlowFormat::kHpcc
                            : w.format == "conweave" ? Ns3FlowFormat::kConweave
                                                     : Ns3FlowFormat::kAuto;
    flows = read_ns3_flows(w.file, f, w.name);
  }
  for (const FlowSpec& f : flows)
    if (f.src_host >= topo.nodes.size() || f.dst_host >= topo.nodes.size() ||
        topo.nodes[f.src_host].kind != NodeKind::kHost ||
        topo.nodes[f.dst_host].kind != NodeKind::kHost)
      throw ConfigError(w.file + ": flow " + std::to_string(f.src_host) + " -> " +
                        std::to_string(f.dst_host) + " does not join two hosts of the topology");
  return flows;
}

}  // namespace

// With PFC on, each switch reserves headroom per ingress port and lossless class; the
// shared buffer is what is left, and it must be positive.
void check_buffer_covers_headroom(const ExperimentSpec& spec) {
  const SwitchConfig& sc = spec.network.switch_config;
  if (!sc.pfc.enabled) return;
  const int classes = std::popcount(sc.pfc.lossless_priorities & 0xffu);
  std::vector<int64_t> reserved(spec.topology.nodes.size(), 0);
  for (const LinkSpec& l : spec.topology.links) {
    const int64_t h = pfc_headroom_bytes(sc.pfc, spec.network.wire, l.rate_bps, l.delay) * classes;
    reserved[l.a] += h;
    reserved[l.b] += h;
  }
  for (uint32_t n = 0; n < spec.topology.nodes.size(); ++n) {
    if (spec.topology.nodes[n].kind != NodeKind::kSwitch || reserved[n] < sc.buffer_bytes) continue;
    throw ConfigError("switch.buffer: " + std::to_string(sc.buffer_bytes) +
                      " B is not more than the " + std::to_string(reserved[n]) +
                      " B of PFC headroom switch '" + spec.topology.nodes[n].name +
                      "' reserves (fc.headroom, or fewer " + "lossless_priorities)");
  }
}

std::vector<std::pair<std::string, std::string>> shipped_cdfs() {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(workloads_dir(), ec))
    if (e.path().extension() == ".cdf")
      out.emplace_back(e.path().stem().string(), e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_cdf(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.find('.') != std::string::npos)
    return name_or_path;
  std::vector<std::string> names;
  for (const auto& [name, path] : shipped_cdfs()) {
    if (name == name_or_path) return path;
    names.push_back(name);
  }
  const std::string hint = did_you_mean(name_or_path, names);
  throw ConfigError("no shipped workload named '" + name_or_path + "'" +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

std::vector<uint32_t> resolve_hosts(const TopologySpec& topo, const std::vector<std::string>& names,
                                    const std::string& key) {
  std::vector<uint32_t> out;
  static const std::regex range(R"(^([A-Za-z_]*)(\d+)\.\.([A-Za-z_]*)(\d+)$)");
  for (const std::string& n : names) {
    if (n == "all") {
      const auto all = topo.hosts();
      out.insert(out.end(), all.begin(), all.end());
      continue;
    }
    std::smatch m;
    if (std::regex_match(n, m, range)) {
      if (m[1] != m[3]) throw ConfigError(key + ": range '" + n + "' must use one prefix");
      const long a = std::stol(m[2]), b = std::stol(m[4]);
      if (a > b || b - a > 1000000) throw ConfigError(key + ": range '" + n + "' is empty or huge");
      for (long i = a; i <= b; ++i)
        out.push_back(host_id(topo, m[1].str() + std::to_string(i), key));
      continue;
    }
    out.push_back(host_id(topo, n, key));
  }
  return out;
}

TopologySpec build_topology(const TopologyConfig& t) {
  TopologySpec topo;
  if (t.type == "leaf_spine") {
    topo = leaf_spine(t.leaf_spine);
  } else if (t.type == "fat_tree") {
    topo = fat_tree(t.fat_tree);
  } else if (t.type == "flb_testbed") {
    topo = flb_testbed(t.testbed_rate_bps, t.testbed_link_delay);
  } else {
    try {
      topo = read_ns3_topology(t.file);
    } catch (const std::runtime_error& e) {
      throw ConfigError(e.what());
    }
  }
  for (size_t i = 0; i < t.link_rates.size(); ++i) {
    const auto& lr = t.link_rates[i];
    const std::string key = "topology.link_rates." + std::to_string(i);
    int changed = 0;
    try {
      changed = topo.set_link_rate(lr.a, lr.b, lr.rate_bps);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(key + ": " + e.what());
    }
    if (changed == 0)
      throw ConfigError(key + ": no link between '" + lr.a + "' and '" + lr.b + "'");
  }
  return topo;
}

namespace {
ExperimentSpec build_unlocated(ScenarioConfig& c);
}  // namespace

// Errors found while building name a dotted key first; prefix its file and line.
ExperimentSpec build_experiment(ScenarioConfig& c) {
  try {
    return build_unlocated(c);
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    const size_t colon = msg.find(':');
    const std::string key = colon == std::string::npos ? "" : msg.substr(0, colon);
    throw ConfigError(c.where(key) + msg);
  }
}

namespace {
ExperimentSpec build_unlocated(ScenarioConfig& c) {
  ensure_schemes(c);
  ExperimentSpec spec;
  spec.topology = build_topology(c.topology);
  spec.network.switch_config = c.switch_config;
  spec.network.switch_config.pfc = c.pfc;
  spec.fc = c.fc;
  spec.scheduler = c.scheduler;
  const auto* fc = fc_registry().find(c.fc);
  spec.network.switch_config.pfc.enabled = fc && fc->factory()->lossless();
  spec.network.wire = c.wire;
  spec.network.seed = static_cast<uint64_t>(c.seed);
  spec.transport = c.transport;
  spec.lb = c.lb;
  spec.cc = c.cc;
  spec.lb_config = c.lb_params;
  spec.cc_config = c.cc_params;
  check_buffer_covers_headroom(spec);
  spec.stop = c.stop_time > Delta::zero() ? Time::zero() + c.stop_time : Time::never();
  spec.stop_when_done = c.stop_when_done;
  const std::vector<uint32_t> rack = rack_of_hosts(spec.topology);
  for (size_t i = 0; i < c.workloads.size(); ++i) {
    std::vector<FlowSpec> flows;
    try {
      flows = generate(c.workloads[i], i, spec.topology, rack, static_cast<uint64_t>(c.seed));
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw ConfigError("workloads." + std::to_string(i) + ": " + e.what());
    }
    spec.flows.insert(spec.flows.end(), flows.begin(), flows.end());
  }
  if (spec.flows.empty()) throw ConfigError("workloads: the workloads generate no flow");
  return spec;
}
}  // namespace

}  // namespace rocelab
