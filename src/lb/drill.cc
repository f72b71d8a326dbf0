#include "lb/drill.h"

#include <algorithm>

namespace rocelab {

void DrillSchemeConfig::describe(ParamVisitor& v) {
  v.count("samples", cfg.samples, 1, 64, "d: random ports sampled per packet (2, DRILL §5)");
  v.count("memory", cfg.memory, 0, 64, "m: best ports remembered per engine (1, DRILL §5)");
}

std::unique_ptr<LoadBalancer> DrillSchemeConfig::build(const SwitchView& sw) const {
  return std::make_unique<Drill>(sw, cfg);
}

Drill::Drill(const SwitchView& sw, const DrillConfig& cfg)
    : cfg_(cfg),
      rng_(sw.seed(), "drill", sw.id().index()),
      memory_(sw.port_count() * cfg.memory, PortId::invalid()) {}

PortId Drill::choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  const size_t engine = p.ingress_port.valid() ? p.ingress_port.index() : 0;
  PortId* remembered = memory_.data() + engine * cfg_.memory;
  PortId best = PortId::invalid();
  int64_t best_bytes = 0;
  auto consider = [&](PortId port) {
    const int64_t bytes = sw.port(port).data_queue_bytes();
    if (!best.valid() || bytes < best_bytes) {
      best = port;
      best_bytes = bytes;
    }
  };
  // The remembered ports first: a random sample only displaces them when strictly
  // less loaded. A remembered port that is no candidate here (another destination's
  // next hops) is passed over.
  for (uint32_t i = 0; i < cfg_.memory; ++i)
    if (remembered[i].valid() &&
        std::find(candidates.begin(), candidates.end(), remembered[i]) != candidates.end())
      consider(remembered[i]);
  for (uint32_t i = 0; i < cfg_.samples; ++i) consider(candidates[rng_.below(candidates.size())]);
  // Keep the m best: the chosen port goes to the front, the others move down.
  if (cfg_.memory > 0) {
    PortId* end = remembered + cfg_.memory;
    PortId* it = std::find(remembered, end, best);
    if (it == end) it = end - 1;
    std::move_backward(remembered, it, it + 1);
    remembered[0] = best;
  }
  return best;
}

}  // namespace rocelab
