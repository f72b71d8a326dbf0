#include "net/host_node.h"

namespace rocelab {

void Host::receive(PacketId pkt, PortId in_port) {
  if (fc_ && ctx_.pkt(pkt).type != PacketType::kData &&
      fc_->on_frame(in_port, ctx_.pkt(pkt))) {  // e.g. the ToR pauses the NIC
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
