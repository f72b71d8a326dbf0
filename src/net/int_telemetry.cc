#include "net/int_telemetry.h"

namespace rocelab {

void IntStamping::on_dequeue(const SwitchView& sw, Packet& p, PortId port_id, size_t) {
  if (p.type != PacketType::kData) return;
  IntStack& stack = sw.field(stack_, p);
  if (stack.hops >= IntStack::kMaxHops) return;
  const EgressPort& port = sw.port(port_id);
  IntHop& hop = stack.hop[stack.hops++];
  hop.ts = sw.now();
  // The port counts a frame when its transmission starts, just after this hook.
  hop.tx_bytes = port.counters().tx_bytes;
  hop.rate_bps = port.rate_bps();
  hop.qlen_bytes = port.data_queue_bytes();
  hop.node = sw.id();
  hop.port = port_id;
}

}  // namespace rocelab
