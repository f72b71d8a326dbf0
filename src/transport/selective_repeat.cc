#include "transport/selective_repeat.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

void SelectiveRepeat::add_flow(FlowId f) {
  senders_.resize(f.index() + 1);
}

// IRN §3.1: keep it, and NAK with the cumulative ack and this packet's sequence. Beyond
// the receiver's bitmap (§3.3: one BDP) it is dropped, and the NAK reports no packet held:
// the sender resends it as a hole once a later one is selectively acked, or at the timer.
void SelectiveRepeat::on_out_of_order(ReceiverState& r, const Packet& p) {
  if (transport_->beyond_ooo_window(r, p)) [[unlikely]] {
    ++transport_->mutable_counters().ooo_window_drops;
    transport_->send_nak(p, r.rcv_nxt, kNoSack);
    return;
  }
  r.held.set(p.seq / mtu_);
  transport_->send_nak(p, r.rcv_nxt, p.seq);
}

void SelectiveRepeat::on_nak(FlowId f, const Packet& nak) {
  Sender& s = senders_[f.index()];
  if (nak.cnp_flag) transport_->cc().on_cnp(f, nak);
  const uint64_t size = transport_->flow_size(f);
  const uint64_t sack = transport_->sack_seq(nak);
  if (sack >= transport_->snd_una(f) && sack < size) {
    s.sacked.set(sack / mtu_);
    s.sack_high = std::max(s.sack_high, std::min(sack + mtu_, size));
  }
  if (!transport_->in_recovery(f)) {  // IRN §3.2: one episode up to what was sent so far
    s.recovery_point = transport_->high_sent(f);
    s.rtx_next = transport_->snd_una(f);
    transport_->set_in_recovery(f, true);
    transport_->cc().on_nak(f, nak);
  }
}

// Everything sent and not selectively acked is presumed lost.
void SelectiveRepeat::on_timeout(FlowId f) {
  Sender& s = senders_[f.index()];
  s.recovery_point = transport_->high_sent(f);
  s.sack_high = transport_->high_sent(f);
  s.rtx_next = transport_->snd_una(f);
  transport_->set_in_recovery(f, true);
}

// IRN §3.2: holes below the highest sacked packet go first.
bool SelectiveRepeat::next_hole(FlowId f, uint64_t* seq) {
  Sender& s = senders_[f.index()];
  uint64_t q = std::max(s.rtx_next, transport_->snd_una(f));
  while (q < s.sack_high && s.sacked.test(q / mtu_)) q += mtu_;
  s.rtx_next = q;
  if (q >= s.sack_high) return false;
  *seq = q;
  return true;
}

void SelectiveRepeat::on_una_advanced(FlowId f, uint64_t snd_una) {
  Sender& s = senders_[f.index()];
  s.sacked.advance_to(snd_una / mtu_);
  if (transport_->in_recovery(f) && snd_una >= s.recovery_point)
    transport_->set_in_recovery(f, false);
}

}  // namespace rocelab
