// One owned simulation: the clock, the event list and the table of event handlers.
// No globals: several simulators can live in one process (tests, sweeps).
#pragma once

#include <array>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "sim/event_queue.h"
#include "sim/lane.h"
#include "sim/ranks.h"
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

// The paths every event takes are always inlined: GCC's heuristics otherwise move with
// any change nearby (a few more instructions in the event list once took the whole of it
// out of the event loop: +6% instructions per event).

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

// One partition's event list and clock: the events of a set of LPs, run by one thread at a
// time. A serial run has one; a parallel run one per partition and one for the global LP.
struct SimPartition {
  EventQueue queue;
  Time now = Time::zero();
  LpId current_lp = kGlobalLp;
  EventKey current_key = 0;  // a parallel run's: the key of the event running
  uint64_t events_processed = 0;
  uint64_t window_events = 0;  // events of the window running now
  bool stop_requested = false;
  uint32_t index = 0;  // its place among the partitions (its lane: index + 1, sim/lane.h)
  // Events for other partitions' LPs (the last: the global LP's), by the parity of the
  // window that made them and by destination. A node partition joins what it was sent at
  // the start of its next window, on its own thread, while its senders fill the other
  // parity's boxes; the global LP's are joined between windows.
  std::vector<std::vector<EventEntry>> outbox[2];
  // The smallest key this window sent to another node partition; and, after its window,
  // the smallest key it holds or sent: the front the next window starts from.
  EventKey sent_front = ~EventKey{0};
  EventKey front = ~EventKey{0};
};

// What a parallel run's windows looked like: how evenly the work spread.
struct ParallelProfile {
  uint64_t windows = 0;
  uint64_t node_events = 0;    // events of node partitions
  uint64_t global_events = 0;  // events of the global LP, run between windows
  // Sum over windows of the busiest partition's events: with a core per partition, the
  // events on the critical path.
  uint64_t critical_path_events = 0;
  std::vector<uint64_t> partition_events;
  // What more cores would give: for each count in kModelCores, the sum over windows of the
  // events of the busiest core had the window's partitions been dealt to that many cores as
  // the threads deal them (in the same order, each to the first core free). node_events
  // over it is the speed-up on that many cores with free barriers and equal events.
  static constexpr std::array<uint32_t, 6> kModelCores{2, 4, 8, 16, 32, 64};
  std::array<uint64_t, kModelCores.size()> makespan_events{};
  // Wall time (depends on the machine): the whole parallel run; the steps between windows
  // (one thread runs them while the others wait); and, per thread, the time it ran
  // partitions' windows. What is left of threads x run_s waited at the barrier.
  double run_s = 0;
  double between_windows_s = 0;
  std::vector<double> thread_busy_s;
  // Of the barrier wait, the part unequal work explains: per window, each thread's wait for
  // the thread busy longest (the rest is the barrier's own cost: arrivals and wake-ups).
  double imbalance_s = 0;
};

class Simulator {
 public:
  Simulator();
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  [[gnu::always_inline]] Time now() const { return cur().now; }
  // Over several ranks: this rank's share (the global LP's events at rank 0 only).
  uint64_t events_processed() const;
  size_t pending_events() const;
  // The event list's timing wheel as it stands (it grows in a dense fabric).
  size_t event_wheel_slots() const { return first_partition().queue.slots(); }
  int64_t event_slot_width_ps() const {
    return int64_t{1} << first_partition().queue.slot_width_log2();
  }
  // Over every partition: pushes, and those that went to the heap beyond the wheel's
  // horizon or into a full slot (a diagnostic of the event list's sizing).
  struct EventListCounts {
    uint64_t pushes = 0, far_beyond = 0, far_full = 0;
  };
  EventListCounts event_list_counts() const {
    EventListCounts c;
    for_each_partition([&](const SimPartition& p) {
      c.pushes += p.queue.pushes();
      c.far_beyond += p.queue.far_pushes_beyond();
      c.far_full += p.queue.far_pushes_full();
    });
    return c;
  }

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
    handlers_.push_back(HandlerEntry{handler, &dispatch<Handler>, kAnyLp});
    const auto target = static_cast<uint32_t>(handlers_.size() - 1);
    set_handler_lp(target, lp);
    return target;
  }
  // The LP a handler's events run at (a port's deliveries: its peer, known once connected).
  void set_handler_lp(uint32_t target, LpId lp);
  LpId handler_lp(uint32_t target) const { return handlers_[target].lp; }
  // The LP of the event running now (kGlobalLp outside events).
  LpId current_lp() const { return cur().current_lp; }
  // In a parallel run, the key of the event running on this thread: what a record made by
  // it sorts by, so that records of several partitions merge into a serial run's order
  // (within an event, in the order it made them). Not kept in a serial run, which makes
  // its records in that order already.
  EventKey current_event_key() const { return cur().current_key; }
  // Runs `fn` as if an event of `lp` ran it: what it schedules is ordered by that LP's
  // count (a node's own setup, a scripted event acting on a node).
  template <class Fn>
  void run_as(LpId lp, Fn&& fn) {
    SimPartition& p = cur();
    const LpId saved = p.current_lp;
    if (lp != kGlobalLp && lp >= lp_count_) name_lps(lp + 1);
    enter_lp(p, lp);
    fn();
    enter_lp(p, saved);
  }

  // Inline: the push is a few instructions, and the call was a tenth of the event list's.
  // A serial run takes one branch on the way (a parallel run's push is out of line).
  [[gnu::always_inline]] void schedule(Time when, uint32_t target, uint32_t kind,
                                       uint64_t arg = 0) {
    if (!parallel_) [[likely]] {
      push_solo(exec_lp(solo_, target), when, next_seq(solo_), target, kind, arg);
      return;
    }
    SimPartition& p = parallel_cur();
    push_parallel(p, exec_lp(p, target), when, next_seq(p), target, kind, arg);
  }
  // An event of a handler that serves several nodes, to run at node `lp` (a flow's start).
  [[gnu::always_inline]] void schedule_on(LpId lp, Time when, uint32_t target, uint32_t kind,
                                          uint64_t arg = 0) {
    assert(lp == kGlobalLp || lp < lp_count_);  // a named LP: its count starts at its id
    if (!parallel_) [[likely]] {
      push_solo(lp, when, next_seq(solo_), target, kind, arg);
      return;
    }
    SimPartition& p = parallel_cur();
    push_parallel(p, lp, when, next_seq(p), target, kind, arg);
  }
  // An event known now but put in the queue later (to keep the queue small): reserve its
  // sequence number now, schedule it with schedule_reserved later, and it runs exactly
  // where it would have run had it been scheduled at the reservation.
  [[gnu::always_inline]] uint64_t reserve_seq() { return next_seq(cur()); }
  [[gnu::always_inline]] void schedule_reserved(Time when, uint64_t seq, uint32_t target,
                                                uint32_t kind, uint64_t arg = 0) {
    if (!parallel_) [[likely]] {
      push_solo(exec_lp(solo_, target), when, seq, target, kind, arg);
      return;
    }
    SimPartition& p = parallel_cur();
    push_parallel(p, exec_lp(p, target), when, seq, target, kind, arg);
  }
  [[gnu::always_inline]] void schedule_reserved_on(LpId lp, Time when, uint64_t seq,
                                                   uint32_t target, uint32_t kind,
                                                   uint64_t arg = 0) {
    if (!parallel_) [[likely]] {
      push_solo(lp, when, seq, target, kind, arg);
      return;
    }
    push_parallel(parallel_cur(), lp, when, seq, target, kind, arg);
  }
  void schedule_in(Delta delay, uint32_t target, uint32_t kind, uint64_t arg = 0) {
    schedule(now() + delay, target, kind, arg);
  }
  // The LP that scheduled an event, from its sequence number.
  static LpId origin_lp(uint64_t seq) { return static_cast<LpId>(seq >> kLpSeqBits); }

  // Timers. `key` (32 bits) comes back in the low half of the event's arg.
  void arm(TimerSlot& slot, Time when, uint32_t target, uint32_t kind, uint32_t key = 0);
  void cancel(TimerSlot& slot) { slot.deadline = Time::never(); }
  // Called by the handler for a timer event: true when the timer really expires now.
  bool timer_fired(TimerSlot& slot, uint64_t arg, uint32_t target, uint32_t kind);
  static uint32_t timer_key(uint64_t arg) { return static_cast<uint32_t>(arg); }

  // Sizes the event list's timing wheel to hold events up to `horizon` ahead of now (later
  // ones wait in its heap). A tuning knob only: the order of events never depends on it.
  void set_event_horizon(Delta horizon);

  // Parallel runs. The LPs are spread over `count` partitions (`lp_partition[lp]`, every
  // node LP; the global LP has a partition of its own), each with its own event list, run
  // by `threads` threads in windows no longer than `lookahead`: an event one partition
  // schedules for another's LP must lie at least `lookahead` ahead (a frame over a cut
  // link), and then joins that list at the window's end. The global LP's events run
  // between windows, on one thread, where they may touch any node. Events run in the same
  // order within each LP, and the same LP-to-LP order, as in a serial run, so the results
  // are the same for any partitioning and thread count. Call before the run, after the
  // handlers are registered; events already scheduled move to their partitions.
  void set_partitions(const std::vector<uint32_t>& lp_partition, uint32_t count, Delta lookahead,
                      uint32_t threads);
  bool parallel() const { return parallel_; }
  // Several processes (MPI ranks, sim/ranks.h), after set_partitions: this rank runs the
  // partitions `partition_rank` gives it (the others' events it drops, as their ranks run
  // them), and between windows trades with the other ranks the events that cross to their
  // partitions (through `codec`) and agrees with them where the next window starts. The
  // global LP's events run on every rank, for the nodes each owns. Every rank must build
  // the same model and make the same calls.
  void set_ranks(RankGroup& group, const std::vector<uint32_t>& partition_rank,
                 RemoteEventCodec& codec);
  RankGroup* ranks() const { return ranks_; }
  // Over several ranks, the smallest of every rank's `key` (a collective).
  EventKey min_over_ranks(EventKey key) const;
  // The rank that runs node LP `lp` (0 in a run of one process).
  uint32_t rank_of_lp(LpId lp) const { return ranks_ ? partition_rank_[lp_partition_[lp]] : 0; }
  // Whether this process runs LP `lp`'s events (always, but in a run over several ranks).
  bool owns_lp(LpId lp) const { return !ranks_ || lp == kGlobalLp || owned_[lp_partition_[lp]]; }
  uint32_t partition_count() const { return parallel() ? uint32_t(parts_.size() - 1) : 1; }
  uint32_t thread_count() const { return threads_; }  // at most one per partition
  Delta lookahead() const { return lookahead_; }
  const ParallelProfile& parallel_profile() const { return profile_; }
  // Called after each window of a parallel run, before the global events that follow it,
  // on one thread while the others wait: where state the partitions kept per lane is
  // merged into what a serial run would have had at that point (it may schedule events).
  void add_window_hook(std::function<void()> hook) { window_hooks_.push_back(std::move(hook)); }

  // Runs events with time <= until (or until a stop, or no events are left).
  void run_until(Time until);
  // Asks the run to stop. It stops at the next multiple of the stop quantum after the
  // asking event's time, once every event before that has run: the same point however the
  // run is partitioned (a parallel run's windows never cross a multiple of the quantum, and
  // a partition cannot stop the others at once). A run_until that ends before that point
  // leaves the stop pending for the next; one called after the stop was reached resumes.
  void stop() { cur().stop_requested = true; }
  // A window hook's stop: as if an event of the window just run had asked.
  void stop_in_window() { note_stop(window_start_); }
  // The stop was asked for and reached: every event before stop_time() has run.
  bool stopped() const { return stopped_; }
  // Where a stop asked for takes effect (Time::never(): none asked for).
  Time stop_time() const { return stop_at_; }
  // The grid stops fall on (1 ps unless set: the rest of the asking picosecond runs). A
  // network sets its smallest link delay, the lookahead of any partitioning of it, so that
  // windows need not be cut shorter than the lookahead.
  void set_stop_quantum(Delta quantum);
  Delta stop_quantum() const { return stop_quantum_; }

 private:
  // An event in the past would break causality: a bug in the model, never input. Aborts.
  [[noreturn]] static void scheduled_in_past(Time when, Time now);
  [[noreturn]] void sequence_overflow(LpId lp) const;
  [[noreturn]] void crossed_inside_window(const SimPartition& p, LpId lp, Time when) const;

  template <class Handler>
  static void dispatch(void* handler, uint32_t kind, uint64_t arg) {
    static_cast<Handler*>(handler)->on_event(kind, arg);
  }
  // With its LP beside it: a handler scheduling its own events reads the entry its event
  // just ran through, where a table of LPs apart cost 0.42 M L1 data misses of 49.2 M
  // (cachegrind, websearch-8x8 for 1 ms; the larger entry costs the loop 0.27 M back).
  // Since the ports name their own LP (EgressPort::schedule_tx_done) the entry's LP is read
  // less; a 16-byte entry with the LPs apart then took 0.33 M fewer misses and no wall time
  // (docs/performance.md, issue 52's eighth step), so the entry stays as it is.
  struct HandlerEntry {
    void* object;
    void (*on_event)(void* object, uint32_t kind, uint64_t arg);
    LpId lp;  // its events run here (kAnyLp: where they are scheduled)
  };

  // The partition whose event runs on this thread: the one of a serial run; in a parallel
  // run the worker's, or (setup, results, global events) the global LP's.
  // The serial partition is the simulator's own member: no pointer to follow on the paths
  // every event takes.
  [[gnu::always_inline]] SimPartition& cur() const {
    if (!parallel_) [[likely]]
      return solo_;
    return parallel_cur();
  }
  const SimPartition& first_partition() const { return parallel_ ? *parts_.front() : solo_; }
  // Out of line: the thread-local's access code stays off every inlined call's path.
  [[gnu::noinline]] SimPartition& parallel_cur() const;
  [[gnu::always_inline]] LpId exec_lp(const SimPartition& p, uint32_t target) const {
    const LpId lp = handlers_[target].lp;
    return lp == kAnyLp ? p.current_lp : lp;
  }
  // The next sequence number of the current LP: its id above its own count. Each LP's
  // entry starts at its id shifted into place (name_lps), so a schedule pays one increment;
  // a count that outgrew its 2^40 would reach the next LP's ids, which check_sequences
  // finds at the end of the run.
  [[gnu::always_inline]] uint64_t next_seq(SimPartition& p) { return lp_counts_[p.current_lp]++; }
  static void enter_lp(SimPartition& p, LpId lp) { p.current_lp = lp; }
  // LPs [lp_count_, upto) get their entries (before the run: a handler's LP, run_as).
  void name_lps(LpId upto);
  // Aborts if an LP's count outgrew its sequence bits.
  void check_sequences() const;
  [[gnu::always_inline]] void push_solo(LpId lp, Time when, uint64_t seq, uint32_t target,
                                        uint32_t kind, uint64_t arg) {
    if (when < solo_.now) [[unlikely]]
      scheduled_in_past(when, solo_.now);
    assert(kind < (1u << kEventKindBits) && lp <= kGlobalLp);
    solo_.queue.push_keyed(when, seq, EventPayload{target, kind | (lp << kEventKindBits), arg});
  }
  [[gnu::noinline]] void push_parallel(SimPartition& p, LpId lp, Time when, uint64_t seq,
                                       uint32_t target, uint32_t kind, uint64_t arg);
  // A parallel run's push: into this partition's list, another's outbox, or (from the
  // global LP, between windows) straight into the other's list.
  void route(SimPartition& p, LpId lp, Time when, uint64_t seq, const EventPayload& payload);
  // The partitions that hold events: the serial one, or a parallel run's (solo_ is mutable,
  // parts_ hold pointers: const readers and writers alike get a SimPartition&).
  template <class Fn>
  void for_each_partition(Fn&& fn) const {
    if (!parallel_) {
      fn(solo_);
      return;
    }
    for (const auto& p : parts_) fn(*p);
  }
  void run_serial(SimPartition& p, Time until);
  // The first multiple of the stop quantum after t.
  Time next_stop_point(Time t) const {
    return Time{(t.ps / stop_quantum_.ps + 1) * stop_quantum_.ps};
  }
  // A stop was asked for at time t: fix where it takes effect (the first ask counts).
  void note_stop(Time t) {
    if (stop_at_ == Time::never()) stop_at_ = next_stop_point(t);
  }
  // The key no event of this run_until may reach: until's next picosecond, or the stop.
  EventKey run_bound(Time until) const;
  void run_parallel(Time until);
  // Runs partition `p`'s events before window_end_ (a worker), or one event (global).
  void run_window(SimPartition& p);
  void run_event(SimPartition& p, const EventEntry& e);
  // Between windows: runs the global events due and plans the next window; false when the
  // run is over.
  bool plan_window(Time until);
  // Adds the window just run to the profile's model of more cores.
  void model_cores(uint64_t busiest);
  std::vector<uint64_t> model_load_;
  // Files into partition `d`'s list the events the other partitions sent it in the window
  // of parity `parity`.
  void join_inbox(SimPartition& d, uint32_t parity);
  // Every event still in an outbox filed (the run's end).
  void join_all_outboxes();
  // A run over several ranks, between windows: sends the window's events for other ranks'
  // partitions and files what they sent; every rank learns each partition's events of the
  // window, whether any asked to stop (returned) and the smallest front (agreed_front_).
  bool trade_with_ranks(bool asked);
  // A global event's event for partition `dest`, scheduled as LP `from`: whether this rank
  // files it now (else it is dropped, or waits for the next trade).
  bool route_from_global_over_ranks(LpId from, uint32_t dest, EventKey key,
                                    const EventPayload& payload);

  RankGroup* ranks_ = nullptr;
  RemoteEventCodec* codec_ = nullptr;
  std::vector<uint32_t> partition_rank_;
  std::vector<uint8_t> owned_;  // by partition: this rank runs it
  EventKey agreed_front_ = 0;   // the smallest front over the ranks, after the last trade

  std::vector<HandlerEntry> handlers_;
  // Events scheduled so far by each LP, indexed by its id: one entry for every possible LP
  // (2^24, the global one last), so that entering an LP is one store. Pages no LP touches
  // are never committed (LpCounts). Each entry is touched only by its own LP's partition.
  struct FreeCounts {
    void operator()(uint64_t* p) const;
  };
  std::unique_ptr<uint64_t[], FreeCounts> lp_counts_;
  LpId lp_count_ = 0;          // node LPs named by handlers so far
  mutable SimPartition solo_;  // the one partition of a serial run
  bool parallel_ = false;
  std::vector<std::unique_ptr<SimPartition>> parts_;  // a parallel run's: nodes', then global
  std::vector<uint32_t> lp_partition_;
  uint32_t threads_ = 1;
  Delta lookahead_;
  EventKey window_end_ = 0;  // the window running now ends before this key
  uint32_t parity_ = 0;      // the window's parity: which outboxes it fills
  // The node partitions in the order the threads take them each window: the busiest of the
  // last window first, so that the last to finish is a short one.
  std::vector<uint32_t> order_;
  Time window_start_;  // and starts at this time
  Delta stop_quantum_ = Delta{1};
  Time stop_at_ = Time::never();
  bool stopped_ = false;
  ParallelProfile profile_;
  std::vector<std::function<void()>> window_hooks_;
  static inline thread_local SimPartition* tls_partition_ = nullptr;
};

}  // namespace rocelab
