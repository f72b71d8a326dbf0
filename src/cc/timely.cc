#include "cc/timely.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

void TimelySchemeConfig::describe(ParamVisitor& v) {
  v.choice("model", cfg.model, kTimelyModels,
           "paper: once per completion of segment_bytes (TIMELY §3.1, Alg. 1); ns3: once per "
           "RTT as HPCC-ns3's CC_MODE 7");
  v.rate("rate_ai", cfg.rate_ai_bps, 0, gbps(10000),
         "delta, the additive step (0: line rate / 1000, 10 Mb/s at 10 Gb/s as in §6)");
  v.rate("rate_hai", cfg.rate_hai_bps, 0, gbps(10000),
         "the hyperactive step (0: 5 x delta, N = 5 in Alg. 1)");
  v.real("beta", cfg.beta, 0, 1, "multiplicative-decrease factor (0.8, §6)");
  v.duration("t_low", cfg.t_low, Delta::zero(), Delta::max(), "below: additive increase (50 us)");
  v.duration("t_high", cfg.t_high, Delta::zero(), Delta::max(), "above: decrease (500 us)");
  v.count64("segment_bytes", cfg.segment_bytes, 1, uint64_t{1} << 40,
            "paper: data per completion event, one update each (16 KB, §6)");
  v.real("alpha", cfg.alpha, 0, 1, "EWMA weight of the newest RTT difference (0.875)");
  v.duration("min_rtt", cfg.min_rtt, Delta::from_ps(1), Delta::max(),
             "normaliser of the gradient (20 us)");
  v.count("hai_threshold", cfg.hai_threshold, 1, 1000,
          "updates in a row before the hyperactive step (5)");
  v.rate("min_rate", cfg.min_rate_bps, 1, gbps(10000), "rate floor (100 Mb/s)");
  v.count("timestamp_header_bytes", cfg.timestamp_header_bytes, 0, 1000,
          "bytes a send timestamp adds to each data packet (0; HPCC-ns3: 8)");
  describe_window_cap(v);
  v.require(cfg.t_low <= cfg.t_high, "t_low", "must not exceed t_high");
}

std::unique_ptr<CongestionControl> TimelySchemeConfig::build() const {
  return with_window_cap(std::make_unique<Timely>(cfg));
}

CcFabricNeeds Timely::fabric_needs() const {
  CcFabricNeeds n;
  n.data_header_bytes = cfg_.timestamp_header_bytes;
  return n;
}

void Timely::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s = State{};
  s.rate = transport_->line_rate_bps(f);  // RDMA flows start at line rate
  s.next_update_seq = ns3_ ? 0 : cfg_.segment_bytes;
}

void Timely::on_ack(FlowId f, const AckEvent& ack) {
  State& s = state_[f.index()];
  Delta rtt = ack.rtt;
  if (ns3_) {
    // UpdateRateTimely runs when the ACK passes the data in flight at the previous update;
    // the first one only records the RTT.
    if (ack.snd_una <= s.next_update_seq && s.have_rtt) return;
    const uint64_t sent = transport_->snd_nxt(f);
    if (s.have_rtt) update(f, rtt);
    if (sent > s.next_update_seq || !s.have_rtt) {
      s.next_update_seq = std::max(s.next_update_seq, sent);
      s.prev_rtt = rtt;
      s.have_rtt = true;
    }
    return;
  }
  // §3.1: one completion event per segment; its RTT leaves out the serialization of the
  // packet on the NIC (the paper subtracts the segment's, measured from its first byte).
  if (ack.snd_una < s.next_update_seq && ack.snd_una < transport_->flow_size(f)) return;
  while (s.next_update_seq <= ack.snd_una) s.next_update_seq += cfg_.segment_bytes;
  RdmaTransport& t = *transport_;
  rtt -= serialization_delay(t.network().context().wire.mtu_wire_bytes(), t.line_rate_bps(f));
  if (s.have_rtt) update(f, rtt);
  s.prev_rtt = rtt;
  s.have_rtt = true;
}

// Algorithm 1.
void Timely::update(FlowId f, Delta rtt) {
  State& s = state_[f.index()];
  const BitsPerSec line = transport_->line_rate_bps(f);
  const BitsPerSec delta = cfg_.rate_ai_bps > 0 ? cfg_.rate_ai_bps : line / 1000;
  const BitsPerSec hai = cfg_.rate_hai_bps > 0 ? cfg_.rate_hai_bps : 5 * delta;
  const double new_diff = static_cast<double>((rtt - s.prev_rtt).ps);
  const double rtt_diff = (1 - cfg_.alpha) * s.rtt_diff_ps + cfg_.alpha * new_diff;
  s.rtt_diff_ps = rtt_diff;
  const double gradient = rtt_diff / static_cast<double>(cfg_.min_rtt.ps);
  double factor = 1;  // < 1: decrease
  bool increase = false;
  bool low_band = false;
  if (rtt < cfg_.t_low) {
    increase = low_band = true;
  } else if (rtt > cfg_.t_high) {
    factor =
        1 - cfg_.beta * (1 - static_cast<double>(cfg_.t_high.ps) / static_cast<double>(rtt.ps));
  } else if (gradient <= 0) {
    increase = true;
  } else {
    factor = std::max(0.0, 1 - cfg_.beta * gradient);
  }
  // The paper's N counts negative gradients in a row and applies to the gradient band
  // only; HPCC-ns3 counts increases of any kind in a row (incStage).
  if (!ns3_) s.streak = gradient <= 0 ? s.streak + 1 : 0;
  if (increase) {
    const bool hyper = s.streak >= cfg_.hai_threshold && (ns3_ || !low_band);
    s.rate = std::min(line, s.rate + (hyper ? hai : delta));
    if (ns3_) ++s.streak;
  } else {
    s.rate = std::max(std::min(cfg_.min_rate_bps, line),
                      static_cast<BitsPerSec>(static_cast<double>(s.rate) * factor));
    if (ns3_) s.streak = 0;
  }
  transport_->set_rate(f, s.rate, /*keep_next_send=*/ns3_);
}

}  // namespace rocelab
