#include "lb/letflow.h"

namespace rocelab {

PortId LetFlow::choose_egress(Switch& sw, PacketId pkt, std::span<const PortId> candidates) {
  if (table_.empty()) table_.resize(cfg_.table_entries);
  const Packet& p = sw.context().pkt(pkt);
  Entry& e = table_[p.flow_hash & (cfg_.table_entries - 1)];
  const Time now = sw.context().sim.now();
  if (e.last_seen == Time::never() || now - e.last_seen > cfg_.flowlet_timeout ||
      e.choice >= candidates.size()) {
    e.choice = static_cast<uint16_t>(sw.rng().below(candidates.size()));
    ++flowlets_;
  }
  e.last_seen = now;
  return candidates[e.choice];
}

}  // namespace rocelab
