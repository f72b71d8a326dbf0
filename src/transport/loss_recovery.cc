#include "transport/loss_recovery.h"

#include "transport/bitmap_recovery.h"
#include "transport/go_back_n.h"
#include "transport/irn_ns3.h"
#include "transport/rdma_transport.h"
#include "transport/reorder_buffer.h"
#include "transport/selective_repeat.h"

namespace rocelab {

void LossRecovery::attach(RdmaTransport& transport) {
  transport_ = &transport;
  mtu_ = transport.network().context().wire.mtu_payload_bytes;
}

// Go-back-N from the NAKed sequence (commodity RoCE NICs; the ns-3 forks' rdma-hw.cc).
void LossRecovery::on_nak(FlowId f, const Packet& nak) {
  transport_->go_back_to(f, nak.seq);
  transport_->cc().on_nak(f, nak);
  if (nak.cnp_flag) transport_->cc().on_cnp(f, nak);
}

// Back to the oldest unacknowledged byte.
void LossRecovery::on_timeout(FlowId f) {
  transport_->go_back_to(f, transport_->snd_una(f));
}

Registry<LossRecoveryFactory>& loss_recovery_registry() {
  static Registry<LossRecoveryFactory> registry = [] {
    Registry<LossRecoveryFactory> r;
    r.add("go_back_n",
          "drop out-of-order data and NAK; the sender resends everything from there "
          "(commodity RoCE NICs, the HPCC/ConWeave ns-3 simulators; default)",
          [] { return std::make_unique<GoBackN>(); });
    r.add("selective_repeat",
          "keep out-of-order data and NAK with a selective ack; the sender resends the holes "
          "once per recovery episode (IRN, SIGCOMM'18 §3.1-3.2)",
          [] { return std::make_unique<SelectiveRepeat>(); });
    r.add("irn_ns3",
          "IRN as the ConWeave ns-3 simulator runs it (its lossy setting, --pfc 0 --irn 1): "
          "selective acks, a NAK sends the sender back over everything not reported held, "
          "timers of 100 and 320 us",
          [] { return std::make_unique<IrnNs3>(); });
    r.add("reorder_buffer",
          "keep out-of-order data, cumulative ACKs only; loss is recovered by the timeout "
          "(as Proteus assumes)",
          [] { return std::make_unique<ReorderBuffer>(); });
    r.add("bitmap",
          "MP-RDMA's receiver (NSDI'18): keep data within transport.bitmap_packets and ACK "
          "every packet; drop and NAK beyond",
          [] { return std::make_unique<BitmapRecovery>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
