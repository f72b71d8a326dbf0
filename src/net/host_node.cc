#include "net/host_node.h"

namespace rocelab {

void Host::receive(PacketId pkt, PortId in_port) {
  Packet& p = ctx_.pkt(pkt);
  if (p.type == PacketType::kPause) {
    // The ToR pauses this NIC's class; the NIC stops at the next packet boundary.
    ports_[in_port.index()]->set_priority_paused(p.pfc_priority, p.pfc_xoff);
    ctx_.free_packet(pkt);
    return;
  }
  if (agent_) {
    agent_->on_host_receive(id_, pkt);
  } else {
    ctx_.free_packet(pkt);
  }
}

}  // namespace rocelab
