// DCQCN's notification point, the receiver half of DCQCN (Zhu et al., SIGCOMM'15 §3.1): a
// data packet arriving ECN-marked makes the receiving NIC send its sender a CNP, at most
// one per flow per cnp_interval (50 us), or, as the ns-3 forks do it
// (transport.cnp_delivery: ack_flag), sets a CNP flag on the ACK/NAK the packet triggers.
// Both DCQCN models (dcqcn, ns3_mlx) derive from DcqcnReceiverHalf; without DCQCN no CNP is
// ever sent. The NIC settings it reads are the transport's `cnp_*` parameters.
#pragma once

#include <vector>

#include "transport/congestion_control.h"
#include "transport/rdma_transport.h"

namespace rocelab {

// The receiver half both DCQCN reaction-point models share.
class DcqcnReceiverHalf : public CongestionControl {
 public:
  void on_data_received(FlowId f, const Packet& data) override {
    RdmaTransport& t = *transport_;
    const TransportConfig& cfg = t.config();
    if (!data.ecn_ce || cfg.cnp_delivery != CnpDelivery::kFrame) return;
    if (last_cnp_.size() <= f.index()) last_cnp_.resize(t.flow_count(), Time::never());
    Time& last = last_cnp_[f.index()];
    const Time now = t.sim().now();
    if (last != Time::never() && cfg.cnp_interval != Delta::zero() && now - last < cfg.cnp_interval)
      return;
    last = now;
    t.send_cnp(data);
  }

  // CnpDelivery::kAckFlag: the ACK/NAK a marked packet triggers carries the CNP (a marked
  // packet that triggers none notifies nobody); with cnp_on_nak every go-back-N NAK does.
  bool flag_cnp_on_reply(FlowId, const Packet& data, PacketType reply) override {
    const TransportConfig& cfg = transport_->config();
    if (cfg.cnp_delivery != CnpDelivery::kAckFlag) return false;
    if (reply == PacketType::kAck) return data.ecn_ce;
    if (reply != PacketType::kNak) return false;
    return data.ecn_ce || (cfg.cnp_on_nak && transport_->recovery().drops_out_of_order());
  }

 protected:
  // Sized with the flows, so that the first marked packet of a run allocates nothing.
  void reserve_receiver(size_t n) { last_cnp_.reserve(n); }

 private:
  std::vector<Time> last_cnp_;  // by flow id
};

}  // namespace rocelab
