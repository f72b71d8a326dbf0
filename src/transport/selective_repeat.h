// Selective repeat as IRN does it (Mittal et al., SIGCOMM'18 §3.1-3.2): the receiver keeps
// data above the next expected sequence and NAKs with the cumulative ack and that packet's
// sequence; the sender marks it selectively acked and, once per recovery episode (until
// the cumulative ack passes what was sent when the episode began), resends the holes below
// the highest selectively acked packet before any new data. A timeout presumes everything
// sent and not selectively acked lost. The sender keeps at most the receiver's window (one
// BDP by default) in flight (§3.3, BDP-FC), so the receiver's bitmap never overflows; a
// packet beyond it (a smaller transport.ooo_window than what was sent) is dropped.
#pragma once

#include <vector>

#include "transport/loss_recovery.h"

namespace rocelab {

class SelectiveRepeat final : public LossRecovery {
 public:
  void add_flow(FlowId f) override;
  void reserve_flows(size_t n) override { senders_.reserve(n); }
  bool holds_packets() const override { return true; }
  // IRN §3.3 BDP-FC: at most the receiver's bitmap in flight.
  bool caps_inflight_at_window() const override { return true; }
  void on_out_of_order(ReceiverState& r, const Packet& p) override;
  void on_nak(FlowId f, const Packet& nak) override;
  void on_timeout(FlowId f) override;
  bool next_hole(FlowId f, uint64_t* seq) override;
  void on_hole_sent(FlowId f, uint64_t end) override { senders_[f.index()].rtx_next = end; }
  void on_una_advanced(FlowId f, uint64_t snd_una) override;

 private:
  // A sender's recovery: the packets the receiver reported holding, and the current
  // episode: resend the unsacked packets in [rtx_next, sack_high) once, until the
  // cumulative ack passes recovery_point.
  struct Sender {
    PacketBitmap sacked;
    uint64_t sack_high = 0;
    uint64_t rtx_next = 0;
    uint64_t recovery_point = 0;
  };
  std::vector<Sender> senders_;  // by flow id
  // A NAK's selective ack when the receiver dropped the packet (beyond its window): above
  // any flow's end, so no packet is marked.
  static constexpr uint64_t kNoSack = UINT64_MAX;
};

}  // namespace rocelab
