// DCQCN's notification point, the receiver half of DCQCN (Zhu et al., SIGCOMM'15 §3.1): a
// data packet arriving ECN-marked makes the receiving NIC send its sender a CNP, at most
// one per flow per cnp_interval (50 us), or, as the ns-3 forks do it (cnp_delivery:
// ack_flag), sets a CNP flag on the ACK/NAK the packet triggers. Both DCQCN models
// (dcqcn, ns3_mlx) derive from DcqcnReceiverHalf; without DCQCN no CNP is ever sent. Its
// rules are DCQCN's keys (cc.cnp_interval, cc.cnp_delivery, cc.cnp_on_nak).
#pragma once

#include <string>
#include <vector>

#include "transport/congestion_control.h"
#include "transport/rdma_transport.h"

namespace rocelab {

// How the notification point tells the sender of ECN-marked data.
enum class CnpDelivery : uint8_t {
  // A CNP frame of its own, at most one per flow per cnp_interval (RoCEv2; DCQCN paper
  // §3.2).
  kFrame,
  // A flag on the ACK/NAK the marked packet triggers, no frame of its own (the HPCC and
  // ConWeave ns-3 simulators: rdma-hw.cc ReceiveUdp, qbbHeader::SetCnp). A marked packet
  // that triggers no ACK/NAK notifies nobody.
  kAckFlag,
};
inline const std::string kCnpDeliveries[] = {"frame", "ack_flag"};

struct DcqcnNpConfig {
  // At most one CNP per flow per interval (DCQCN paper §3.2: N = 50 us). 0 = a CNP for
  // every marked packet, as the ns-3 reference simulators do.
  Delta cnp_interval = Delta::from_us(50);
  CnpDelivery cnp_delivery = CnpDelivery::kFrame;
  // A go-back-N NAK also carries a CNP, marked data or not (ConWeave ns-3 rdma-hw.cc
  // ReceiverCheckSeq: "out-of-order should accompany with CNP"); needs ack_flag.
  bool cnp_on_nak = false;
};

// The receiver half both DCQCN reaction-point models share.
class DcqcnReceiverHalf : public CongestionControl {
 public:
  explicit DcqcnReceiverHalf(const DcqcnNpConfig& np) : np_(np) {}

  void on_data_received(FlowId f, const Packet& data) override {
    RdmaTransport& t = *transport_;
    const DcqcnNpConfig& cfg = np_;
    if (!data.ecn_ce || cfg.cnp_delivery != CnpDelivery::kFrame) return;
    if (last_cnp_.size() <= f.index()) last_cnp_.resize(t.qp_count(), Time::never());
    Time& last = last_cnp_[f.index()];
    const Time now = t.sim().now();
    if (last != Time::never() && cfg.cnp_interval != Delta::zero() && now - last < cfg.cnp_interval)
      return;
    last = now;
    t.send_cnp(data);
  }

  // CnpDelivery::kAckFlag: the ACK/NAK a marked packet triggers carries the CNP (a marked
  // packet that triggers none notifies nobody); with cnp_on_nak a NAK the recovery says
  // signals reordering or loss does (every go-back-N NAK).
  bool flag_cnp_on_reply(FlowId, const Packet& data, PacketType reply) override {
    const DcqcnNpConfig& cfg = np_;
    if (cfg.cnp_delivery != CnpDelivery::kAckFlag) return false;
    if (reply == PacketType::kAck) return data.ecn_ce;
    if (reply != PacketType::kNak) return false;
    return data.ecn_ce || (cfg.cnp_on_nak && transport_->recovery().nak_flags_cnp(
                                                 transport_->receiver_state(data.flow), data));
  }

 protected:
  // Sized with the flows, so that the first marked packet of a run allocates nothing.
  void reserve_receiver(size_t n) {
    if (last_cnp_.size() < n) last_cnp_.resize(n, Time::never());
  }

 private:
  DcqcnNpConfig np_;
  std::vector<Time> last_cnp_;  // by flow id
};

}  // namespace rocelab
