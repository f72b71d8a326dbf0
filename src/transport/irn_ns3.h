// IRN as ConWeave-ns3 runs it (rdma-hw.cc and rdma-queue-pair.h with IrnEnable; the timers
// its network-load-balance.cc sets), for ConWeave's lossy setting (run.py --pfc 0 --irn 1).
// It differs from IRN as its paper describes it (transport/selective_repeat.h):
// - the receiver keeps out-of-order data and answers each packet beyond rcv_nxt with a NAK
//   carrying it as a selective ack, unless it holds that packet already and its last NAK
//   is younger than transport.nak_interval (ReceiverCheckSeq); while it holds packets,
//   in-order and duplicate data are answered with a NAK too, an ACK once it holds none;
// - a NAK outside a recovery episode sends the sender back to snd_una, the episode ending
//   when snd_una reaches what had been sent (snd_nxt) or at an ACK (ReceiveAck); it then
//   sends everything from there on, new data included, skipping a block the receiver
//   reported holding only when it is the lowest one listed and starts at snd_nxt, and
//   forgetting the blocks below snd_nxt then (GetBytesLeft);
// - the timer is 100 us, 320 us while more than 3 packets are in flight (GetRto); a
//   timeout sends the sender back to snd_una in an episode (HandleTimeout).
// BDP-FC is the transport's window cap (caps_inflight_at_window, transport.ooo_window; the
// simulator's IrnBdp is one value per topology: 104,000 B on its 128-host leaf-spine).
// Not modelled: ConWeave-ns3 ignores IRN timeouts when PFC is on; its sender also moves
// snd_una past a selectively acked block that starts there (ReceiveAck), which its receiver
// never reports (it merges a held block as soon as the hole before it fills).
#pragma once

#include <vector>

#include "transport/loss_recovery.h"

namespace rocelab {

class IrnNs3 final : public LossRecovery {
 public:
  // network-load-balance.cc: IrnRtoLow 100 us, IrnRtoHigh 320 us (the attributes'
  // defaults, 454 and 1,350 us, are overridden); rdma-queue-pair.h GetRto: high above
  // 3 MTUs in flight.
  static constexpr Delta kRtoLow = Delta::from_us(100);
  static constexpr Delta kRtoHigh = Delta::from_us(320);
  static constexpr uint64_t kRtoHighAbovePackets = 3;

  void add_flow(FlowId f) override { senders_.resize(f.index() + 1); }
  void reserve_flows(size_t n) override { senders_.reserve(n); }
  bool holds_packets() const override { return true; }
  bool acks_every_packet() const override { return true; }
  bool caps_inflight_at_window() const override { return true; }
  bool naks_while_holding() const override { return true; }
  bool skips_held() const override { return true; }
  bool sets_rto() const override { return true; }
  // ReceiverCheckSeq: out-of-order data sets the CNP flag of its NAK (cnp_check); in-order
  // and duplicate data do not.
  bool nak_flags_cnp(const ReceiverState& r, const Packet& data) const override {
    return data.seq > r.rcv_nxt;
  }
  void on_out_of_order(ReceiverState& r, const Packet& p) override;
  void on_nak(FlowId f, const Packet& nak) override;
  void on_ack(FlowId f, const Packet& ack) override;
  void on_timeout(FlowId f) override;
  void on_una_advanced(FlowId f, uint64_t snd_una) override;
  uint64_t skip_held(FlowId f, uint64_t seq) override;
  Delta rto(FlowId f, Delta configured) const override;

  bool in_episode(FlowId f) const { return senders_[f.index()].recovery; }

 private:
  struct Sender {
    PacketBitmap sacked;        // packets the receiver reported holding
    uint64_t recovery_seq = 0;  // the episode ends when snd_una reaches it
    bool recovery = false;
  };
  std::vector<Sender> senders_;  // by flow id
};

}  // namespace rocelab
