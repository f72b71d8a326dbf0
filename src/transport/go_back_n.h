// Go-back-N (commodity RoCE NICs; the HPCC and ConWeave ns-3 simulators' rdma-hw.cc
// ReceiverCheckSeq): the receiver drops data above the next expected sequence and NAKs it,
// at most once per expected sequence per transport.nak_interval; the sender resends
// everything from the NAKed sequence (LossRecovery's defaults).
#pragma once

#include "transport/loss_recovery.h"

namespace rocelab {

class GoBackN final : public LossRecovery {
 public:
  bool holds_packets() const override { return false; }
  bool drops_out_of_order() const override { return true; }
  void on_out_of_order(ReceiverState& r, const Packet& p) override;
};

}  // namespace rocelab
