// The loss-recovery plug point of the RC transport (`transport.recovery`): what a receiver
// does with data above the next expected sequence, and how the sender resends after a NAK
// or a timeout. A scheme is a file pair and a line in loss_recovery.cc's registry; the
// transport keeps the parts every scheme shares (in-order delivery, cumulative ACKs, the
// timer, NAK pacing).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/registry.h"
#include "sim/time.h"
#include "transport/packet_bitmap.h"

namespace rocelab {

class RdmaTransport;

// A flow's receiver, by FlowId in the transport's flat array.
struct ReceiverState {
  uint64_t rcv_nxt = 0;
  PacketBitmap held;  // packets beyond rcv_nxt kept (LossRecovery::holds_packets)
  Time latest_sent;   // largest sent_time of the flow's packets received so far
  // NAK pacing (RdmaTransport::nak_go_back): one NAK per expected sequence per nak_interval.
  Time nak_blocked_until;
  uint64_t last_nak_seq = UINT64_MAX;
  uint32_t unacked_packets = 0;
};

class LossRecovery {
 public:
  virtual ~LossRecovery() = default;
  // Called once, before any flow is added.
  virtual void attach(RdmaTransport& transport);
  // QP f was added (no QP's id is above it yet; a later message of a QP is not added here);
  // per-flow state grows here.
  virtual void add_flow(FlowId /*f*/) {}
  virtual void reserve_flows(size_t /*n*/) {}

  // --- Receiver half ---
  // Whether the receiver keeps data above rcv_nxt in ReceiverState::held; the transport
  // then delivers the held run when the hole fills.
  virtual bool holds_packets() const = 0;
  // Whether every out-of-order packet is dropped (go-back-N: its NAKs always mean
  // reordering or loss, which ConWeave-ns3's `cnp_on_nak` reads).
  virtual bool drops_out_of_order() const { return false; }
  // Whether every in-order packet is ACKed whatever transport.ack_interval says.
  virtual bool acks_every_packet() const { return false; }
  // Whether the sender keeps no more than the receiver's out-of-order window in flight
  // (RdmaTransport::ooo_window_packets), so that nothing it sends lies beyond it.
  virtual bool caps_inflight_at_window() const { return false; }
  // Data p arrived above r.rcv_nxt (counted and, if holds_packets, the held ring already
  // brought up to rcv_nxt).
  virtual void on_out_of_order(ReceiverState& r, const Packet& p) = 0;
  // Whether a NAK answering `data` carries a CNP under DCQCN's cnp_on_nak (asked as the
  // reply leaves, r as it stands then): every NAK of a receiver that drops out-of-order data.
  virtual bool nak_flags_cnp(const ReceiverState& /*r*/, const Packet& /*data*/) const {
    return drops_out_of_order();
  }
  // Whether the reply to in-order or duplicate data is a NAK (with the data's sequence as
  // its selective ack) while r still holds packets beyond rcv_nxt, rather than an ACK.
  virtual bool naks_while_holding() const { return false; }

  // --- Sender half: defaults are go-back-N's ---
  // A NAK of flow f arrived (its cumulative ack already applied; f not finished). The
  // transport sends on after.
  virtual void on_nak(FlowId f, const Packet& nak);
  // Flow f's timer fired with data unacknowledged; the transport then tells the congestion
  // control and the path policy and sends on.
  virtual void on_timeout(FlowId f);
  // While the transport's in_recovery(f) holds: the next sequence to resend, or false when
  // no hole is left to send now (new data then goes, window permitting).
  virtual bool next_hole(FlowId /*f*/, uint64_t* /*seq*/) { return false; }
  // A hole ending at `end` left the NIC.
  virtual void on_hole_sent(FlowId /*f*/, uint64_t /*end*/) {}
  // Flow f's cumulative ack moved to snd_una.
  virtual void on_una_advanced(FlowId /*f*/, uint64_t /*snd_una*/) {}
  // An ACK of flow f arrived (its cumulative ack already applied; f not finished). Asked
  // only of a recovery that naks_while_holding, for which an ACK says that the receiver
  // holds nothing beyond it.
  virtual void on_ack(FlowId /*f*/, const Packet& /*ack*/) {}
  // Whether the sender skips packets the receiver reported holding when it sends new data
  // from snd_nxt (skip_held), rather than only in resending holes (next_hole).
  virtual bool skips_held() const { return false; }
  // Where f sends from when its snd_nxt is `seq` (at or after it, past packets its receiver
  // reported holding, as the scheme's rule allows).
  virtual uint64_t skip_held(FlowId /*f*/, uint64_t seq) { return seq; }
  // Whether the recovery sets the retransmission timer (rto) rather than transport.rto.
  virtual bool sets_rto() const { return false; }
  // The retransmission timer to arm for f now, given transport.rto.
  virtual Delta rto(FlowId /*f*/, Delta configured) const { return configured; }

 protected:
  RdmaTransport* transport_ = nullptr;
  uint64_t mtu_ = 0;  // the payload of a full packet: sequences / mtu_ number packets
};

using LossRecoveryFactory = std::function<std::unique_ptr<LossRecovery>()>;
// The schemes by name. Code outside the tree (or a test) may add one before a scenario
// names it; `transport.recovery` accepts every name registered when it is read.
Registry<LossRecoveryFactory>& loss_recovery_registry();

}  // namespace rocelab
