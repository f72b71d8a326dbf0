#include "lb/drill.h"

#include <algorithm>
#include <array>

namespace rocelab {

namespace {
const std::array<std::string, 2> kDrillModels = {"paper", "ns3"};
}

void DrillSchemeConfig::describe(ParamVisitor& v) {
  v.choice("model", cfg.model, kDrillModels,
           "paper: an engine per ingress port, samples with replacement; ns3: ConWeave-ns3's "
           "DoLbDrill (one remembered port per destination host, distinct samples, m = 1)");
  v.count("samples", cfg.samples, 1, 64, "d: random ports sampled per packet (2, DRILL §5)");
  v.count("memory", cfg.memory, 0, 64, "m: best ports remembered per engine (1, DRILL §5)");
}

std::unique_ptr<LoadBalancer> DrillSchemeConfig::build(const SwitchView& sw) const {
  return std::make_unique<Drill>(sw, cfg);
}

Drill::Drill(const SwitchView& sw, const DrillConfig& cfg)
    : cfg_(cfg),
      ns3_(cfg.model == "ns3"),
      rng_(sw.seed(), "drill", sw.id().index()),
      memory_(ns3_ ? 0 : sw.port_count() * cfg.memory, PortId::invalid()) {}

// ConWeave-ns3: the port remembered for the packet's destination is the incumbent; d
// distinct random candidates displace it only when strictly less loaded; the winner is
// remembered for that destination.
PortId Drill::choose_ns3(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  const size_t dst = p.dst.index();
  if (memory_.size() <= dst) memory_.resize(dst + 1, PortId::invalid());
  PortId best = memory_[dst];
  int64_t best_bytes = best.valid() ? sw.port(best).data_queue_bytes() : INT64_MAX;
  scratch_.assign(candidates.begin(), candidates.end());
  const size_t n = std::min<size_t>(cfg_.samples, scratch_.size());
  for (size_t i = 0; i < n; ++i) {  // a partial shuffle: n distinct samples
    std::swap(scratch_[i], scratch_[i + rng_.below(scratch_.size() - i)]);
    const int64_t bytes = sw.port(scratch_[i]).data_queue_bytes();
    if (bytes < best_bytes) {
      best = scratch_[i];
      best_bytes = bytes;
    }
  }
  memory_[dst] = best;
  return best;
}

PortId Drill::choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  if (ns3_) return choose_ns3(sw, p, candidates);
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
