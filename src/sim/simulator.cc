#include "sim/simulator.h"

#include <cstdio>
#include <cstdlib>

namespace rocelab {

namespace {
// An event in the past would break causality: a bug in the model, never input.
void check_not_past(Time when, Time now) {
  if (when < now) {
    std::fprintf(stderr, "rocelab: internal error: event scheduled at %lld ps before now %lld ps\n",
                 static_cast<long long>(when.ps), static_cast<long long>(now.ps));
    std::abort();
  }
}
}  // namespace

void Simulator::schedule(Time when, uint32_t target, uint32_t kind, uint64_t arg) {
  check_not_past(when, now_);
  queue_.push(when, target, kind, arg);
}

void Simulator::schedule_reserved(Time when, uint64_t seq, uint32_t target, uint32_t kind,
                                  uint64_t arg) {
  check_not_past(when, now_);
  queue_.push_reserved(when, seq, target, kind, arg);
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
  // Slots of at least 256 ps: finer ones would only spread the same events thinner.
  int width_log2 = 8;
  while ((int64_t{1} << width_log2) * static_cast<int64_t>(EventQueue::kSlots) < horizon.ps &&
         width_log2 < 40)
    ++width_log2;
  if (width_log2 != queue_.slot_width_log2()) queue_.set_slot_width_log2(width_log2);
}

void Simulator::run_until(Time until) {
  stop_requested_ = false;
  while (!queue_.empty() && !stop_requested_) {
    if (queue_.top_time() > until) break;
    const Event e = queue_.pop();
    now_ = e.time;
    ++events_processed_;
    handlers_[e.target]->on_event(e.kind, e.arg);
  }
  // With events left beyond `until`, the clock stands at `until`; with none left it stays
  // at the last event, so that a drained simulation reports when it really ended.
  if (!stop_requested_ && !queue_.empty() && now_ < until) now_ = until;
}

}  // namespace rocelab
