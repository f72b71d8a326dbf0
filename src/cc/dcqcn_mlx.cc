#include "cc/dcqcn_mlx.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

namespace {

// x^n by squaring: portable (no libm) and exact for n = 0, 1.
double power(double x, uint64_t n) {
  double result = 1.0;
  while (n > 0) {
    if (n & 1) result *= x;
    x *= x;
    n >>= 1;
  }
  return result;
}

// ns-3 DataRate arithmetic: (m_rate / 2) + (m_targetRate / 2) halves each in integers.
BitsPerSec halfway(BitsPerSec rc, BitsPerSec rt) {
  return rc / 2 + rt / 2;
}

}  // namespace

void DcqcnMlx::attach(RdmaTransport& transport) {
  CongestionControl::attach(transport);
  handler_ = transport.sim().add_handler(this);
}

void DcqcnMlx::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s = State{};
  s.rc = s.rt = transport_->line_rate_bps(f);  // a QP starts at the NIC's rate
  s.active = true;
}

void DcqcnMlx::on_flow_finish(FlowId f) {
  State& s = state_[f.index()];
  s.active = false;
  transport_->sim().cancel(s.decrease_check);
  transport_->sim().cancel(s.increase_timer);
}

// UpdateAlphaMlx fires every alpha_update_interval from the first CNP: alpha = (1-g) alpha
// + g if a CNP arrived since the previous expiry, else (1-g) alpha. Applies the expiries
// up to and including `now` (an expiry at the same instant as a CNP goes first).
void DcqcnMlx::advance_alpha(State& s, Time now) const {
  if (s.first_cnp == Time::never() || now < s.first_cnp) return;
  const uint64_t due =
      static_cast<uint64_t>((now - s.first_cnp).ps / cfg_.alpha_update_interval.ps);
  if (due <= s.alpha_ticks) return;
  const double g = cfg_.g;
  s.alpha = s.alpha_cnp_arrived ? (1 - g) * s.alpha + g : (1 - g) * s.alpha;
  s.alpha_cnp_arrived = false;
  s.alpha *= power(1 - g, due - s.alpha_ticks - 1);
  s.alpha_ticks = due;
}

double DcqcnMlx::alpha(FlowId f) {
  State& s = state_[f.index()];
  advance_alpha(s, transport_->sim().now());
  return s.alpha;
}

// The *Mlx functions assign q->m_rate directly, not through RdmaHw::ChangeRate: the next
// packet keeps the send time the previous rate gave it (m_nextAvail), even after a jump
// from the floor to half the line rate.
void DcqcnMlx::apply(FlowId f) {
  State& s = state_[f.index()];
  transport_->set_rate(f, s.rc, /*keep_next_send=*/true);
}

// cnp_received_mlx: set both CNP-arrived flags; the first CNP of a flow sets alpha = 1,
// starts the alpha timer and the decrease check (1 ns after the alpha timer, "to make
// sure rate decrease is after alpha update") and scales the rate by RateOnFirstCnp.
void DcqcnMlx::on_cnp(FlowId f, const Packet&) {
  State& s = state_[f.index()];
  if (!s.active) return;
  const Time now = transport_->sim().now();
  if (s.first_cnp == Time::never()) {
    s.first_cnp = now;
    s.alpha = 1.0;
    s.alpha_cnp_arrived = false;
    s.rc = s.rt = static_cast<BitsPerSec>(static_cast<double>(s.rc) * cfg_.rate_on_first_cnp);
    apply(f);
    transport_->sim().arm(s.decrease_check, now + Delta::from_ns(1) + cfg_.rate_decrease_interval,
                          handler_, kDecreaseCheck, f.index());
    return;  // m_decrease_cnp_arrived stays set: the first check cuts
  }
  advance_alpha(s, now);
  s.alpha_cnp_arrived = true;
  schedule_check(f, now);
}

// CheckRateDecreaseMlx runs every rate_decrease_interval on the grid first_cnp + 1 ns +
// k * interval and cuts if a CNP arrived since the previous check. Only the check after a
// CNP can cut, so that is the only one scheduled.
void DcqcnMlx::schedule_check(FlowId f, Time now) {
  State& s = state_[f.index()];
  if (s.decrease_check.armed()) return;  // the pending check will see this CNP
  const Time origin = s.first_cnp + Delta::from_ns(1);
  const int64_t period = cfg_.rate_decrease_interval.ps;
  const int64_t k = now < origin ? 1 : (now - origin).ps / period + 1;
  transport_->sim().arm(s.decrease_check, origin + Delta{k * period}, handler_, kDecreaseCheck,
                        f.index());
}

void DcqcnMlx::cut(FlowId f) {
  State& s = state_[f.index()];
  const Time now = transport_->sim().now();
  advance_alpha(s, now);
  // CLAMP_TARGET_RATE 0: back-to-back cuts keep the old target.
  if (cfg_.clamp_target_rate || s.stage != 0) s.rt = s.rc;
  const BitsPerSec cut_rate =
      static_cast<BitsPerSec>(static_cast<double>(s.rc) * (1 - s.alpha / 2));
  s.rc = std::max(std::min(cfg_.min_rate_bps, transport_->line_rate_bps(f)), cut_rate);
  s.stage = 0;
  apply(f);
  // The increase timer restarts from the cut.
  transport_->sim().arm(s.increase_timer, now + cfg_.rate_increase_interval, handler_,
                        kIncreaseTimer, f.index());
}

// RateIncEventTimerMlx / RateIncEventMlx: the stage before this expiry selects fast
// recovery (< F), one additive step (== F) or one hyper step (> F); then the stage counts.
void DcqcnMlx::increase(FlowId f) {
  State& s = state_[f.index()];
  const BitsPerSec line = transport_->line_rate_bps(f);
  if (s.stage == cfg_.fast_recovery_steps) {
    s.rt = std::min(s.rt + cfg_.rate_ai_bps, line);  // ActiveIncreaseMlx
  } else if (s.stage > cfg_.fast_recovery_steps) {
    s.rt = std::min(s.rt + cfg_.rate_hai_bps, line);  // HyperIncreaseMlx
  }
  s.rc = halfway(s.rc, s.rt);  // FastRecoveryMlx and both increases
  ++s.stage;
  apply(f);
  // The forks' timer runs on; once the target is the line rate and the rate no longer
  // moves, its further expiries change nothing (the stage stays non-zero either way).
  if (s.rt == line && halfway(s.rc, s.rt) == s.rc) return;
  transport_->sim().arm(s.increase_timer, transport_->sim().now() + cfg_.rate_increase_interval,
                        handler_, kIncreaseTimer, f.index());
}

void DcqcnMlx::on_event(uint32_t kind, uint64_t arg) {
  const FlowId f(Simulator::timer_key(arg));
  State& s = state_[f.index()];
  Simulator& sim = transport_->sim();
  if (kind == kDecreaseCheck) {
    if (!sim.timer_fired(s.decrease_check, arg, handler_, kDecreaseCheck) || !s.active) return;
    cut(f);
    return;
  }
  if (!sim.timer_fired(s.increase_timer, arg, handler_, kIncreaseTimer) || !s.active) return;
  increase(f);
}

}  // namespace rocelab
