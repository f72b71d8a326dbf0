#include "cc/flb_rc.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

void FlbRcSchemeConfig::describe(ParamVisitor& v) {
  v.real("window_bdp", cfg.window_bdp, 0, 1000,
         "in-flight limit in base-RTT x line-rate products (1: FLB §3.3); 0 = none");
  v.duration("recovery_time", cfg.recovery_time, Delta::zero(), Delta::max(),
             "also back to line rate after this long without any CNM (not in FLB; 0 = never)");
}

std::unique_ptr<CongestionControl> FlbRcSchemeConfig::build() const {
  return std::make_unique<FlbRateControl>(cfg);
}

void FlbRateControl::attach(RdmaTransport& transport) {
  CongestionControl::attach(transport);
  handler_ = transport.sim().add_handler(this);
  cnm_.emplace(transport.packet_layout());
}

void FlbRateControl::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s.active = true;
  s.target_bps = transport_->line_rate_bps(f);
  if (cfg_.window_bdp > 0) {
    const double bdp =
        static_cast<double>(bytes_in(transport_->base_rtt(f), transport_->line_rate_bps(f)));
    transport_->set_window(f, std::max<uint64_t>(static_cast<uint64_t>(cfg_.window_bdp * bdp), 1));
  }
}

void FlbRateControl::on_control(FlowId f, const Packet& p) {
  if (!cnm_->is_cnm(p) || f.index() >= state_.size() || !state_[f.index()].active) return;
  State& s = state_[f.index()];
  const Cnm cnm = cnm_->read(*transport_, p);
  const BitsPerSec line = transport_->line_rate_bps(f);
  if (cnm.congested_flows > 0) s.target_bps = line / cnm.congested_flows;  // r = C/n (§3.3)
  transport_->set_rate(f, s.target_bps);
  if (cnm.congested) {
    congestion_cnms_.fetch_add(1, std::memory_order_relaxed);
    s.paused = true;
    transport_->set_hold(f, true);
  } else {
    s.paused = false;
    transport_->set_hold(f, false);
  }
  if (cfg_.recovery_time > Delta::zero())
    transport_->sim().arm(s.recovery, transport_->sim().now() + cfg_.recovery_time, handler_, 0,
                          f.index());
}

void FlbRateControl::on_event(uint32_t kind, uint64_t arg) {
  const FlowId f(Simulator::timer_key(arg));
  State& s = state_[f.index()];
  if (!transport_->sim().timer_fired(s.recovery, arg, handler_, kind) || !s.active) return;
  // No CNM for recovery_time: the congestion is gone.
  s.paused = false;
  s.target_bps = transport_->line_rate_bps(f);
  transport_->set_rate(f, s.target_bps);
  transport_->set_hold(f, false);
}

// The CNMs came from the old plane's switches, whose release would come the same way: a
// QP moved off a failed port resumes at line rate, as after recovery_time without a CNM.
void FlbRateControl::on_port_moved(FlowId f) {
  if (f.index() >= state_.size() || !state_[f.index()].active) return;
  State& s = state_[f.index()];
  transport_->sim().cancel(s.recovery);
  s.paused = false;
  s.target_bps = transport_->line_rate_bps(f);
  transport_->set_rate(f, s.target_bps);
  transport_->set_hold(f, false);
}

void FlbRateControl::on_flow_finish(FlowId f) {
  State& s = state_[f.index()];
  s.active = false;
  transport_->sim().cancel(s.recovery);
}

}  // namespace rocelab
