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

// The path that maximises the bound, from one host: over the shortest paths (in links) to
// every other host, the largest sum of its switches' drain times (a longest path on the
// breadth-first DAG). Hosts do not forward.
struct Worst {
  double queue_s = 0;  // summed drain time of the path's switches
  Delta delay;         // the path's one-way propagation
  uint32_t switches = 0;
};

Worst worst_from(uint32_t src, const TopologySpec& topo, const std::vector<std::vector<Edge>>& adj,
                 const std::vector<double>& drain_s) {
  const size_t n = topo.nodes.size();
  constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> dist(n, kUnseen);
  std::vector<Worst> best(n);
  std::vector<uint32_t> order{src};
  dist[src] = 0;
  Worst out;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t u = order[i];
    if (u != src && topo.nodes[u].kind == NodeKind::kHost) {
      if (best[u].queue_s > out.queue_s ||
          (best[u].queue_s == out.queue_s && best[u].delay > out.delay))
        out = best[u];
      continue;
    }
    for (const Edge& e : adj[u]) {
      const bool first = dist[e.to] == kUnseen;
      if (!first && dist[e.to] != dist[u] + 1) continue;
      Worst w = best[u];
      w.delay = w.delay + e.delay;
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
  Worst worst;
  for (uint32_t h : topo.hosts()) {
    const Worst w = worst_from(h, topo, adj, drain_s);
    if (w.queue_s > worst.queue_s || (w.queue_s == worst.queue_s && w.delay > worst.delay))
      worst = w;
  }
  const int ways = sc.ack_queue == "data" ? 2 : 1;
  const double total_s = ways * worst.queue_s + 2 * worst.delay.seconds();
  const int64_t us = static_cast<int64_t>(std::ceil(total_s * 1e6 - 1e-6));
  FabricRto out;
  out.rto = Delta::from_us(std::max<int64_t>(us, 1));
  out.derivation = fmt::format(
      "{} = {}the buffers of the {} switches on the worst path, each drained at its slowest "
      "port{} ({:.1f} us), + the path's round-trip propagation ({})",
      format_duration(out.rto), ways == 2 ? "2 x " : "", worst.switches,
      lossless ? " shared by its other ports (PFC)" : "", worst.queue_s * 1e6,
      format_duration(worst.delay * 2));
  return out;
}

}  // namespace rocelab
