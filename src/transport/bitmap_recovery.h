// MP-RDMA's receiver (Lu et al., NSDI'18; its rules as docs/schemes/mprdma.md reads them): data
// above the next expected sequence is kept if it lies within transport.bitmap_packets of it, and
// every packet, in order or not, is ACKed with its own sequence (sack_seq) beside the cumulative
// ACK; data beyond the bitmap is dropped and NAKed (counted as bitmap_drops), and the sender goes
// back to the NAKed sequence.
#pragma once

#include "transport/loss_recovery.h"

namespace rocelab {

class BitmapRecovery final : public LossRecovery {
 public:
  void attach(RdmaTransport& transport) override;
  bool holds_packets() const override { return true; }
  bool acks_every_packet() const override { return true; }
  void on_out_of_order(ReceiverState& r, const Packet& p) override;

 private:
  uint64_t bitmap_packets_ = 0;
};

}  // namespace rocelab
