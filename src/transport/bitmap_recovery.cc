#include "transport/bitmap_recovery.h"

#include "transport/rdma_transport.h"

namespace rocelab {

void BitmapRecovery::attach(RdmaTransport& transport) {
  LossRecovery::attach(transport);
  bitmap_packets_ = transport.config().bitmap_packets;
}

void BitmapRecovery::on_out_of_order(ReceiverState& r, const Packet& p) {
  if (p.seq / mtu_ >= r.rcv_nxt / mtu_ + bitmap_packets_) {  // beyond the bitmap
    ++transport_->mutable_counters().bitmap_drops;
    transport_->nak_go_back(r, p);
    return;
  }
  r.held.set(p.seq / mtu_);
  transport_->send_ack(p, r.rcv_nxt, p.seq);
}

}  // namespace rocelab
