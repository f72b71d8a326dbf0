#include "transport/mprdma.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "transport/rdma_transport.h"

namespace rocelab {

void describe(ParamVisitor& v, MpRdmaConfig& c) {
  v.count("delta", c.delta_packets, 1, 1u << 20,
          "Δ: an ACK this many packets behind the highest acknowledged prunes its path (32: "
          "the reimplementations)");
  v.real("probe_probability", c.probe_probability, 0, 1,
         "a packet tries a new random path with this probability, at most once per RTT (0.01)");
  v.real("initial_window", c.initial_window_bdp, 0, 100,
         "cwnd at the start in end-to-end BDPs; 0 = one packet (the authors' ns-3 code and "
         "the reimplementations; the paper's value unverified)");
  v.flag("slow_start", c.slow_start,
         "slow start: +1 packet per unmarked ACK until the first ECN echo, left on a "
         "retransmission, and a timeout goes back to the initial window in slow start (true: "
         "the first author's ns-3 code, mp-rdma-socket-impl.cc ReceivedAck, MpRDMAreTx, "
         "MacroTimeout); false: +1/cwnd from the start and a timeout halves cwnd (the "
         "reimplementations)");
}

std::unique_ptr<HostPathPolicy> MpRdmaPathConfig::build() const {
  return std::make_unique<MpRdmaPath>(cfg);
}

void MpRdmaPath::attach(RdmaTransport& transport) {
  HostPathPolicy::attach(transport);
  if (transport.config().recovery != "bitmap")
    throw std::invalid_argument(
        "transport.path_policy: mprdma needs transport.recovery: bitmap (MP-RDMA's receiver)");
  streams_.init(transport, "mprdma");
  mtu_ = transport.network().context().wire.mtu_payload_bytes;
}

void MpRdmaPath::set_lanes(uint32_t partitions) {
  if (flows_.size() < transport_->qp_count()) flows_.resize(transport_->qp_count());
  counters_.set_lanes(partitions, {});
}

void MpRdmaPath::fold_lanes() {
  counters_.fold(
      [](Counters& into, const Counters& from) {
        into.vps_pruned += from.vps_pruned;
        into.probes += from.probes;
        into.ecn_echoes += from.ecn_echoes;
        into.max_inflate = std::max(into.max_inflate, from.max_inflate);
        into.max_ack_opening = std::max(into.max_ack_opening, from.max_ack_opening);
        into.acks_over_burst_limit += from.acks_over_burst_limit;
        into.recovery_openings_over_limit += from.recovery_openings_over_limit;
        into.acks += from.acks;
        into.cwnd_millipackets_sum += from.cwnd_millipackets_sum;
        into.inflight_packets_sum += from.inflight_packets_sum;
      },
      {});
}

// Source ports from the range RoCE NICs use for entropy, drawn from the sender's stream.
uint16_t MpRdmaPath::random_vp(NodeId host) {
  return static_cast<uint16_t>(49152 + streams_.of(host).below(16384));
}

// The window the transport enforces on bytes in flight: cwnd plus the packets acknowledged
// out of order (they left the network but are still above snd_una), in whole packets. The
// authors' ns-3 code (mp-rdma-socket-impl.cc, MpRDMASend) sends a segment only while in
// flight + one segment <= cwnd + inflation, so a window of 2.5 packets admits 2, not 3; the
// transport sends while in flight < window, hence the floor. The epsilon keeps a sum of
// 1/cwnd steps that falls a rounding error short of a whole number from losing the packet.
void MpRdmaPath::update_window(FlowId f, FlowState& fs) {
  const double packets =
      std::floor(std::max(1.0, fs.cwnd) + static_cast<double>(fs.inflate) + 1e-9);
  // At least one packet (a window of 0 means none to the transport), as the authors' code
  // sends on an empty pipe whatever cwnd + inflation says.
  transport_->set_window(f, static_cast<uint64_t>(std::max(1.0, packets)) * mtu_);
}

void MpRdmaPath::on_send(FlowId f, Packet& p) {
  if (flows_.size() <= f.index()) flows_.resize(f.index() + 1);
  FlowState& fs = flows_[f.index()];
  const Time now = transport_->sim().now();
  if (!fs.started) {
    fs.started = true;
    const double bdp = static_cast<double>(transport_->bdp_bytes(f)) / static_cast<double>(mtu_);
    fs.initial_cwnd = std::max(1.0, cfg_.initial_window_bdp * bdp);
    fs.cwnd = fs.initial_cwnd;
    fs.slow_start = cfg_.slow_start;
    fs.fresh_paths = true;
    fs.next_probe = now;
    update_window(f, fs);
  }
  uint16_t vp;
  if (fs.ring_size > 0) {  // ACK clocking: the path of an ACK just returned
    vp = fs.ring[fs.ring_head];
    fs.ring_head = static_cast<uint8_t>((fs.ring_head + 1) % kVpRing);
    --fs.ring_size;
    if (now >= fs.next_probe && streams_.of(p.src).uniform() < cfg_.probe_probability) {
      vp = random_vp(p.src);
      fs.next_probe = now + transport_->base_rtt(f);
      ++counters_.local().probes;
    }
  } else if (fs.fresh_paths) {
    vp = random_vp(p.src);  // the initial window: each packet on a new path
  } else {
    vp = fs.last_vp;  // window opened without a returning ACK: stay
  }
  fs.last_vp = vp;
  fs.max_sent = std::max(fs.max_sent, p.seq + p.payload_bytes);
  p.sport = vp;
  p.flow_hash = roce_flow_hash(p.src, p.dst, vp);
}

void MpRdmaPath::on_feedback(FlowId f, const Packet& p) {
  if (f.index() >= flows_.size() || !flows_[f.index()].started) return;
  if (p.type != PacketType::kAck && p.type != PacketType::kNak) return;
  FlowState& fs = flows_[f.index()];
  const uint64_t window_before = transport_->window_bytes(f);
  const uint64_t in_flight_before = transport_->inflight_bytes(f);
  const bool in_recovery = p.type == PacketType::kNak || fs.acked < fs.recovery_point;
  if (p.type == PacketType::kNak)
    on_nak(fs, p);
  else
    on_ack(fs, p);
  update_window(f, fs);
  count_opening(f, p, window_before, in_flight_before, in_recovery);
  if (p.type == PacketType::kAck) {  // the window each ACK leaves against what was in flight
    Counters& c = counters_.local();
    ++c.acks;
    c.cwnd_millipackets_sum += static_cast<uint64_t>(std::llround(fs.cwnd * 1000));
    c.inflight_packets_sum += in_flight_before / mtu_;
  }
}

void MpRdmaPath::on_nak(FlowState& fs, const Packet& p) {
  // The sender goes back to the NAKed packet: what it resends up to here answers as
  // retransmissions, which Δ does not judge and the inflation does not count.
  fs.acked = std::max(fs.acked, p.seq);
  fs.recovery_point = fs.max_sent;
  fs.inflate = 0;
  // The go-back-N resend starts now, and the authors' code leaves slow start when it
  // resends (MpRDMAreTx sets the sender to congestion avoidance).
  fs.slow_start = false;
}

void MpRdmaPath::on_ack(FlowState& fs, const Packet& p) {
  fs.fresh_paths = false;  // from now on each packet takes the path of a returning ACK
  // Window inflation, as the authors' ReceivedAck keeps it: +1 for every ACK of a packet
  // sent since the last NAK or timeout (at or above recovery_point), -1 for every such
  // packet the cumulative ACK moves past. Summed over the ACKs it is the number of those
  // packets acknowledged above the cumulative ACK, whatever order the ACKs come back in:
  // they return over many paths, so a cumulative ACK can overtake the ACK of a packet it
  // covers, and the sum dips below 0 until that ACK arrives. (Counting +1 only for an ACK
  // above its own cumulative ACK and n - 1 for a jump over n, as before, is the same for
  // ACKs in order, but kept up to n packets too many after an ACK above a hole that also
  // moved the cumulative ACK, and one ACK then let out up to 40 packets in Fig. 17.) The
  // authors stop subtracting during recovery altogether; here only packets resent or sent
  // before the NAK are left out, as their ACKs are (go-back-N resends at line rate, so new
  // packets are acknowledged within the recovery).
  const uint64_t base = std::max(fs.acked, fs.recovery_point);
  const uint64_t passed = p.seq > base ? (p.seq - base + mtu_ - 1) / mtu_ : 0;
  const uint64_t sacked = transport_->sack_seq(p);
  const bool fresh = sacked >= fs.recovery_point;
  const bool retires = p.seq > fs.acked;
  const bool out_of_order = sacked >= p.seq && sacked > 0;
  fs.acked = std::max(fs.acked, p.seq);
  fs.inflate += (fresh ? 1 : 0) - static_cast<int64_t>(passed);
  uint64_t& max_inflate = counters_.local().max_inflate;
  max_inflate = std::max<uint64_t>(max_inflate, std::max<int64_t>(0, fs.inflate));
  // The receiver holds at most L packets above the cumulative ACK: a guard against drift,
  // not a rule (the authors' code has none).
  const int64_t bitmap = transport_->config().bitmap_packets;
  fs.inflate = std::clamp<int64_t>(fs.inflate, -bitmap, bitmap);
  // The ACK of a packet sent before the last NAK or timeout that retires nothing (a
  // resend the receiver already had) does not widen the window either (it did: each
  // bitmap overflow fed the next).
  if (!fresh && !retires && !out_of_order) return;
  // Congestion window, per ACK (the authors' ReceivedAck; both reimplementations agree on
  // the congestion-avoidance rules): an ECN echo takes half a packet, and the first one
  // ends slow start; an unmarked ACK adds a packet in slow start, 1/cwnd after it.
  if (p.ecn_ce) {
    fs.cwnd = std::max(1.0, fs.cwnd - 0.5);
    fs.slow_start = false;
    ++counters_.local().ecn_echoes;
  } else if (fs.slow_start) {
    fs.cwnd += 1;
  } else {
    fs.cwnd += 1.0 / fs.cwnd;
  }
  // Out-of-order aware path selection: an ACK of a packet more than Δ behind the highest
  // acknowledged one came over a slow path: shrink the window by one, do not reuse it.
  const bool retransmission = sacked < fs.recovery_point;
  const uint64_t delta_bytes = static_cast<uint64_t>(cfg_.delta_packets) * mtu_;
  if (!retransmission && sacked + delta_bytes < fs.highest_sacked) {
    fs.cwnd = std::max(1.0, fs.cwnd - 1);
    ++counters_.local().vps_pruned;
  } else if (fs.ring_size < kVpRing) {
    fs.ring[(fs.ring_head + fs.ring_size) % kVpRing] = p.sport;  // the data's VP, echoed
    ++fs.ring_size;
  }
  fs.highest_sacked = std::max(fs.highest_sacked, sacked);
}

// The authors' MpRDMASend sends at most 2 new packets per returning ACK (burst_control_max;
// no limit in its initial state), leaving the rest of the window to the next ACK. Here the
// NIC sends whatever the window admits, so this counts the whole packets one ACK or NAK
// lets out: the window's growth plus the bytes in flight it retires. The transport moves
// snd_una to the cumulative ACK after this hook, and a NAK also rewinds snd_nxt to it
// (go-back-N: nothing counts as in flight). Outside loss recovery an ACK can never let out
// more than 2: the inflation takes back every packet the cumulative ACK passes, which is
// what in flight loses, and adds 1; cwnd grows by at most one packet (+1 in slow start,
// 1/cwnd after), so the whole-packet window by at most one more. Only the guards (the
// inflation's +-L, a window of at least one packet) could break this. In recovery the
// go-back-N resend and the packets sent before the NAK, which the inflation leaves out,
// let out many at once, where the authors' code resends one packet per ACK (MpRDMAreTx).
void MpRdmaPath::count_opening(FlowId f, const Packet& p, uint64_t window_before,
                               uint64_t in_flight_before, bool in_recovery) {
  const uint64_t snd_nxt = transport_->snd_nxt(f);
  const uint64_t una_after = std::max(snd_nxt - in_flight_before, p.seq);
  const uint64_t in_flight_after =
      p.type == PacketType::kNak || una_after >= snd_nxt ? 0 : snd_nxt - una_after;
  const int64_t opened_bytes =
      static_cast<int64_t>(transport_->window_bytes(f)) - static_cast<int64_t>(window_before) +
      static_cast<int64_t>(in_flight_before) - static_cast<int64_t>(in_flight_after);
  if (opened_bytes <= 0) return;
  const uint64_t opened = (static_cast<uint64_t>(opened_bytes) + mtu_ - 1) / mtu_;
  Counters& counters = counters_.local();
  if (!in_recovery) counters.max_ack_opening = std::max(counters.max_ack_opening, opened);
  if (opened > kBurstLimitPackets)
    ++(in_recovery ? counters.recovery_openings_over_limit : counters.acks_over_burst_limit);
}

void MpRdmaPath::on_timeout(FlowId f) {
  if (f.index() >= flows_.size()) return;
  FlowState& fs = flows_[f.index()];
  if (cfg_.slow_start) {
    // The authors' MacroTimeout returns the sender to its initial state: the initial window,
    // sent on new paths, and slow start from the next ACK.
    fs.cwnd = fs.initial_cwnd;
    fs.slow_start = true;
    fs.fresh_paths = true;
    fs.ring_size = 0;
  } else {
    fs.cwnd = std::max(1.0, fs.cwnd / 2);  // the reimplementations (htsim mprdma.cpp)
  }
  fs.recovery_point = fs.max_sent;
  fs.inflate = 0;
  update_window(f, fs);
}

void MpRdmaPath::on_finish(FlowId f) {
  if (f.index() < flows_.size()) flows_[f.index()] = FlowState{};
}

void MpRdmaPath::add_stats(std::vector<SchemeStat>& out) const {
  out.push_back({"mprdma_paths_pruned", static_cast<double>(counters_.merged().vps_pruned)});
  out.push_back({"mprdma_probes", static_cast<double>(counters_.merged().probes)});
  out.push_back({"mprdma_ecn_echoes", static_cast<double>(counters_.merged().ecn_echoes)});
  out.push_back(
      {"mprdma_max_inflation", static_cast<double>(counters_.merged().max_inflate), true});
  out.push_back(
      {"mprdma_max_ack_opening", static_cast<double>(counters_.merged().max_ack_opening), true});
  out.push_back({"mprdma_acks_over_burst_limit",
                 static_cast<double>(counters_.merged().acks_over_burst_limit)});
  out.push_back({"mprdma_recovery_openings_over_burst_limit",
                 static_cast<double>(counters_.merged().recovery_openings_over_limit)});
  const Counters& c = counters_.merged();
  const double acks = static_cast<double>(std::max<uint64_t>(1, c.acks));
  out.push_back({"mprdma_mean_cwnd_packets",
                 static_cast<double>(c.cwnd_millipackets_sum) / 1000 / acks, true});
  out.push_back(
      {"mprdma_mean_inflight_packets", static_cast<double>(c.inflight_packets_sum) / acks, true});
}

}  // namespace rocelab
