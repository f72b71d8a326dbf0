#include "scenario/config/workload_types.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "scenario/build/scenario_build.h"
#include "scenario/config/workload_collective.h"
#include "scenario/config/yaml_params.h"
#include "workload/flow_size_cdf.h"
#include "workload/long_lived.h"
#include "workload/ns3_flows.h"
#include "workload/patterns.h"
#include "workload/poisson.h"
#include "workload/random_incast.h"
#include "workload/trace.h"

namespace rocelab {

namespace {

// ---------------------------------------------------------------- poisson

const std::string kArrivals[] = {"poisson", "lognormal"};

void describe_poisson(ParamVisitor& v, WorkloadConfig& w) {
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

std::vector<FlowSpec> generate_poisson_workload(const WorkloadConfig& w,
                                                const WorkloadContext& ctx) {
  const TopologySpec& topo = ctx.topo;
  const std::string& key = ctx.key;
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
  // Load is a share of a NIC's capacity: all of its ports (planes, dual ToR) together.
  std::vector<BitsPerSec> nic_bps(topo.nodes.size(), 0);
  for (const LinkSpec& l : topo.links) {
    if (topo.nodes[l.a].kind == NodeKind::kHost) nic_bps[l.a] += l.rate_bps;
    if (topo.nodes[l.b].kind == NodeKind::kHost) nic_bps[l.b] += l.rate_bps;
  }
  BitsPerSec rate = 0;
  for (uint32_t h : p.hosts) {
    p.host_rack.push_back(ctx.rack[h]);
    rate = rate == 0 ? nic_bps[h] : std::min(rate, nic_bps[h]);
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
    p.load = w.load * fabric_load_factor(topo, p.hosts, ctx.rack, rate, w.intra_rack_fraction,
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
  return generate_poisson(p, cdf, ctx.rng);
}

// ---------------------------------------------------------------- incast and burst

// The keys incast and burst share: many senders, one receiver, one start.
void describe_senders_to_receiver(ParamVisitor& v, WorkloadConfig& w) {
  v.text_list("senders", w.senders, "sending hosts: names or ranges like H3..H16");
  v.text("receiver", w.receiver, "receiving host");
  if (v.reading()) {
    v.require(!w.senders.empty(), "senders", "at least one sender is needed");
    v.require(!w.receiver.empty(), "receiver", "a receiver is needed");
  }
  v.duration("start", w.start, Delta::zero(), Delta::max(), "when the senders start");
}

void describe_incast(ParamVisitor& v, WorkloadConfig& w) {
  describe_senders_to_receiver(v, w);
  v.bytes("size_per_sender", w.size_per_sender, 0, kNoLimit, "bytes each sender sends");
  v.bytes("total_size", w.total_size, 0, kNoLimit, "bytes of all senders together");
  v.require((w.size_per_sender > 0) != (w.total_size > 0), "size_per_sender",
            "give exactly one of size_per_sender and total_size");
  v.duration("interval", w.interval, Delta::zero(), Delta::max(), "between repeats");
  v.count("repeats", w.repeats, 1, 1000000, "how many incasts");
  v.require(w.repeats == 1 || w.interval > Delta::zero(), "interval",
            "repeats need a positive interval");
}

std::vector<FlowSpec> generate_incast_workload(const WorkloadConfig& w,
                                               const WorkloadContext& ctx) {
  IncastParams p;
  p.senders = resolve_hosts(ctx.topo, w.senders, ctx.key + ".senders");
  p.receiver = resolve_host(ctx.topo, w.receiver, ctx.key + ".receiver");
  p.size_per_sender = static_cast<uint64_t>(w.size_per_sender);
  p.total_size = static_cast<uint64_t>(w.total_size);
  p.start = Time::zero() + w.start;
  p.interval = w.interval;
  p.repeats = w.repeats;
  p.tag = w.name;
  if (static_cast<double>(p.senders.size()) * p.repeats > 5e7)
    throw ConfigError(ctx.key + ".repeats: more than 50 million flows is refused");
  return generate_incast(p);
}

// BFC §4.1: incasts at random receivers from random senders, at a share of the hosts'
// capacity.
void describe_random_incast(ParamVisitor& v, WorkloadConfig& w) {
  v.count("fan_in", w.fan_in, 1, 1000000,
          "flows per incast (100: BFC §4.1), from distinct senders while there are enough "
          "hosts, else spread evenly over all others (BFC Fig. 8: up to 800 on 64 hosts)");
  v.bytes("total_size", w.total_size, 0, kNoLimit, "bytes of one incast (20 MB: BFC §4.1)");
  v.bytes("size_per_sender", w.size_per_sender, 0, kNoLimit, "or bytes per sender");
  v.require((w.size_per_sender > 0) != (w.total_size > 0), "total_size",
            "give exactly one of total_size and size_per_sender");
  v.duration("interval", w.interval, Delta::zero(), Delta::max(),
             "if set, an incast every interval from start (BFC Fig. 8: 500 us) instead of "
             "Poisson arrivals at a load");
  if (w.interval == Delta::zero()) {
    v.real("load", w.load, -1e9, 1e9,
           "incast bytes as a fraction of the hosts' total link capacity (0.05: BFC §4.1)");
    v.require(w.load > 0 && w.load < 1, "load", "must be in (0, 1)");
  }
  v.text_list("hosts", w.hosts, "hosts that send and receive: names, ranges h0..h15, or all");
  v.duration("start", w.start, Delta::zero(), Delta::max(), "first incast not before");
  v.duration("stop", w.stop, Delta::zero(), Delta::max(), "no incast at or after");
  v.require(w.stop > w.start, "stop", "must be after start");
}

std::vector<FlowSpec> generate_random_incast_workload(const WorkloadConfig& w,
                                                      const WorkloadContext& ctx) {
  RandomIncastParams p;
  p.hosts = resolve_hosts(ctx.topo, w.hosts, ctx.key + ".hosts");
  if (p.hosts.size() < 2) throw ConfigError(ctx.key + ".hosts: an incast needs at least 2 hosts");
  p.fan_in = w.fan_in;
  p.total_size = static_cast<uint64_t>(w.total_size);
  p.size_per_sender = static_cast<uint64_t>(w.size_per_sender);
  double capacity_bps = 0;
  for (uint32_t h : p.hosts) capacity_bps += links_bps(ctx.topo, h, false);
  const double bytes = p.total_size > 0 ? static_cast<double>(p.total_size)
                                        : static_cast<double>(p.size_per_sender) * p.fan_in;
  p.events_per_s = w.load * capacity_bps / (8.0 * bytes);
  p.interval = w.interval;
  p.start = Time::zero() + w.start;
  p.stop = Time::zero() + w.stop;
  p.tag = w.name;
  return generate_random_incast(p, ctx.rng);
}

void describe_burst(ParamVisitor& v, WorkloadConfig& w) {
  describe_senders_to_receiver(v, w);
  v.count("flows_per_sender", w.flows_per_sender, 1, 1000000, "flows each sender starts");
  v.bytes("flow_size", w.flow_size, 1, kNoLimit, "bytes per flow (FLB §2: 64 KB)");
  v.duration("sender_spacing", w.sender_spacing, Delta::zero(), Delta::max(),
             "stagger between consecutive senders");
  v.count("repeats", w.repeats, 1, 1000000,
          "how many times the burst is issued (Proteus Figs. 2, 4: 5 bursts)");
  v.duration("interval", w.interval, Delta::zero(), Delta::max(),
             "between the starts of consecutive bursts (burst k at start + k x interval)");
  v.require(w.repeats == 1 || w.interval > Delta::zero(), "interval",
            "repeats need a positive interval");
}

std::vector<FlowSpec> generate_burst_workload(const WorkloadConfig& w, const WorkloadContext& ctx) {
  BurstParams p;
  p.senders = resolve_hosts(ctx.topo, w.senders, ctx.key + ".senders");
  p.receiver = resolve_host(ctx.topo, w.receiver, ctx.key + ".receiver");
  p.flows_per_sender = w.flows_per_sender;
  p.flow_size = static_cast<uint64_t>(w.flow_size);
  p.start = Time::zero() + w.start;
  p.sender_spacing = w.sender_spacing;
  p.repeats = w.repeats;
  p.interval = w.interval;
  p.tag = w.name;
  if (static_cast<double>(p.senders.size()) * p.flows_per_sender * p.repeats > 5e7)
    throw ConfigError(ctx.key + (p.repeats > 1 ? ".repeats" : ".flows_per_sender") +
                      ": more than 50 million flows is refused");
  return generate_burst(p);
}

// ---------------------------------------------------------------- long_lived

void describe_long_lived(ParamVisitor& v, WorkloadConfig& w) {
  v.count("flows_per_receiver", w.flows_per_receiver, 1, 1000000,
          "flows into each host, from distinct random senders (4: BFC Fig. 8)");
  v.bytes("flow_size", w.long_flow_size, 1, kNoLimit,
          "bytes per flow (default 1 PiB: they outlive any run; end it with stop.time)");
  v.text_list("hosts", w.hosts, "hosts that send and receive: names, ranges h0..h15, or all");
  v.duration("start", w.start, Delta::zero(), Delta::max(), "when every flow starts");
}

std::vector<FlowSpec> generate_long_lived_workload(const WorkloadConfig& w,
                                                   const WorkloadContext& ctx) {
  LongLivedParams p;
  p.hosts = resolve_hosts(ctx.topo, w.hosts, ctx.key + ".hosts");
  if (w.flows_per_receiver >= p.hosts.size())
    throw ConfigError(ctx.key + ".flows_per_receiver: " + std::to_string(w.flows_per_receiver) +
                      " distinct senders need more than " + std::to_string(p.hosts.size()) +
                      " hosts");
  p.flows_per_receiver = w.flows_per_receiver;
  p.flow_size = static_cast<uint64_t>(w.long_flow_size);
  p.start = Time::zero() + w.start;
  p.tag = w.name;
  return generate_long_lived(p, ctx.rng);
}

// ---------------------------------------------------------------- flows

void describe_flows(ParamVisitor& v, WorkloadConfig& w) {
  size_t n = w.flows.size();
  v.list(
      "flows", n, [&](size_t k) { w.flows.resize(k); },
      [&](ParamVisitor& item, size_t i) {
        auto& f = w.flows[i];
        item.text("src", f.src, "sending host");
        item.text("dst", f.dst, "receiving host");
        item.bytes("size", f.size_bytes, 0, kNoLimit, "bytes");
        item.duration("start", f.start, Delta::zero(), Delta::max(), "start time");
        item.integer("path", f.path, -1, std::numeric_limits<uint32_t>::max(),
                     "pin the flow's data packets to this path ID between the two hosts' "
                     "edge switches (0 .. paths - 1; in a leaf-spine, the spine), source "
                     "routed from the host past every load balancer; -1: not pinned");
      },
      "explicit flows");
  if (v.reading()) v.require(!w.flows.empty(), "flows", "at least one flow is needed");
}

std::vector<FlowSpec> generate_flows_workload(const WorkloadConfig& w, const WorkloadContext& ctx) {
  std::vector<ExplicitFlow> flows;
  for (size_t i = 0; i < w.flows.size(); ++i) {
    const auto& f = w.flows[i];
    const std::string k = ctx.key + ".flows." + std::to_string(i);
    ExplicitFlow e{resolve_host(ctx.topo, f.src, k + ".src"),
                   resolve_host(ctx.topo, f.dst, k + ".dst"), static_cast<uint64_t>(f.size_bytes),
                   Time::zero() + f.start, std::nullopt};
    if (f.path >= 0) {
      const uint32_t src_edge = ctx.rack[e.src], dst_edge = ctx.rack[e.dst];
      const std::string& edge_name = ctx.topo.nodes[src_edge].name;
      if (src_edge == dst_edge)
        throw ConfigError(k + ".path: " + f.src + " and " + f.dst + " hang off the same " +
                          "edge switch (" + edge_name + "): there is no path to pin");
      const uint64_t paths = ctx.routing().path_count(src_edge, dst_edge);
      if (static_cast<uint64_t>(f.path) >= paths)
        throw ConfigError(k + ".path: " + std::to_string(f.path) + " is not a path from " +
                          edge_name + " to " + ctx.topo.nodes[dst_edge].name + ", which has " +
                          std::to_string(paths) + " (0 .. " + std::to_string(paths - 1) + ")");
      e.path = static_cast<uint32_t>(f.path);
    }
    flows.push_back(e);
  }
  return generate_explicit(flows, w.name);
}

// ---------------------------------------------------------------- trace

const std::string kTraceFormats[] = {"csv", "hpcc", "conweave", "auto"};

void describe_trace(ParamVisitor& v, WorkloadConfig& w) {
  v.text("file", w.file, "flow trace file");
  v.choice("format", w.format, kTraceFormats,
           "csv (src,dst,size_bytes,start_ns; with id, after, behind: a flow DAG), ns-3 hpcc / "
           "conweave flow file, or auto");
  if (v.reading()) v.require(!w.file.empty(), "file", "a trace workload needs a file");
}

std::vector<FlowSpec> generate_trace_workload(const WorkloadConfig& w, const WorkloadContext& ctx) {
  std::vector<FlowSpec> flows;
  if (w.format == "csv") {
    flows = load_flow_trace_csv(w.file, w.name);
  } else {
    flows = read_ns3_flows(w.file, ns3_flow_format(w.format), w.name);
  }
  const TopologySpec& topo = ctx.topo;
  for (const FlowSpec& f : flows)
    if (f.src_host >= topo.nodes.size() || f.dst_host >= topo.nodes.size() ||
        topo.nodes[f.src_host].kind != NodeKind::kHost ||
        topo.nodes[f.dst_host].kind != NodeKind::kHost)
      throw ConfigError(w.file + ": flow " + std::to_string(f.src_host) + " -> " +
                        std::to_string(f.dst_host) + " does not join two hosts of the topology");
  return flows;
}

}  // namespace

const Registry<WorkloadType>& workload_registry() {
  static const Registry<WorkloadType> registry = [] {
    Registry<WorkloadType> r;
    r.add("poisson", "flow sizes from a CDF, Poisson or lognormal arrivals at a load",
          {describe_poisson, generate_poisson_workload});
    r.add("incast", "N-to-1, total or per-sender size, repeated at an interval",
          {describe_incast, generate_incast_workload});
    r.add("random_incast",
          "fan_in-to-1 incasts at random hosts, Poisson at a share of the hosts' capacity "
          "(BFC §4.1)",
          {describe_random_incast, generate_random_incast_workload});
    r.add("long_lived",
          "k flows into every host from k distinct random senders, all at once (BFC Fig. 8)",
          {describe_long_lived, generate_long_lived_workload});
    r.add("burst",
          "each sender starts k flows of size s to one receiver at t, repeated at an interval",
          {describe_burst, generate_burst_workload});
    r.add("flows", "explicit flows", {describe_flows, generate_flows_workload});
    r.add("trace", "a flow trace: CSV, a flow DAG, or an HPCC/ConWeave ns-3 flow file",
          {describe_trace, generate_trace_workload});
    r.add("collective",
          "AI training: all-reduce (ring, double binary tree, halving-doubling), "
          "reduce-scatter, all-gather, all-to-all, broadcast, pipeline send/recv; jobs of "
          "iterations with compute gaps",
          {describe_collective_workload, generate_collective_workload});
    return r;
  }();
  return registry;
}

}  // namespace rocelab
