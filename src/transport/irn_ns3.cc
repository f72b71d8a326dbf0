#include "transport/irn_ns3.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

// rdma-hw.cc ReceiverCheckSeq, seq > expected: a packet held already is NAKed again only
// once the last NAK is nak_interval old; any other is held and NAKed.
void IrnNs3::on_out_of_order(ReceiverState& r, const Packet& p) {
  if (transport_->beyond_ooo_window(r, p)) [[unlikely]] {
    ++transport_->mutable_counters().ooo_window_drops;
    return;  // BDP-FC keeps the sender within the window: a packet beyond it is lost
  }
  const Time now = transport_->sim().now();
  const uint64_t pkt = p.seq / mtu_;
  if (r.held.test(pkt) && now < r.nak_blocked_until) return;
  r.nak_blocked_until = now + transport_->config().nak_interval;
  r.held.set(pkt);
  transport_->send_nak(p, r.rcv_nxt, p.seq);
}

// rdma-hw.cc ReceiveAck with IRN: the selective ack marks its packet; outside an episode
// the NAK starts one from snd_una up to what was sent (RecoverQueue); the CNP flag after.
void IrnNs3::on_nak(FlowId f, const Packet& nak) {
  Sender& s = senders_[f.index()];
  const uint64_t sack = transport_->sack_seq(nak);
  if (sack >= transport_->snd_una(f) && sack < transport_->flow_size(f)) s.sacked.set(sack / mtu_);
  if (!s.recovery) {
    s.recovery_seq = transport_->snd_nxt(f);
    transport_->go_back_to(f, transport_->snd_una(f));
    s.recovery = true;
  }
  if (nak.cnp_flag) transport_->cc().on_cnp(f, nak);
}

// A reply without a selective ack: the receiver holds nothing beyond it.
void IrnNs3::on_ack(FlowId f, const Packet&) {
  senders_[f.index()].recovery = false;
}

// rdma-hw.cc HandleTimeout: an episode from snd_una (its end point stays as it was).
void IrnNs3::on_timeout(FlowId f) {
  senders_[f.index()].recovery = true;
  transport_->go_back_to(f, transport_->snd_una(f));
}

void IrnNs3::on_una_advanced(FlowId f, uint64_t snd_una) {
  Sender& s = senders_[f.index()];
  s.sacked.advance_to(snd_una / mtu_);
  if (s.recovery && snd_una >= s.recovery_seq) s.recovery = false;
}

// rdma-queue-pair.cc GetBytesLeft: the lowest selectively acked block (the SACK list's
// front) is skipped whole when it starts at snd_nxt, and the list forgets what lies below
// snd_nxt then (discardUpTo); a block higher up is not looked at, so a packet it holds is
// sent again while a lower block is still listed.
uint64_t IrnNs3::skip_held(FlowId f, uint64_t seq) {
  PacketBitmap& sacked = senders_[f.index()].sacked;
  uint64_t pkt = seq / mtu_;
  if (!sacked.test(pkt)) return seq;
  for (uint64_t p = sacked.base(); p < pkt; ++p)
    if (sacked.test(p)) return seq;  // a lower block is the front
  while (sacked.test(pkt)) sacked.clear(pkt++);
  return pkt * mtu_;
}

// rdma-queue-pair.h GetRto: the bytes from the highest cumulative ack to the start of the
// highest packet sent (irn.m_max_seq), against 3 MTUs. snd_nxt counts: a packet being sent
// has moved it before high_sent follows.
Delta IrnNs3::rto(FlowId f, Delta) const {
  const uint64_t highest = std::max(transport_->high_sent(f), transport_->snd_nxt(f));
  const uint64_t last_start = highest == 0 ? 0 : (highest - 1) / mtu_ * mtu_;
  const uint64_t una = transport_->snd_una(f);
  const uint64_t in_flight = last_start > una ? last_start - una : 0;
  return in_flight > kRtoHighAbovePackets * mtu_ ? kRtoHigh : kRtoLow;
}

}  // namespace rocelab
