#include "lb/letflow.h"

namespace rocelab {

void LetFlowSchemeConfig::describe(ParamVisitor& v) {
  v.duration("flowlet_timeout", cfg.flowlet_timeout, Delta::from_ns(1), Delta::max(),
             "gap that starts a new flowlet (50 us: FLB §2 testbed)");
  int64_t entries = cfg.table_entries;
  v.integer("table_entries", entries, 1, 1 << 26, "flowlet table size, a power of two");
  v.require((entries & (entries - 1)) == 0, "table_entries", "must be a power of two");
  cfg.table_entries = static_cast<uint32_t>(entries);
}

std::unique_ptr<LoadBalancer> LetFlowSchemeConfig::build(const SwitchView& sw) const {
  return std::make_unique<LetFlow>(sw, cfg);
}

PortId LetFlow::choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  if (table_.empty()) table_.resize(cfg_.table_entries);
  Entry& e = table_[p.flow_hash & (cfg_.table_entries - 1)];
  const Time now = sw.now();
  if (e.last_seen == Time::never() || now - e.last_seen > cfg_.flowlet_timeout ||
      e.choice >= candidates.size()) {
    e.choice = static_cast<uint16_t>(rng_.below(candidates.size()));
    ++flowlets_;
  }
  e.last_seen = now;
  return candidates[e.choice];
}

}  // namespace rocelab
