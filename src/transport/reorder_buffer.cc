#include "transport/reorder_buffer.h"

#include "transport/rdma_transport.h"

namespace rocelab {

void ReorderBuffer::attach(RdmaTransport& transport) {
  LossRecovery::attach(transport);
  mtu_ = transport.network().context().wire.mtu_payload_bytes;
}

void ReorderBuffer::on_out_of_order(ReceiverState& r, const Packet& p) {
  r.held.set(p.seq / mtu_);  // acknowledged when the hole fills
}

}  // namespace rocelab
