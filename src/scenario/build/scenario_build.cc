#include "scenario/build/scenario_build.h"

#include "scenario/build/fabric_rto.h"
#include "scenario/build/fault_build.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <regex>

#include "net/mmu.h"
#include "scenario/config/presets.h"
#include "scenario/config/topology_types.h"
#include "scenario/config/workload_types.h"
#include "scenario/config/yaml_params.h"

namespace rocelab {

namespace {

std::string workloads_dir() {
  return std::string(ROCELAB_SOURCE_DIR) + "/workloads";
}

// The edge switch each host hangs off (its rack).
std::vector<uint32_t> rack_of_hosts(const TopologySpec& topo) {
  std::vector<uint32_t> rack(topo.nodes.size(), 0);
  std::vector<uint8_t> seen(topo.nodes.size(), 0);
  // A NIC of several ports: its rack is where port 0 goes (plane 0, or the first ToR).
  for (const LinkSpec& l : topo.links) {
    if (topo.nodes[l.a].kind == NodeKind::kHost && !seen[l.a]++) rack[l.a] = l.b;
    if (topo.nodes[l.b].kind == NodeKind::kHost && !seen[l.b]++) rack[l.b] = l.a;
  }
  return rack;
}

void ensure_schemes(ScenarioConfig& c) {
  ensure_lb_params(c);
  ensure_cc_params(c);
  ensure_fc_params(c);
}

// The topology's routing, for workloads that name paths: built the first time one asks (it
// costs a breadth-first search per edge switch), before the Network builds its own.
class LazyRouting {
 public:
  explicit LazyRouting(const TopologySpec& topo) : topo_(topo) {}
  const Routing& get() {
    if (!built_) {
      adjacency_ = port_adjacency(topo_);
      routing_.build(topo_, adjacency_);
      built_ = true;
    }
    return routing_;
  }

 private:
  const TopologySpec& topo_;
  std::vector<std::vector<PortPeer>> adjacency_;  // routing_ keeps a pointer to it
  Routing routing_;
  bool built_ = false;
};

std::vector<FlowSpec> generate(const WorkloadConfig& w, size_t index, const TopologySpec& topo,
                               const std::vector<uint32_t>& rack, uint64_t seed,
                               const std::function<const Routing&()>& routing,
                               std::vector<CollectiveSpec>& collectives) {
  const std::string key = "workloads." + std::to_string(index);
  const auto* type = workload_registry().find(w.type);
  if (!type) throw ConfigError(key + ".type: " + not_one_of(w.type, workload_registry().names()));
  RandomStream rng(seed, "workload:" + w.name, index);
  return type->factory.generate(w,
                                WorkloadContext{topo, rack, key, rng, routing, collectives, index});
}

}  // namespace

// switch.buffers names switches of the topology, each once.
void check_buffer_overrides(const ExperimentSpec& spec) {
  const SwitchConfig sc = resolved_network(spec).switch_config;
  for (size_t i = 0; i < sc.buffers.size(); ++i) {
    const std::string key = "switch.buffers." + std::to_string(i) + ".switch";
    const std::string& name = sc.buffers[i].switch_name;
    const auto& nodes = spec.topology.nodes;
    const auto it =
        std::find_if(nodes.begin(), nodes.end(), [&](const NodeSpec& n) { return n.name == name; });
    if (it == nodes.end())
      throw ConfigError(key + ": no node named '" + name + "' in the topology");
    if (it->kind != NodeKind::kSwitch) throw ConfigError(key + ": '" + name + "' is a host");
    for (size_t j = 0; j < i; ++j)
      if (sc.buffers[j].switch_name == name)
        throw ConfigError(key + ": '" + name + "' is already given a buffer (item " +
                          std::to_string(j) + ")");
  }
}

// With PFC on, each switch reserves headroom per ingress port and lossless class; the
// shared buffer is what is left, and it must be positive.
void check_buffer_covers_headroom(const ExperimentSpec& spec) {
  const SwitchConfig sc = resolved_network(spec).switch_config;
  if (!sc.pfc.enabled) return;
  const int classes = std::popcount(sc.pfc.lossless_priorities & 0xffu);
  // As Mmu::init takes them off the buffer: each port's headroom per lossless class and
  // its pool reserve.
  std::vector<int64_t> reserved(spec.topology.nodes.size(), 0);
  for (const LinkSpec& l : spec.topology.links) {
    const int64_t h = pfc_headroom_bytes(sc.pfc, spec.network.wire, l.rate_bps, l.delay) * classes +
                      sc.pfc.pool_reserve_per_port_bytes;
    reserved[l.a] += h;
    reserved[l.b] += h;
  }
  for (uint32_t n = 0; n < spec.topology.nodes.size(); ++n) {
    const std::string& name = spec.topology.nodes[n].name;
    const int64_t buffer = sc.buffer_of(name);
    if (spec.topology.nodes[n].kind != NodeKind::kSwitch || reserved[n] < buffer) continue;
    std::string key = "switch.buffer";
    for (size_t i = 0; i < sc.buffers.size(); ++i)
      if (sc.buffers[i].switch_name == name)
        key = "switch.buffers." + std::to_string(i) + ".buffer";
    throw ConfigError(key + ": " + std::to_string(buffer) + " B is not more than the " +
                      std::to_string(reserved[n]) + " B of PFC headroom and pool reserve switch '" +
                      spec.topology.nodes[n].name + "' sets aside (fc.headroom, " +
                      "fc.pool_reserve_per_port, or fewer lossless_priorities)");
  }
}

// Without a retransmission timer (transport.rto: 0, as HPCC-ns3) a lost packet at a flow's
// tail is never resent, so the fabric must not drop data.
void check_timer_or_lossless(const ExperimentSpec& spec) {
  if (spec.transport.rto > Delta::zero() || resolved_network(spec).switch_config.pfc.enabled)
    return;
  throw ConfigError(
      "transport.rto: 0 (no retransmission timer, the hpcc-ns3 preset's) needs a lossless "
      "fabric (fc: pfc); with fc: " +
      (spec.fc.empty() ? std::string("none") : spec.fc) +
      " a lost packet would never be resent: set transport.rto (e.g. 1ms)");
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

uint32_t resolve_host(const TopologySpec& topo, const std::string& name, const std::string& key) {
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
        out.push_back(resolve_host(topo, m[1].str() + std::to_string(i), key));
      continue;
    }
    out.push_back(resolve_host(topo, n, key));
  }
  return out;
}

TopologySpec build_topology(const TopologyConfig& t) {
  const auto* type = topology_registry().find(t.type);
  if (!type) throw ConfigError("topology.type: " + not_one_of(t.type, topology_registry().names()));
  TopologySpec topo = type->factory.build(t);
  if (t.planes > 1) topo = with_planes(topo, t.planes);
  if (t.dual_tor) topo = with_dual_tor(topo);
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
  spec.switch_features = c.switch_features;
  spec.network.wire = c.wire;
  spec.network.seed = static_cast<uint64_t>(c.seed);
  spec.transport = c.transport;
  spec.transport.ack_pause = resolve_ack_pause(c.transport.ack_pause, c.preset, c.cc);
  if (spec.transport.rto_auto) {
    const FabricRto rto = fabric_rto(spec);
    spec.transport.rto = rto.rto;
    spec.rto_derivation = rto.derivation;
  }
  spec.lb = c.lb;
  spec.cc = c.cc;
  spec.lb_config = c.lb_params;
  spec.cc_config = c.cc_params;
  spec.fc_config = c.fc_params;
  check_buffer_overrides(spec);
  check_buffer_covers_headroom(spec);
  check_timer_or_lossless(spec);
  spec.stop = c.stop_time > Delta::zero() ? Time::zero() + c.stop_time : Time::never();
  spec.faults = build_faults(c, spec.topology, spec.stop, spec.transport.data_priority);
  if (!spec.faults.events.empty() && spec.transport.rto <= Delta::zero())
    throw ConfigError(
        "events: faults lose packets, and transport.rto: 0 would never resend them; set "
        "transport.rto (e.g. auto or 1ms)");
  spec.stop_when_done = c.stop_when_done;
  spec.partition = c.parallel_partition;
  const std::vector<uint32_t> rack = rack_of_hosts(spec.topology);
  LazyRouting lazy_routing(spec.topology);
  const std::function<const Routing&()> routing = [&]() -> const Routing& {
    return lazy_routing.get();
  };
  for (size_t i = 0; i < c.workloads.size(); ++i) {
    std::vector<FlowSpec> flows;
    std::vector<CollectiveSpec> collectives;
    try {
      flows = generate(c.workloads[i], i, spec.topology, rack, static_cast<uint64_t>(c.seed),
                       routing, collectives);
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw ConfigError("workloads." + std::to_string(i) + ": " + e.what());
    }
    // A workload's flows and collectives index its own list; place them after the others.
    const uint32_t offset = static_cast<uint32_t>(spec.flows.size());
    for (FlowSpec& f : flows) {
      for (uint32_t& a : f.after) a += offset;
      if (f.behind) *f.behind += offset;
      if (f.qp) *f.qp += offset;
    }
    for (CollectiveSpec& col : collectives) {
      col.first_flow += offset;
      spec.collectives.push_back(std::move(col));
    }
    if (spec.flows.empty()) {
      spec.flows = std::move(flows);  // no second array of a collective's millions
    } else {
      spec.flows.insert(spec.flows.end(), std::make_move_iterator(flows.begin()),
                        std::make_move_iterator(flows.end()));
    }
  }
  if (spec.flows.empty()) throw ConfigError("workloads: the workloads generate no flow");
  return spec;
}
}  // namespace

}  // namespace rocelab
