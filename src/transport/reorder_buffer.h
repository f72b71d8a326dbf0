// A reorder buffer at the receiver: data above the next expected sequence is kept and
// acknowledged (cumulatively) when the hole fills, so reordering is masked and costs no
// retransmission (as Proteus assumes, and MP-RDMA's receiver does within its window). Real
// loss is recovered by the timeout, go-back-N from the oldest unacknowledged byte. Data
// beyond transport.ooo_window is dropped and NAKed (go-back-N from the hole).
#pragma once

#include "transport/loss_recovery.h"

namespace rocelab {

class ReorderBuffer final : public LossRecovery {
 public:
  bool holds_packets() const override { return true; }
  void on_out_of_order(ReceiverState& r, const Packet& p) override;

 private:
};

}  // namespace rocelab
