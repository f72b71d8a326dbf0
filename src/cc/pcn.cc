#include "cc/pcn.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

void PcnSchemeConfig::describe(ParamVisitor& v) {
  v.duration("cnp_period", cfg.cnp_period, Delta::from_ps(1), Delta::max(),
             "T: how often the receiver reports each flow's receive rate (50 us)");
  v.real("congested_ratio", cfg.congested_ratio, 0, 1,
         "share of a period's packets marked (NP-ECN) that makes the flow congested (0.95)");
  v.real("w_min", cfg.w_min, 0, 1, "increase weight after a congested CNP (1/128)");
  v.real("w_max", cfg.w_max, 0, 1, "largest increase weight (0.5)");
  v.rate("min_rate", cfg.min_rate_bps, 1, gbps(10000), "rate floor (100 Mb/s; not in PCN)");
  describe_window_cap(v);
  v.require(cfg.w_min <= cfg.w_max, "w_min", "must not exceed w_max");
  v.require(cfg.w_min > 0, "w_min", "must be above 0, or the rate never increases");
}

std::unique_ptr<CongestionControl> PcnSchemeConfig::build() const {
  return with_window_cap(std::make_unique<Pcn>(cfg));
}

CcFabricNeeds Pcn::fabric_needs() const {
  CcFabricNeeds n;
  n.switch_features = {"np_ecn"};
  return n;
}

void Pcn::attach(RdmaTransport& transport) {
  CongestionControl::attach(transport);
  feedback_ = transport.packet_layout().declare<PcnFeedback>("pcn.feedback");
}

void Pcn::reserve_flows(size_t n) {
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  if (sender_.size() < n) sender_.resize(n);
  if (receiver_.size() < n) receiver_.resize(n);
}

void Pcn::on_flow_start(FlowId f) {
  if (sender_.size() <= f.index()) sender_.resize(f.index() + 1);
  sender_[f.index()].w = cfg_.w_min;  // RDMA flows start at line rate
}

// Notification point: a period closes with the first packet at least T after it opened.
// Its rate counts the bytes that arrived after the opening packet, over the time since.
void Pcn::on_data_received(FlowId f, const Packet& data) {
  if (receiver_.size() <= f.index()) receiver_.resize(transport_->qp_count());
  ReceiverState& r = receiver_[f.index()];
  const Time now = transport_->sim().now();
  if (r.period_start == Time::never()) {
    r.period_start = now;
    return;
  }
  r.wire_bytes += data.wire_bytes;
  ++r.packets;
  r.marked += data.ecn_ce ? 1 : 0;
  if (now - r.period_start >= cfg_.cnp_period) report(r, data);
}

void Pcn::report(ReceiverState& r, const Packet& data) {
  const Time now = transport_->sim().now();
  const double seconds = static_cast<double>((now - r.period_start).ps) * 1e-12;
  PcnFeedback fb;
  fb.recv_rate_bps = static_cast<BitsPerSec>(static_cast<double>(r.wire_bytes) * 8.0 / seconds);
  fb.congested = static_cast<double>(r.marked) >= cfg_.congested_ratio * r.packets;
  r = ReceiverState{};
  r.period_start = now;
  const PacketId cnp = transport_->send_cnp(data);
  transport_->field(feedback_, transport_->network().context().pkt(cnp)) = fb;
}

// Reaction point.
void Pcn::on_cnp(FlowId f, const Packet& cnp) {
  if (sender_.size() <= f.index() || cnp.type != PacketType::kCnp) return;
  const PcnFeedback& fb = transport_->field(feedback_, cnp);
  SenderState& s = sender_[f.index()];
  const BitsPerSec rate = transport_->rate_bps(f);
  const BitsPerSec line = transport_->line_rate_bps(f);
  if (fb.congested) {
    const auto target =
        static_cast<BitsPerSec>(static_cast<double>(fb.recv_rate_bps) * (1 - cfg_.w_min));
    transport_->set_rate(f, std::max(cfg_.min_rate_bps, std::min(rate, target)));
    s.w = cfg_.w_min;
    return;
  }
  // (1 - w) R + w R_line as the gap to line rate shrinking by (1 - w): rounding the gap
  // down lets the rate reach line rate exactly (rounding R down would stop 1 b/s short).
  const auto gap = static_cast<BitsPerSec>((1 - s.w) * static_cast<double>(line - rate));
  transport_->set_rate(f, line - gap);
  s.w = std::min(cfg_.w_max, 2 * s.w);
}

}  // namespace rocelab
