#include "cc/swift.h"

#include <algorithm>
#include <cmath>

#include "transport/rdma_transport.h"

namespace rocelab {

void SwiftSchemeConfig::describe(ParamVisitor& v) {
  v.real("additive_increase", cfg.additive_increase_packets, 0, 1000,
         "ai: packets added per RTT below the target (1)");
  v.real("beta", cfg.beta, 0, 1, "multiplicative-decrease gain (0.8)");
  v.real("max_mdf", cfg.max_mdf, 0, 1, "largest decrease at once (0.5)");
  v.duration("base_target", cfg.base_target, Delta::zero(), Delta::max(),
             "target delay of a one-hop path (25 us)");
  v.duration("per_hop_target", cfg.per_hop_target, Delta::zero(), Delta::max(),
             "h: target added per switch hop (1 us)");
  v.duration("flow_scaling_range", cfg.flow_scaling_range, Delta::zero(), Delta::max(),
             "fs_range: extra target at small windows (100 us)");
  v.real("flow_scaling_min_cwnd", cfg.flow_scaling_min_cwnd, 1e-6, 1e9,
         "fs_min_cwnd: window (packets) that gets all of fs_range (0.1)");
  v.real("flow_scaling_max_cwnd", cfg.flow_scaling_max_cwnd, 1e-6, 1e9,
         "fs_max_cwnd: window (packets) that gets none of it (256)");
  v.real("min_cwnd", cfg.min_cwnd, 1e-9, 1e9, "smallest window, packets (0.001, Swift §3.4)");
  v.real("max_cwnd", cfg.max_cwnd, 1e-9, 1e9, "largest window, packets (256)");
  v.real("initial_cwnd_bdp", cfg.initial_cwnd_bdp, 0, 1000,
         "a flow's first window in end-to-end BDPs (1: line rate)");
  v.count("retransmit_reset_threshold", cfg.retransmit_reset_threshold, 1, 1000,
          "timeouts in a row that drop the window to min_cwnd (3)");
  v.require(cfg.flow_scaling_min_cwnd < cfg.flow_scaling_max_cwnd, "flow_scaling_min_cwnd",
            "must be below flow_scaling_max_cwnd");
  v.require(cfg.min_cwnd <= cfg.max_cwnd, "min_cwnd", "must not exceed max_cwnd");
}

std::unique_ptr<CongestionControl> SwiftSchemeConfig::build() const {
  return std::make_unique<Swift>(cfg);
}

void Swift::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s = State{};
  RdmaTransport& t = *transport_;
  const double mtu = t.network().context().wire.mtu_payload_bytes;
  s.hops = t.network().switch_hops(t.qp_src(f), t.qp_dst(f), t.nic_port_of(f));
  s.rtt = t.base_rtt(f);
  s.cwnd = std::clamp(cfg_.initial_cwnd_bdp * static_cast<double>(t.bdp_bytes(f)) / mtu,
                      cfg_.min_cwnd, cfg_.max_cwnd);
  apply(f, s.cwnd);
}

// Swift §3.2: base target plus h per hop plus the flow-scaling term, which is fs_range at
// fs_min_cwnd and falls as 1/sqrt(cwnd) to zero at fs_max_cwnd.
Delta Swift::target_delay(FlowId f) const {
  const State& s = state_[f.index()];
  const double range = static_cast<double>(cfg_.flow_scaling_range.ps);
  const double alpha = range / (1 / std::sqrt(cfg_.flow_scaling_min_cwnd) -
                                1 / std::sqrt(cfg_.flow_scaling_max_cwnd));
  const double beta = -alpha / std::sqrt(cfg_.flow_scaling_max_cwnd);
  const double scaling = std::clamp(alpha / std::sqrt(s.cwnd) + beta, 0.0, range);
  return cfg_.base_target + cfg_.per_hop_target * static_cast<int64_t>(s.hops) +
         Delta{static_cast<int64_t>(scaling)};
}

bool Swift::can_decrease(const State& s, Time now) const {
  return s.last_decrease == Time::never() || now - s.last_decrease >= s.rtt;
}

// Algorithm 1, on ACK: AI below the target, else at most one MD per RTT in proportion to
// how far the delay exceeds it.
void Swift::on_ack(FlowId f, const AckEvent& ack) {
  State& s = state_[f.index()];
  const double old = s.cwnd;
  const Time now = transport_->sim().now();
  s.retransmits = 0;
  s.rtt = ack.rtt;
  const double mtu = transport_->network().context().wire.mtu_payload_bytes;
  const double acked = static_cast<double>(ack.newly_acked_bytes) / mtu;
  const Delta target = target_delay(f);
  if (ack.rtt < target) {
    s.cwnd += s.cwnd >= 1 ? cfg_.additive_increase_packets / s.cwnd * acked
                          : cfg_.additive_increase_packets * acked;
  } else if (can_decrease(s, now)) {
    const double excess =
        static_cast<double>((ack.rtt - target).ps) / static_cast<double>(ack.rtt.ps);
    s.cwnd *= std::max(1 - cfg_.beta * excess, 1 - cfg_.max_mdf);
  }
  apply(f, old);
}

// Fast recovery (a NAK): a loss signal, one max_mdf decrease per RTT.
void Swift::on_nak(FlowId f, const Packet&) {
  State& s = state_[f.index()];
  s.retransmits = 0;
  decrease_once(f, 1 - cfg_.max_mdf);
}

void Swift::on_timeout(FlowId f) {
  State& s = state_[f.index()];
  const double old = s.cwnd;
  if (++s.retransmits >= cfg_.retransmit_reset_threshold) {
    s.cwnd = cfg_.min_cwnd;
    apply(f, old);
    return;
  }
  decrease_once(f, 1 - cfg_.max_mdf);
}

void Swift::decrease_once(FlowId f, double factor) {
  State& s = state_[f.index()];
  const double old = s.cwnd;
  if (can_decrease(s, transport_->sim().now())) s.cwnd *= factor;
  apply(f, old);
}

// The window in bytes, and below one packet a pacing rate of one packet per rtt / cwnd
// (§3.4). A window that shrank restarts the once-per-RTT decrease hold-off (htsim's `<`:
// with `<=`, ACKs held off above the target would restart it forever).
void Swift::apply(FlowId f, double old_cwnd) {
  State& s = state_[f.index()];
  s.cwnd = std::clamp(s.cwnd, cfg_.min_cwnd, cfg_.max_cwnd);
  if (s.cwnd < old_cwnd) s.last_decrease = transport_->sim().now();
  RdmaTransport& t = *transport_;
  const double mtu = t.network().context().wire.mtu_payload_bytes;
  t.set_window(f, static_cast<uint64_t>(std::max(1.0, s.cwnd) * mtu));
  const BitsPerSec line = t.line_rate_bps(f);
  if (s.cwnd >= 1 || s.rtt <= Delta::zero()) {
    if (t.rate_bps(f) != line) t.set_rate(f, line);
    return;
  }
  const double wire_bits = 8.0 * t.network().context().wire.mtu_wire_bytes();
  const double rate = wire_bits * s.cwnd / (static_cast<double>(s.rtt.ps) * 1e-12);
  t.set_rate(f, std::clamp<BitsPerSec>(static_cast<BitsPerSec>(rate), 1, line));
}

}  // namespace rocelab
