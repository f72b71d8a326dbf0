#include "cc/dcqcn.h"

#include <algorithm>

#include "cc/dcqcn_mlx.h"
#include "transport/rdma_transport.h"

namespace rocelab {

void DcqcnSchemeConfig::describe(ParamVisitor& v) {
  v.real("g", cfg.g, 0, 1, "alpha gain (1/256: DCQCN paper, htsim, ns3-rdma)");
  v.real("initial_alpha", cfg.initial_alpha, 0, 1, "alpha of a new flow (1: first CNP halves)");
  v.duration("alpha_update_interval", cfg.alpha_update_interval, Delta::from_ns(1), Delta::max(),
             "K: alpha decays when no CNP came for this long (55 us)");
  v.duration("rate_increase_interval", cfg.rate_increase_interval, Delta::from_ns(1), Delta::max(),
             "T: rate-increase timer (55 us; HPCC ns-3 RP_TIMER 300-900 us)");
  v.bytes("byte_counter", cfg.byte_counter_bytes, 1, kNoLimit,
          "B: bytes between byte-counter increases (10 MB)");
  v.count("fast_recovery_steps", cfg.fast_recovery_steps, 0, 1000, "F (5)");
  v.rate("rate_ai", cfg.rate_ai_bps, 1, gbps(10000), "additive increase step (40 Mb/s)");
  v.rate("rate_hai", cfg.rate_hai_bps, 1, gbps(10000), "hyper increase step (200 Mb/s)");
  v.rate("min_rate", cfg.min_rate_bps, 1, gbps(10000), "rate floor (100 Mb/s)");
  v.duration("min_cut_interval", cfg.min_cut_interval, Delta::zero(), Delta::max(),
             "sigcomm15: cuts closer than this merge (0: every CNP cuts)");
  v.choice("model", cfg.model, kDcqcnModels,
           "reaction point: sigcomm15 (the DCQCN paper, rocelab's default) or ns3_mlx (the "
           "Mellanox model of the HPCC/ConWeave ns-3 simulators, rdma-hw.cc *Mlx)");
  v.duration("rate_decrease_interval", cfg.rate_decrease_interval, Delta::from_ns(1), Delta::max(),
             "ns3_mlx: period of the cut check (RATE_DECREASE_INTERVAL, 4 us)");
  v.real("rate_on_first_cnp", cfg.rate_on_first_cnp, 0, 1,
         "ns3_mlx: rate kept on a flow's first CNP (RateOnFirstCnp, 1.0)");
  v.flag("clamp_target_rate", cfg.clamp_target_rate,
         "ns3_mlx: every cut sets target = current rate (CLAMP_TARGET_RATE, false)");
  // The notification point (dcqcn_np.h).
  v.duration("cnp_interval", cfg.np.cnp_interval, Delta::zero(), Delta::max(),
             "notification point: at most one CNP per flow per interval (50 us: DCQCN); 0 = "
             "every marked packet");
  std::string delivery = kCnpDeliveries[static_cast<size_t>(cfg.np.cnp_delivery)];
  v.choice("cnp_delivery", delivery, kCnpDeliveries,
           "notification point: frame = a CNP frame, at most one per cnp_interval (RoCEv2, "
           "DCQCN); ack_flag = a flag on the ACK/NAK of the marked packet (HPCC/ConWeave ns-3)");
  cfg.np.cnp_delivery = delivery == "frame" ? CnpDelivery::kFrame : CnpDelivery::kAckFlag;
  v.flag("cnp_on_nak", cfg.np.cnp_on_nak,
         "notification point: a go-back-N NAK carries a CNP too (ConWeave ns-3; needs "
         "cnp_delivery: ack_flag)");
  v.require(!cfg.np.cnp_on_nak || cfg.np.cnp_delivery == CnpDelivery::kAckFlag, "cnp_on_nak",
            "needs cnp_delivery: ack_flag");
  describe_window_cap(v);
}

std::unique_ptr<CongestionControl> DcqcnSchemeConfig::build() const {
  if (cfg.model == "ns3_mlx") return with_window_cap(std::make_unique<DcqcnMlx>(cfg));
  return with_window_cap(std::make_unique<Dcqcn>(cfg));
}

void Dcqcn::attach(RdmaTransport& transport) {
  CongestionControl::attach(transport);
  handler_ = transport.sim().add_handler(this);
}

void Dcqcn::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s.alpha = cfg_.initial_alpha;
  s.rc = s.rt = transport_->line_rate_bps(f);  // DCQCN starts at line rate
  s.active = true;
}

void Dcqcn::on_flow_finish(FlowId f) {
  State& s = state_[f.index()];
  s.active = false;
  Simulator& sim = transport_->sim();
  sim.cancel(s.alpha_timer);
  sim.cancel(s.increase_timer);
}

void Dcqcn::apply(FlowId f) {
  State& s = state_[f.index()];
  const BitsPerSec line = transport_->line_rate_bps(f);
  s.rt = std::min(s.rt, line);
  s.rc = std::clamp(s.rc, std::min(cfg_.min_rate_bps, line), line);
  transport_->set_rate(f, s.rc);
}

void Dcqcn::on_cnp(FlowId f, const Packet&) {
  State& s = state_[f.index()];
  if (!s.active) return;
  Simulator& sim = transport_->sim();
  const Time now = sim.now();
  s.cnp_since_alpha_update = true;
  if (s.last_cut != Time::never() && now - s.last_cut < cfg_.min_cut_interval) {
    // Merged into the previous cut, the CNP still counts as congestion (Eq. 2), and the
    // flag above keeps the next alpha expiry from decaying it.
    s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g;
    return;
  }
  // DCQCN §3.1 Eq. 1-2: R_T = R_C; R_C = R_C (1 - alpha/2); alpha = (1-g) alpha + g.
  s.last_cut = now;
  s.rt = s.rc;
  s.rc = static_cast<BitsPerSec>(static_cast<double>(s.rc) * (1.0 - s.alpha / 2));
  s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g;
  s.cnp_since_alpha_update = false;
  s.timer_stage = 0;
  s.byte_stage = 0;
  s.bytes_since_increase = 0;
  apply(f);
  sim.arm(s.alpha_timer, now + cfg_.alpha_update_interval, handler_, kAlphaTimer, f.index());
  // The increase timer restarts from the cut (re-arming moves the pending expiry).
  sim.arm(s.increase_timer, now + cfg_.rate_increase_interval, handler_, kIncreaseTimer, f.index());
}

void Dcqcn::on_packet_sent(FlowId f, const Packet& p) {
  State& s = state_[f.index()];
  if (s.rc >= transport_->line_rate_bps(f) && s.rt >= s.rc) return;  // nothing to recover
  s.bytes_since_increase += p.wire_bytes;
  if (s.bytes_since_increase >= static_cast<uint64_t>(cfg_.byte_counter_bytes)) {
    s.bytes_since_increase = 0;
    ++s.byte_stage;
    increase(f);
  }
}

void Dcqcn::increase(FlowId f) {
  // DCQCN §3.1 Fig. 5: fast recovery while both counters are below F, hyper increase once
  // both exceed it, additive increase in between; then R_C = (R_T + R_C) / 2.
  State& s = state_[f.index()];
  const uint32_t lo = std::min(s.timer_stage, s.byte_stage);
  const uint32_t hi = std::max(s.timer_stage, s.byte_stage);
  if (hi < cfg_.fast_recovery_steps) {
    // fast recovery: target unchanged
  } else if (lo > cfg_.fast_recovery_steps) {
    s.rt += static_cast<BitsPerSec>(lo - cfg_.fast_recovery_steps) * cfg_.rate_hai_bps;
  } else {
    s.rt += cfg_.rate_ai_bps;
  }
  s.rt = std::min(s.rt, transport_->line_rate_bps(f));
  s.rc = (s.rt + s.rc) / 2;
  apply(f);
}

void Dcqcn::on_event(uint32_t kind, uint64_t arg) {
  const FlowId f(Simulator::timer_key(arg));
  State& s = state_[f.index()];
  Simulator& sim = transport_->sim();
  if (kind == kAlphaTimer) {
    if (!sim.timer_fired(s.alpha_timer, arg, handler_, kAlphaTimer) || !s.active) return;
    // DCQCN §3.1 Eq. 3: without a CNP for K, alpha decays.
    if (!s.cnp_since_alpha_update) s.alpha = (1 - cfg_.g) * s.alpha;
    s.cnp_since_alpha_update = false;
    if (s.alpha > 1e-6 || s.rc < transport_->line_rate_bps(f))
      sim.arm(s.alpha_timer, sim.now() + cfg_.alpha_update_interval, handler_, kAlphaTimer,
              f.index());
    return;
  }
  if (!sim.timer_fired(s.increase_timer, arg, handler_, kIncreaseTimer) || !s.active) return;
  ++s.timer_stage;
  increase(f);
  if (s.rc < transport_->line_rate_bps(f))
    sim.arm(s.increase_timer, sim.now() + cfg_.rate_increase_interval, handler_, kIncreaseTimer,
            f.index());
}

}  // namespace rocelab
