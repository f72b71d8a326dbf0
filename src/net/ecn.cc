#include "net/ecn.h"

#include "net/flow_control.h"

namespace rocelab {

std::vector<EcnConfig> port_ecn_configs(const SwitchView& sw) {
  std::vector<EcnConfig> configs;
  for (size_t i = 0; i < sw.port_count(); ++i) {
    const EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
    configs.push_back(sw.config().ecn.for_port(port.rate_bps()));
  }
  return configs;
}

RedEcnMarking::RedEcnMarking(const SwitchView& sw, NetCounterLanes* counters)
    : port_ecn_(port_ecn_configs(sw)),
      rng_(sw.seed(), "switch", sw.id().index()),
      counters_(counters) {}

void RedEcnMarking::on_dequeue(const SwitchView& sw, Packet& p, PortId port_id, size_t queue) {
  if (p.type != PacketType::kData || !p.ecn_capable || p.ecn_ce) return;
  // The queue the packet leaves, as it is behind it.
  const int64_t queue_bytes = sw.port(port_id).queue_bytes(queue);
  if (red_should_mark(queue_bytes, port_ecn_[port_id.index()], rng_)) {
    p.ecn_ce = true;
    ++counters_->local().ecn_marks;
  }
}

}  // namespace rocelab
