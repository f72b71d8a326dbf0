#include "scenario/build/fabric_rto.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "scenario/build/experiment.h"
#include "sim/units.h"

namespace rocelab {

namespace {

struct Edge {
  uint32_t to;
  Delta delay;
};

// The path that maximises the bound from a source: over the shortest paths (in links) to
// every host, the largest sum of its switches' drain times (a longest path on the
// breadth-first DAG). Hosts do not forward.
struct Worst {
  double queue_s = 0;  // summed drain time of the path's switches
  Delta delay;         // the path's one-way propagation
  uint32_t switches = 0;
  uint32_t links = 0;
  bool above(const Worst& o) const {
    return queue_s > o.queue_s || (queue_s == o.queue_s && delay > o.delay);
  }
};

// From `src` (a host, or the switch of single-homed hosts) holding `start`.
Worst worst_from(uint32_t src, Worst start, const TopologySpec& topo,
                 const std::vector<std::vector<Edge>>& adj, const std::vector<double>& drain_s) {
  const size_t n = topo.nodes.size();
  constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> dist(n, kUnseen);
  std::vector<Worst> best(n);
  std::vector<uint32_t> order{src};
  dist[src] = 0;
  best[src] = start;
  Worst out;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t u = order[i];
    if (u != src && topo.nodes[u].kind == NodeKind::kHost) {
      if (best[u].above(out)) out = best[u];
      continue;
    }
    for (const Edge& e : adj[u]) {
      const bool first = dist[e.to] == kUnseen;
      if (!first && dist[e.to] != dist[u] + 1) continue;
      Worst w = best[u];
      w.delay = w.delay + e.delay;
      ++w.links;
      if (topo.nodes[e.to].kind == NodeKind::kSwitch) {
        w.queue_s += drain_s[e.to];
        ++w.switches;
      }
      if (first) {
        dist[e.to] = dist[u] + 1;
        order.push_back(e.to);
        best[e.to] = w;
      } else if (w.queue_s > best[e.to].queue_s) {
        best[e.to] = w;
      }
    }
  }
  return out;
}

}  // namespace

FabricRto fabric_rto(const ExperimentSpec& spec) {
  const TopologySpec& topo = spec.topology;
  const size_t n = topo.nodes.size();
  std::vector<std::vector<Edge>> adj(n);
  std::vector<BitsPerSec> slowest(n, std::numeric_limits<BitsPerSec>::max());
  for (const LinkSpec& l : topo.links) {
    adj[l.a].push_back({l.b, l.delay});
    adj[l.b].push_back({l.a, l.delay});
    slowest[l.a] = std::min(slowest[l.a], l.rate_bps);
    slowest[l.b] = std::min(slowest[l.b], l.rate_bps);
  }
  const SwitchConfig& sc = spec.network.switch_config;
  const bool lossless = resolved_network(spec).switch_config.pfc.enabled;
  std::vector<double> drain_s(n, 0.0);
  for (uint32_t s = 0; s < n; ++s) {
    if (topo.nodes[s].kind != NodeKind::kSwitch || adj[s].empty()) continue;
    // Under PFC an upstream port gets its share of this switch's egress only: the other
    // ingress ports' packets go between each of its admitted batches.
    const double share = lossless ? static_cast<double>(std::max<size_t>(1, adj[s].size() - 1)) : 1;
    drain_s[s] = share * static_cast<double>(sc.buffer_of(topo.nodes[s].name)) * 8 /
                 static_cast<double>(slowest[s]);
  }
  // One search per switch that hosts hang from (they share its paths; the longest host
  // link is added after), one per host otherwise: linear in hosts per edge switch.
  std::vector<Delta> hosts_link(n, Delta::zero());
  std::vector<bool> has_hosts(n, false);
  Worst worst;
  for (uint32_t h : topo.hosts()) {
    // A host of several ports (planes, dual ToR) reaches through each what that switch
    // does: hosts do not forward.
    const bool on_switches =
        !adj[h].empty() && std::all_of(adj[h].begin(), adj[h].end(), [&](const Edge& e) {
          return topo.nodes[e.to].kind == NodeKind::kSwitch;
        });
    if (on_switches) {
      for (const Edge& e : adj[h]) {
        has_hosts[e.to] = true;
        hosts_link[e.to] = std::max(hosts_link[e.to], e.delay);
      }
      continue;
    }
    const Worst w = worst_from(h, Worst{}, topo, adj, drain_s);
    if (w.above(worst)) worst = w;
  }
  for (uint32_t s = 0; s < n; ++s) {
    if (!has_hosts[s]) continue;
    const Worst w = worst_from(s, Worst{drain_s[s], hosts_link[s], 1, 1}, topo, adj, drain_s);
    if (w.above(worst)) worst = w;
  }
  BitsPerSec slowest_link = std::numeric_limits<BitsPerSec>::max();
  for (const LinkSpec& l : topo.links) slowest_link = std::min(slowest_link, l.rate_bps);
  const int ways = sc.ack_queue == "data" ? 2 : 1;
  const double round_trip_s = 2 * worst.delay.seconds();
  const double total_s = ways * worst.queue_s + round_trip_s;
  // A floor for paths with little or no switch buffer: twice the unloaded round trip, a
  // full frame and an ACK serialized on every link at the slowest rate.
  const WireModel& wire = spec.network.wire;
  const double frames_s = topo.links.empty()
                              ? 0
                              : worst.links *
                                    static_cast<double>(wire.mtu_wire_bytes() +
                                                        wire.control_wire_bytes(PacketType::kAck)) *
                                    8 / static_cast<double>(slowest_link);
  const double floor_s = 2 * (round_trip_s + frames_s);
  const int64_t us = static_cast<int64_t>(std::ceil(std::max(total_s, floor_s) * 1e6 - 1e-6));
  FabricRto out;
  out.rto = Delta::from_us(std::max<int64_t>(us, 1));
  if (total_s >= floor_s) {
    out.derivation = fmt::format(
        "{} = {}the buffers of the {} switches on the worst path, each drained at its slowest "
        "port{} ({:.1f} us), + the path's round-trip propagation ({})",
        format_duration(out.rto), ways == 2 ? "2 x " : "", worst.switches,
        lossless ? " shared by its other ports (PFC)" : "", worst.queue_s * 1e6,
        format_duration(worst.delay * 2));
  } else {
    out.derivation = fmt::format(
        "{} = twice the worst path's unloaded round trip ({} links: propagation {}, a frame and "
        "an ACK on each), above its switches' drain ({:.1f} us)",
        format_duration(out.rto), worst.links, format_duration(worst.delay * 2),
        worst.queue_s * 1e6);
  }
  return out;
}

}  // namespace rocelab
