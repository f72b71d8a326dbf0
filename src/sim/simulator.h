// One owned simulation: the clock, the event list and the table of event handlers.
// No globals: several simulators can live in one process (tests, sweeps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "sim/event_queue.h"
#include "sim/time.h"

namespace rocelab {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(uint32_t kind, uint64_t arg) = 0;
};

// A cancellable, re-armable timer that keeps at most one live event in the queue.
// Re-arming later than the pending event only moves the deadline (no new event); the
// pending event re-queues itself when it fires early. Arming earlier bumps the version,
// which turns the old event stale.
struct TimerSlot {
  Time deadline = Time::never();
  Time scheduled = Time::never();
  uint32_t version = 0;
  bool armed() const { return deadline != Time::never(); }
};

class Simulator {
 public:
  Simulator() { queue_.reserve(1 << 12); }
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }
  uint64_t events_processed() const { return events_processed_; }
  size_t pending_events() const { return queue_.size(); }
  // The event list's timing wheel as it stands (it grows in a dense fabric).
  size_t event_wheel_slots() const { return queue_.slots(); }
  int64_t event_slot_width_ps() const { return int64_t{1} << queue_.slot_width_log2(); }

  // Registers a handler; events for the returned target go to its on_event. The call goes
  // through a per-type function kept in the handler table, not through the object's vtable:
  // for a final class it is direct, and the object (last touched many events ago, so a
  // cache miss) is not read before the handler starts.
  // A handler is an EventHandler, or any class with a public on_event(kind, arg) (a hot
  // one may do without the vtable pointer).
  template <class Handler>
  requires requires(Handler& h, uint32_t kind, uint64_t arg) { h.on_event(kind, arg); }
  uint32_t add_handler(Handler* handler) {
    handlers_.push_back(HandlerEntry{handler, &dispatch<Handler>});
    return static_cast<uint32_t>(handlers_.size() - 1);
  }

  // Inline: the push is a few instructions, and the call was a tenth of the event list's.
  void schedule(Time when, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    if (when < now_) [[unlikely]]
      scheduled_in_past(when, now_);
    queue_.push(when, target, kind, arg);
  }
  // An event known now but put in the queue later (to keep the queue small): reserve its
  // sequence number now, schedule it with schedule_reserved later, and it runs exactly
  // where it would have run had it been scheduled at the reservation.
  uint64_t reserve_seq() { return queue_.reserve_seq(); }
  void schedule_reserved(Time when, uint64_t seq, uint32_t target, uint32_t kind,
                         uint64_t arg = 0) {
    if (when < now_) [[unlikely]]
      scheduled_in_past(when, now_);
    queue_.push_reserved(when, seq, target, kind, arg);
  }
  void schedule_in(Delta delay, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    schedule(now_ + delay, target, kind, arg);
  }

  // Timers. `key` (32 bits) comes back in the low half of the event's arg.
  void arm(TimerSlot& slot, Time when, uint32_t target, uint32_t kind, uint32_t key = 0);
  void cancel(TimerSlot& slot) { slot.deadline = Time::never(); }
  // Called by the handler for a timer event: true when the timer really expires now.
  bool timer_fired(TimerSlot& slot, uint64_t arg, uint32_t target, uint32_t kind);
  static uint32_t timer_key(uint64_t arg) { return static_cast<uint32_t>(arg); }

  // Sizes the event list's timing wheel to hold events up to `horizon` ahead of now (later
  // ones wait in its heap). A tuning knob only: the order of events never depends on it.
  void set_event_horizon(Delta horizon);

  // Runs events with time <= until (or until stop() or no events are left).
  void run_until(Time until);
  void stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  // An event in the past would break causality: a bug in the model, never input. Aborts.
  [[noreturn]] static void scheduled_in_past(Time when, Time now);

  template <class Handler>
  static void dispatch(void* handler, uint32_t kind, uint64_t arg) {
    static_cast<Handler*>(handler)->on_event(kind, arg);
  }
  struct HandlerEntry {
    void* object;
    void (*on_event)(void* object, uint32_t kind, uint64_t arg);
  };

  EventQueue queue_;
  std::vector<HandlerEntry> handlers_;
  Time now_ = Time::zero();
  uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace rocelab
