#include "net/np_ecn.h"

#include "net/ecn.h"
#include "net/flow_control.h"
#include "net/net_context.h"

namespace rocelab {

NpEcnMarking::NpEcnMarking(const SwitchView& sw, NetCounterLanes& counters)
    : port_ecn_(port_ecn_configs(sw)),
      stamp_(sw.packet_layout().declare<NpEcnStamp>("np_ecn.stamp")),
      counters_(counters) {}

void NpEcnMarking::on_enqueue(const SwitchView& sw, Packet& p, PortId port_id) {
  const EgressPort& port = sw.port(port_id);
  const size_t queue = sw.flow_control().classify(port, p);
  NpEcnStamp& stamp = sw.field(stamp_, p);
  stamp.pause_epoch = port.pause_epoch(queue);
  stamp.paused_on_arrival = port.pfc_paused(queue);
}

void NpEcnMarking::on_dequeue(const SwitchView& sw, Packet& p, PortId port_id, size_t queue) {
  if (p.type != PacketType::kData || !p.ecn_capable || p.ecn_ce) return;
  const EgressPort& port = sw.port(port_id);
  // The queue the packet leaves, as it is behind it (RedEcnMarking's reading).
  if (port.queue_bytes(queue) <= port_ecn_[port_id.index()].kmin_bytes) return;
  const NpEcnStamp& stamp = sw.field(stamp_, p);
  if (stamp.paused_on_arrival || stamp.pause_epoch != port.pause_epoch(queue)) {
    ++spared_;
    return;
  }
  p.ecn_ce = true;
  ++counters_.local().ecn_marks;
}

}  // namespace rocelab
