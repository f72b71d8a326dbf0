#include "transport/reorder_buffer.h"

#include "transport/rdma_transport.h"

namespace rocelab {

void ReorderBuffer::on_out_of_order(ReceiverState& r, const Packet& p) {
  // Beyond the window (transport.ooo_window): dropped and NAKed, and the sender goes back
  // to the hole, as a NIC without room for it would.
  if (transport_->beyond_ooo_window(r, p)) [[unlikely]] {
    ++transport_->mutable_counters().ooo_window_drops;
    transport_->nak_go_back(r, p);
    return;
  }
  r.held.set(p.seq / mtu_);  // acknowledged when the hole fills
}

}  // namespace rocelab
