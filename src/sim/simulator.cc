#include "sim/simulator.h"

#include <cstdio>
#include <cstdlib>

namespace rocelab {

void Simulator::scheduled_in_past(Time when, Time now) {
  std::fprintf(stderr, "rocelab: internal error: event scheduled at %lld ps before now %lld ps\n",
               static_cast<long long>(when.ps), static_cast<long long>(now.ps));
  std::abort();
}

void Simulator::sequence_overflow() const {
  std::fprintf(stderr, "rocelab: internal error: LP %u scheduled 2^%d events\n", current_lp_,
               kLpSeqBits);
  std::abort();
}

void Simulator::set_handler_lp(uint32_t target, LpId lp) {
  handler_lp_[target] = lp;
  if (lp < kGlobalLp && lp >= lp_counts_.size()) {
    lp_counts_.resize(lp + 1, 0);  // before the run: no event is running
    enter_lp(current_lp_);
  }
}

void Simulator::arm(TimerSlot& slot, Time when, uint32_t target, uint32_t kind, uint32_t key) {
  slot.deadline = when;
  if (slot.scheduled <= when) return;  // the live event fires first and re-queues itself
  ++slot.version;
  slot.scheduled = when;
  schedule(when, target, kind, (static_cast<uint64_t>(slot.version) << 32) | key);
}

bool Simulator::timer_fired(TimerSlot& slot, uint64_t arg, uint32_t target, uint32_t kind) {
  if (static_cast<uint32_t>(arg >> 32) != slot.version) return false;  // stale event
  slot.scheduled = Time::never();
  if (!slot.armed()) return false;  // cancelled
  if (slot.deadline > now_) {       // moved later: follow it
    ++slot.version;
    slot.scheduled = slot.deadline;
    schedule(slot.deadline, target, kind,
             (static_cast<uint64_t>(slot.version) << 32) | static_cast<uint32_t>(arg));
    return false;
  }
  slot.deadline = Time::never();
  return true;
}

void Simulator::set_event_horizon(Delta horizon) {
  // Slots of at least 256 ps to start with: the wheel makes them finer itself where the
  // fabric's events are dense enough to fill them.
  int width_log2 = 8;
  while ((int64_t{1} << width_log2) * static_cast<int64_t>(queue_.slots()) < horizon.ps &&
         width_log2 < 40)
    ++width_log2;
  if (width_log2 != queue_.slot_width_log2()) queue_.set_slot_width_log2(width_log2);
}

void Simulator::run_until(Time until) {
  stop_requested_ = false;
  EventEntry e;
  while (!stop_requested_ && queue_.take_due(until, e)) {
    now_ = Time{event_key_time(e.key)};
    ++events_processed_;
    // The next event's handler is loaded while this one runs: each event's first miss is
    // its handler object, last touched many events ago.
    const uint32_t next = queue_.next_target_hint();
    if (next != EventQueue::kNoTarget) __builtin_prefetch(handlers_[next].object);
    enter_lp(e.payload.kind >> kEventKindBits);
    const HandlerEntry& h = handlers_[e.payload.target];
    h.on_event(h.object, e.payload.kind & ((1u << kEventKindBits) - 1), e.payload.arg);
  }
  enter_lp(kGlobalLp);
  // With events left beyond `until`, the clock stands at `until`; with none left it stays
  // at the last event, so that a drained simulation reports when it really ended.
  if (!stop_requested_ && !queue_.empty() && now_ < until) now_ = until;
}

}  // namespace rocelab
