// One owned simulation: the clock, the event list and the table of event handlers.
// No globals: several simulators can live in one process (tests, sweeps).
#pragma once

#include <cassert>
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

// Logical processes. Every event runs at one logical process (LP): a node of the network,
// or the global process (setup, samplers, scripted events). An event is ordered by its
// time, then by the LP that scheduled it, then by that LP's own count of events scheduled:
// a key that depends on nothing but the model, so the same order results however the LPs
// are spread over threads or machines (DESIGN.md: canonical order). An event runs at the
// LP its handler belongs to (add_handler's `lp`), or, for a handler of several nodes (the
// transport, a congestion control), at the LP that scheduled it.
using LpId = uint32_t;
inline constexpr int kLpBits = 24;
inline constexpr int kLpSeqBits = 64 - kLpBits;
inline constexpr LpId kGlobalLp = (LpId{1} << kLpBits) - 1;  // sorts after every node
inline constexpr LpId kAnyLp = UINT32_MAX;  // a handler's events run where they are scheduled
// Handler kinds are small numbers: an event stores its LP beside its kind.
inline constexpr uint32_t kEventKindBits = 8;

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
  // one may do without the vtable pointer). `lp`: the node whose state it changes (its
  // events run there), kGlobalLp, or kAnyLp for a handler that serves several nodes.
  template <class Handler>
  requires requires(Handler& h, uint32_t kind, uint64_t arg) { h.on_event(kind, arg); }
  uint32_t add_handler(Handler* handler, LpId lp = kAnyLp) {
    handlers_.push_back(HandlerEntry{handler, &dispatch<Handler>});
    handler_lp_.push_back(kAnyLp);
    const auto target = static_cast<uint32_t>(handlers_.size() - 1);
    set_handler_lp(target, lp);
    return target;
  }
  // The LP a handler's events run at (a port's deliveries: its peer, known once connected).
  void set_handler_lp(uint32_t target, LpId lp);
  LpId handler_lp(uint32_t target) const { return handler_lp_[target]; }
  // The LP of the event running now (kGlobalLp outside events).
  LpId current_lp() const { return current_lp_; }
  // Runs `fn` as if an event of `lp` ran it: what it schedules is ordered by that LP's
  // count (a node's own setup, a scripted event acting on a node).
  template <class Fn>
  void run_as(LpId lp, Fn&& fn) {
    const LpId saved = current_lp_;
    enter_lp(lp);
    fn();
    enter_lp(saved);
  }

  // Inline: the push is a few instructions, and the call was a tenth of the event list's.
  void schedule(Time when, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    schedule_reserved_on(exec_lp(target), when, next_seq(), target, kind, arg);
  }
  // An event of a handler that serves several nodes, to run at node `lp` (a flow's start).
  void schedule_on(LpId lp, Time when, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    schedule_reserved_on(lp, when, next_seq(), target, kind, arg);
  }
  // An event known now but put in the queue later (to keep the queue small): reserve its
  // sequence number now, schedule it with schedule_reserved later, and it runs exactly
  // where it would have run had it been scheduled at the reservation.
  uint64_t reserve_seq() { return next_seq(); }
  void schedule_reserved(Time when, uint64_t seq, uint32_t target, uint32_t kind,
                         uint64_t arg = 0) {
    schedule_reserved_on(exec_lp(target), when, seq, target, kind, arg);
  }
  void schedule_reserved_on(LpId lp, Time when, uint64_t seq, uint32_t target, uint32_t kind,
                            uint64_t arg = 0) {
    if (when < now_) [[unlikely]]
      scheduled_in_past(when, now_);
    assert(kind < (1u << kEventKindBits) && lp <= kGlobalLp);
    queue_.push_keyed(when, seq, EventPayload{target, kind | (lp << kEventKindBits), arg});
  }
  void schedule_in(Delta delay, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    schedule(now_ + delay, target, kind, arg);
  }
  // The LP that scheduled an event, from its sequence number, and the LP it runs at.
  static LpId origin_lp(uint64_t seq) { return static_cast<LpId>(seq >> kLpSeqBits); }
  LpId exec_lp(uint32_t target) const {
    const LpId lp = handler_lp_[target];
    return lp == kAnyLp ? current_lp_ : lp;
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

  // The next sequence number of the current LP: its id above its own count.
  uint64_t next_seq() {
    const uint64_t n = (*current_count_)++;
    if (n >> kLpSeqBits) [[unlikely]]
      sequence_overflow();
    return (static_cast<uint64_t>(current_lp_) << kLpSeqBits) | n;
  }
  [[noreturn]] void sequence_overflow() const;
  void enter_lp(LpId lp) {
    current_lp_ = lp;
    current_count_ = lp < lp_counts_.size() ? &lp_counts_[lp] : &global_count_;
  }

  EventQueue queue_;
  std::vector<HandlerEntry> handlers_;
  std::vector<LpId> handler_lp_;  // by target
  // Events scheduled so far by each node's LP (grown as handlers name LPs), and by the
  // global one.
  std::vector<uint64_t> lp_counts_;
  uint64_t global_count_ = 0;
  LpId current_lp_ = kGlobalLp;
  uint64_t* current_count_ = &global_count_;
  Time now_ = Time::zero();
  uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace rocelab
