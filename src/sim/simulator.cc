#include "sim/simulator.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

namespace rocelab {

void Simulator::FreeCounts::operator()(uint64_t* p) const {
  std::free(p);
}

Simulator::Simulator() {
  // calloc maps a block this large from zero pages the kernel commits only when touched:
  // the node LPs' first entries and the global LP's last one.
  auto* counts = static_cast<uint64_t*>(std::calloc(size_t{kGlobalLp} + 1, sizeof(uint64_t)));
  if (!counts) throw std::bad_alloc();
  lp_counts_.reset(counts);
  lp_counts_[kGlobalLp] = uint64_t{kGlobalLp} << kLpSeqBits;
  solo_.queue.reserve(1 << 12);
  enter_lp(solo_, kGlobalLp);
}

Simulator::~Simulator() = default;

SimPartition& Simulator::parallel_cur() const {
  return tls_partition_ ? *tls_partition_ : *parts_.back();
}

uint64_t Simulator::events_processed() const {
  uint64_t n = 0;
  for_each_partition([&](const SimPartition& p) { n += p.events_processed; });
  // Every rank runs the global LP's events: rank 0 counts them, so that the ranks' counts
  // add up to the run's.
  if (ranks_ && ranks_->rank() != 0) n -= parts_.back()->events_processed;
  return n;
}

size_t Simulator::pending_events() const {
  size_t n = 0;
  for_each_partition([&](const SimPartition& p) { n += p.queue.size(); });
  return n;
}

void Simulator::set_stop_quantum(Delta quantum) {
  if (quantum.ps <= 0) throw std::invalid_argument("the stop quantum must be positive");
  stop_quantum_ = quantum;
}

EventKey Simulator::run_bound(Time until) const {
  EventKey bound = until.ps == INT64_MAX ? EventQueue::kNoKey : make_event_key(until.ps + 1, 0);
  if (stop_at_ != Time::never()) bound = std::min(bound, make_event_key(stop_at_.ps, 0));
  return bound;
}

void Simulator::scheduled_in_past(Time when, Time now) {
  std::fprintf(stderr, "rocelab: internal error: event scheduled at %lld ps before now %lld ps\n",
               static_cast<long long>(when.ps), static_cast<long long>(now.ps));
  std::abort();
}

void Simulator::sequence_overflow(LpId lp) const {
  std::fprintf(stderr, "rocelab: internal error: LP %u scheduled 2^%d events\n", lp, kLpSeqBits);
  std::abort();
}

void Simulator::name_lps(LpId upto) {
  for (; lp_count_ < upto; ++lp_count_)
    lp_counts_[lp_count_] = static_cast<uint64_t>(lp_count_) << kLpSeqBits;
}

void Simulator::check_sequences() const {
  for (LpId lp = 0; lp < lp_count_; ++lp)
    if (origin_lp(lp_counts_[lp]) != lp) sequence_overflow(lp);
  if (origin_lp(lp_counts_[kGlobalLp]) != kGlobalLp) sequence_overflow(kGlobalLp);
}

void Simulator::push_parallel(SimPartition& p, LpId lp, Time when, uint64_t seq, uint32_t target,
                              uint32_t kind, uint64_t arg) {
  if (when < p.now) [[unlikely]]
    scheduled_in_past(when, p.now);
  assert(kind < (1u << kEventKindBits) && lp <= kGlobalLp);
  route(p, lp, when, seq, EventPayload{target, kind | (lp << kEventKindBits), arg});
}

void Simulator::crossed_inside_window(const SimPartition& p, LpId lp, Time when) const {
  std::fprintf(stderr,
               "rocelab: internal error: LP %u scheduled an event for LP %u at %lld ps, inside "
               "the window that ends at %lld ps (lookahead %lld ps): LPs of different "
               "partitions must be at least the lookahead apart\n",
               p.current_lp, lp, static_cast<long long>(when.ps),
               static_cast<long long>(event_key_time(window_end_)),
               static_cast<long long>(lookahead_.ps));
  std::abort();
}

void Simulator::set_handler_lp(uint32_t target, LpId lp) {
  if (lp != kAnyLp && lp > kGlobalLp)
    throw std::invalid_argument("LP " + std::to_string(lp) + " is beyond the 2^24 a run can have");
  handlers_[target].lp = lp;
  if (lp < kGlobalLp) name_lps(lp + 1);
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
  const Time now = this->now();
  if (slot.deadline > now) {  // moved later: follow it
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
  for_each_partition([&](SimPartition& p) {
    EventQueue& q = p.queue;
    // Slots of at least 256 ps to start with: the wheel makes them finer itself where the
    // fabric's events are dense enough to fill them.
    int width_log2 = 8;
    while ((int64_t{1} << width_log2) * static_cast<int64_t>(q.slots()) < horizon.ps &&
           width_log2 < 40)
      ++width_log2;
    if (width_log2 != q.slot_width_log2()) q.set_slot_width_log2(width_log2);
  });
}

void Simulator::set_partitions(const std::vector<uint32_t>& lp_partition, uint32_t count,
                               Delta lookahead, uint32_t threads) {
  if (count == 0) throw std::invalid_argument("a parallel run needs at least one partition");
  if (lookahead.ps <= 0)
    throw std::invalid_argument("a parallel run needs a positive lookahead (the cut links' delay)");
  if (lp_partition.size() < lp_count_)
    throw std::invalid_argument("set_partitions: " + std::to_string(lp_count_) +
                                " LPs, a partition for " + std::to_string(lp_partition.size()));
  for (const uint32_t part : lp_partition)
    if (part >= count)
      throw std::invalid_argument("set_partitions: partition " + std::to_string(part) + " of " +
                                  std::to_string(count));
  // The events queued so far, to be filed again by the LP each runs at.
  std::vector<EventEntry> queued;
  Time now = Time::zero();
  for_each_partition([&](SimPartition& p) {
    now = std::max(now, p.now);
    EventEntry e;
    while (p.queue.take_before(EventQueue::kNoKey, e)) queued.push_back(e);
  });
  // Each partition holds about 1/count of the events: slots wider by about that keep its
  // wheel's events as dense and the lines it touches per window as few, so that the
  // partitions' wheels together stay in the cache one wheel fits in. bench_macro
  // websearch-8x8 on 8 partitions (cachegrind, a 1 MB last level): read misses 3.14 M at
  // the serial width, 2.51 M 4x wider, 1.82 M 8x, 1.26 M 16x, 1.34 M 32x (serial: 0.37 M).
  // The wheel narrows its slots again where they fill up.
  const int width_log2 =
      first_partition().queue.slot_width_log2() + static_cast<int>(std::bit_width(count - 1)) + 1;
  parts_.clear();
  for (uint32_t i = 0; i <= count; ++i) {
    parts_.push_back(std::make_unique<SimPartition>());
    SimPartition& p = *parts_.back();
    if (p.queue.slot_width_log2() != width_log2) p.queue.set_slot_width_log2(width_log2);
    p.now = now;
    p.index = i;
    p.outbox[0].resize(count + 1);
    p.outbox[1].resize(count + 1);
    enter_lp(p, kGlobalLp);
  }
  parallel_ = true;
  lp_partition_ = lp_partition;
  lookahead_ = lookahead;
  // A thread beyond the partitions would only wait at every barrier (and, beyond the
  // cores, make each barrier a round of context switches: 2.6 ms per window, measured with
  // 8 threads on 4 partitions on 2 busy cores).
  threads_ = std::clamp(threads, 1u, count);
  parity_ = 0;
  order_.resize(count);
  for (uint32_t i = 0; i < count; ++i) order_[i] = i;
  profile_ = ParallelProfile{};
  profile_.partition_events.assign(count, 0);
  for (const EventEntry& e : queued) {
    const LpId lp = e.payload.kind >> kEventKindBits;
    SimPartition& d = *parts_[lp == kGlobalLp ? count : lp_partition_[lp]];
    d.queue.push_keyed(Time{event_key_time(e.key)}, static_cast<uint64_t>(e.key), e.payload);
  }
  for (const auto& p : parts_) p->front = p->queue.peek_key();
}

void Simulator::set_ranks(RankGroup& group, const std::vector<uint32_t>& partition_rank,
                          RemoteEventCodec& codec) {
  if (!parallel_) throw std::logic_error("set_ranks: set the partitions first");
  const size_t nodes = parts_.size() - 1;
  if (partition_rank.size() != nodes)
    throw std::invalid_argument("set_ranks: a rank for each of the " + std::to_string(nodes) +
                                " partitions");
  ranks_ = &group;
  codec_ = &codec;
  partition_rank_ = partition_rank;
  owned_.assign(nodes, 0);
  uint32_t mine = 0;
  for (uint32_t i = 0; i < nodes; ++i) {
    if (partition_rank[i] >= group.size())
      throw std::invalid_argument("set_ranks: rank " + std::to_string(partition_rank[i]) + " of " +
                                  std::to_string(group.size()));
    owned_[i] = partition_rank[i] == group.rank();
    if (owned_[i]) {
      ++mine;
      continue;
    }
    // Its own rank runs it, from the same events (every rank built the same model).
    SimPartition& p = *parts_[i];
    EventEntry e;
    while (p.queue.take_before(EventQueue::kNoKey, e)) {
    }
    p.front = EventQueue::kNoKey;
  }
  threads_ = std::clamp<uint32_t>(threads_, 1, std::max<uint32_t>(1, mine));
}

EventKey Simulator::min_over_ranks(EventKey key) const {
  for (const EventKey k : gather_values(*ranks_, std::vector<EventKey>{key}))
    key = std::min(key, k);
  return key;
}

namespace {
struct PartitionEvents {
  uint32_t partition;
  uint64_t events;
};
}  // namespace

bool Simulator::trade_with_ranks(bool asked) {
  const auto nodes = static_cast<uint32_t>(parts_.size() - 1);
  // Every rank's message to every other starts with what the ranks agree on: its stop ask,
  // its partitions' smallest key (what it holds or sent), and their window's events.
  EventKey front = EventQueue::kNoKey;
  uint32_t mine = 0;
  for (uint32_t i = 0; i < nodes; ++i) {
    if (!owned_[i]) continue;
    front = std::min(front, parts_[i]->front);
    ++mine;
  }
  // The frames for other ranks first: what a global event sent (route_from_global_over_
  // ranks) may lie before its partition's front as its window left it.
  std::vector<Bytes> frames(ranks_->size());
  for (uint32_t s = 0; s < nodes; ++s) {
    if (!owned_[s]) continue;
    for (uint32_t d = 0; d < nodes; ++d) {
      if (owned_[d]) continue;
      std::vector<EventEntry>& box = parts_[s]->outbox[parity_][d];
      if (box.empty()) continue;
      ByteWriter w(frames[partition_rank_[d]]);
      for (const EventEntry& e : box) {
        front = std::min(front, e.key);
        w.put(d);
        codec_->encode(e, w);
      }
      box.clear();
    }
  }
  std::vector<Bytes> out(ranks_->size());
  for (uint32_t r = 0; r < out.size(); ++r) {
    if (r == ranks_->rank()) continue;
    ByteWriter w(out[r]);
    w.put(static_cast<uint8_t>(asked));
    w.put(front);
    w.put(mine);
    for (uint32_t i = 0; i < nodes; ++i)
      if (owned_[i]) w.put(PartitionEvents{i, parts_[i]->window_events});
    w.put_raw(frames[r].data(), frames[r].size());
  }
  const std::vector<Bytes> in = ranks_->exchange(std::move(out));
  for (uint32_t r = 0; r < in.size(); ++r) {
    if (r == ranks_->rank()) continue;
    ByteReader rd(in[r]);
    asked |= rd.get<uint8_t>() != 0;
    front = std::min(front, rd.get<EventKey>());
    for (auto n = rd.get<uint32_t>(); n > 0; --n) {
      const auto pe = rd.get<PartitionEvents>();
      parts_.at(pe.partition)->window_events = pe.events;
    }
    while (!rd.done()) {
      const auto d = rd.get<uint32_t>();
      if (d >= nodes || !owned_[d])
        throw std::runtime_error("rank " + std::to_string(r) + " sent an event for partition " +
                                 std::to_string(d) + ", which this rank does not run");
      const EventEntry e = codec_->decode(rd);
      SimPartition& p = *parts_[d];
      p.queue.push_keyed(Time{event_key_time(e.key)}, static_cast<uint64_t>(e.key), e.payload);
      p.front = std::min(p.front, e.key);
    }
  }
  // What another rank holds or sent lies at or beyond its front: the smallest front over
  // the ranks is where the next window may start (what a global event adds aside).
  agreed_front_ = front;
  return asked;
}

void Simulator::route(SimPartition& p, LpId lp, Time when, uint64_t seq,
                      const EventPayload& payload) {
  const auto global = static_cast<uint32_t>(parts_.size() - 1);
  if (lp != kGlobalLp && lp >= lp_partition_.size()) {
    std::fprintf(stderr, "rocelab: internal error: LP %u has no partition\n", lp);
    std::abort();
  }
  const uint32_t dest = lp == kGlobalLp ? global : lp_partition_[lp];
  SimPartition& d = *parts_[dest];
  if (&d == &p) {
    d.queue.push_keyed(when, seq, payload);
    return;
  }
  const EventKey key = make_event_key(when.ps, seq);
  // The global LP runs between windows, when no worker runs: it files events directly.
  if (tls_partition_ == nullptr) {
    if (ranks_ && !route_from_global_over_ranks(p.current_lp, dest, key, payload)) return;

    d.queue.push_keyed(when, seq, payload);
    d.front = std::min(d.front, key);
    return;
  }
  if (key < window_end_) crossed_inside_window(p, lp, when);
  p.outbox[parity_][dest].push_back(EventEntry{key, payload});
  if (dest != global) p.sent_front = std::min(p.sent_front, key);
}

// Over several ranks every rank runs the global LP's events. What one schedules as the
// global LP, every rank schedules alike: a rank keeps it for its own partitions. What it
// schedules as a node (run_as: a fault acting on a port) only the node's rank may keep; for
// another rank's partition (a frame the port then starts on a cut link) it waits in the
// node's outbox for the next window's trade, and counts in the node's front.
bool Simulator::route_from_global_over_ranks(LpId from, uint32_t dest, EventKey key,
                                             const EventPayload& payload) {
  if (from == kGlobalLp) return owned_[dest];
  const uint32_t source = lp_partition_[from];
  if (!owned_[source]) return false;  // the node's own rank does it
  if (owned_[dest]) return true;
  SimPartition& s = *parts_[source];
  s.outbox[parity_ ^ 1][dest].push_back(EventEntry{key, payload});  // the next window's
  s.front = std::min(s.front, key);
  return false;
}

void Simulator::join_inbox(SimPartition& d, uint32_t parity) {
  for (const auto& s : parts_) {
    std::vector<EventEntry>& box = s->outbox[parity][d.index];
    for (const EventEntry& e : box)
      d.queue.push_keyed(Time{event_key_time(e.key)}, static_cast<uint64_t>(e.key), e.payload);
    box.clear();
  }
}

void Simulator::join_all_outboxes() {
  for (uint32_t parity = 0; parity < 2; ++parity)
    for (const auto& d : parts_) join_inbox(*d, parity);
  for (const auto& p : parts_) p->front = p->queue.peek_key();
}

void Simulator::run_until(Time until) {
  if (stopped_) {  // a new run after a stop: resume
    stopped_ = false;
    stop_at_ = Time::never();
  }
  if (!parallel_) [[likely]] {
    run_serial(solo_, until);
  } else {
    run_parallel(until);
  }
  check_sequences();
}

void Simulator::run_serial(SimPartition& p, Time until) {
  p.stop_requested = false;
  EventKey bound = run_bound(until);
  EventEntry e;
  while (p.queue.take_before(bound, e)) {
    p.now = Time{event_key_time(e.key)};
    ++p.events_processed;
    // The next event's handler is loaded while this one runs: each event's first miss is
    // its handler object, last touched many events ago.
    const uint32_t next = p.queue.next_target_hint();
    if (next != EventQueue::kNoTarget) __builtin_prefetch(handlers_[next].object);
    enter_lp(p, e.payload.kind >> kEventKindBits);
    const HandlerEntry& h = handlers_[e.payload.target];
    h.on_event(h.object, e.payload.kind & ((1u << kEventKindBits) - 1), e.payload.arg);
    if (p.stop_requested) [[unlikely]] {
      p.stop_requested = false;
      note_stop(p.now);
      bound = run_bound(until);
    }
  }
  enter_lp(p, kGlobalLp);
  if (stop_at_ != Time::never() && p.queue.peek_key() >= make_event_key(stop_at_.ps, 0))
    stopped_ = true;
  // With events left beyond `until`, the clock stands at `until`; with none left, or
  // stopped, it stays at the last event, so that a run reports when it really ended.
  if (!stopped_ && !p.queue.empty() && p.now < until) p.now = until;
}

void Simulator::run_event(SimPartition& p, const EventEntry& e) {
  p.now = Time{event_key_time(e.key)};
  p.current_key = e.key;
  ++p.events_processed;
  ++p.window_events;
  enter_lp(p, e.payload.kind >> kEventKindBits);
  const HandlerEntry& h = handlers_[e.payload.target];
  h.on_event(h.object, e.payload.kind & ((1u << kEventKindBits) - 1), e.payload.arg);
}

void Simulator::run_window(SimPartition& p) {
  tls_partition_ = &p;
  tls_sim_lane = p.index + 1;
  // What the others sent it in the last window: all at or beyond this window's start.
  join_inbox(p, parity_ ^ 1);
  p.sent_front = EventQueue::kNoKey;
  EventEntry e;
  // A stop asked for here takes effect at the window's end: every partition then stands
  // at the same point of the order.
  while (p.queue.take_before(window_end_, e)) run_event(p, e);
  p.front = std::min(p.queue.peek_key(), p.sent_front);
  enter_lp(p, kGlobalLp);
  tls_partition_ = nullptr;
  tls_sim_lane = 0;
}

void Simulator::model_cores(uint64_t busiest) {
  // List scheduling in the order the threads took the partitions: each to the least loaded
  // core (a core that finishes first takes the next). A min-heap of the cores' loads.
  std::vector<uint64_t>& load = model_load_;
  const auto more = std::greater<uint64_t>();
  for (size_t m = 0; m < ParallelProfile::kModelCores.size(); ++m) {
    const uint32_t cores = ParallelProfile::kModelCores[m];
    if (cores >= order_.size()) {  // a core per partition: the busiest partition
      profile_.makespan_events[m] += busiest;
      continue;
    }
    load.assign(cores, 0);
    for (const uint32_t i : order_) {
      std::pop_heap(load.begin(), load.end(), more);
      load.back() += parts_[i]->window_events;
      std::push_heap(load.begin(), load.end(), more);
    }
    profile_.makespan_events[m] += *std::max_element(load.begin(), load.end());
  }
}

bool Simulator::plan_window(Time until) {
  const size_t nodes = parts_.size() - 1;
  uint64_t busiest = 0, events = 0;
  SimPartition& global = *parts_.back();
  // Over several ranks the global LP's list is the same on every rank: no node event may
  // add to it (what would, a watchdog's, is refused).
  if (ranks_)
    for (const auto& p : parts_)
      if (!p->outbox[parity_][nodes].empty())
        throw std::runtime_error(
            "a node's event scheduled a global event, which a run over several ranks cannot "
            "carry");
  join_inbox(global, parity_);  // the global LP's events from this window
  // A stop asked for in the window: the window lies between two stop points, so the
  // first after its start is the one after the asking event.
  bool asked = false;
  for (size_t i = 0; i < nodes; ++i) {
    asked |= parts_[i]->stop_requested;
    parts_[i]->stop_requested = false;
  }
  if (ranks_) asked = trade_with_ranks(asked);
  for (size_t i = 0; i < nodes; ++i) {
    SimPartition& p = *parts_[i];
    busiest = std::max(busiest, p.window_events);
    events += p.window_events;
    profile_.partition_events[i] += p.window_events;
  }
  if (events > 0) model_cores(busiest);
  // Longest first next time: a window's partitions are much like the last one's.
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    return parts_[a]->window_events > parts_[b]->window_events;
  });
  for (size_t i = 0; i < nodes; ++i) parts_[i]->window_events = 0;
  if (events > 0) {
    ++profile_.windows;
    profile_.node_events += events;
    profile_.critical_path_events += busiest;
  }
  if (asked) note_stop(window_start_);
  for (const auto& hook : window_hooks_) hook();
  bool ran_global = false;
  for (;;) {
    // Each partition's front after its window, lowered by what global events filed since.
    EventKey node_front = EventQueue::kNoKey;
    for (size_t i = 0; i < nodes; ++i) node_front = std::min(node_front, parts_[i]->front);
    const EventKey global_front = global.queue.peek_key();
    if (ranks_) {  // every rank plans the same window
      // After a global event, what it scheduled on any rank; else what the trade agreed.
      if (ran_global) {
        node_front = min_over_ranks(node_front);
      } else {
        if (node_front < agreed_front_)
          throw std::logic_error("a window hook scheduled a node event over several ranks");
        node_front = agreed_front_;
      }
    }
    const EventKey first = std::min(node_front, global_front);
    const EventKey bound = run_bound(until);
    if (first >= bound) {  // kNoKey: no events left
      if (stop_at_ != Time::never() && first >= make_event_key(stop_at_.ps, 0)) stopped_ = true;
      return false;
    }
    if (global_front < node_front) {  // a global event: every node has run up to it
      ran_global = true;
      EventEntry e;
      global.queue.take_before(EventQueue::kNoKey, e);
      run_event(global, e);
      enter_lp(global, kGlobalLp);
      global.window_events = 0;
      ++profile_.global_events;
      if (global.stop_requested) {
        global.stop_requested = false;
        note_stop(global.now);
      }
      continue;
    }
    // No longer than the lookahead, and never across a stop point.
    const Time start{event_key_time(node_front)};
    EventKey end = make_event_key(start.ps + lookahead_.ps, 0);
    end = std::min(end, make_event_key(next_stop_point(start).ps, 0));
    end = std::min({end, global_front, bound});
    window_start_ = start;
    window_end_ = end;
    parity_ ^= 1;
    return true;
  }
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void Simulator::run_parallel(Time until) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point run_start = Clock::now();
  for (auto& p : parts_) p->stop_requested = false;
  profile_.thread_busy_s.resize(threads_, 0.0);
  std::vector<double> window_busy_s(threads_, 0.0);  // each thread its own entry
  std::atomic<uint32_t> next{0};
  bool done = false;
  std::exception_ptr error;
  std::mutex error_mutex;
  auto keep_error = [&] {
    const std::lock_guard<std::mutex> lock(error_mutex);
    if (!error) error = std::current_exception();
  };
  // Between windows, on the last thread to arrive: the others wait at the barrier.
  auto between_windows = [&]() noexcept {
    const Clock::time_point t0 = Clock::now();
    // Every thread has arrived: their window times are final.
    const double longest = *std::max_element(window_busy_s.begin(), window_busy_s.end());
    for (const double busy : window_busy_s) profile_.imbalance_s += longest - busy;
    tls_partition_ = nullptr;
    tls_sim_lane = 0;
    try {
      done = error != nullptr || !plan_window(until);
    } catch (...) {
      keep_error();
      done = true;
    }
    next.store(0, std::memory_order_relaxed);
    profile_.between_windows_s += seconds_since(t0);
  };
  std::barrier sync(static_cast<std::ptrdiff_t>(threads_), between_windows);
  // Each window, each thread takes the next partition not taken yet: a busy partition
  // holds one thread while the others run the rest.
  auto work = [&](uint32_t thread) {
    double busy_s = 0;
    for (;;) {
      sync.arrive_and_wait();
      if (done) break;
      const Clock::time_point t0 = Clock::now();
      for (uint32_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < order_.size();) {
        if (ranks_ && !owned_[order_[i]]) continue;  // another rank's
        try {
          run_window(*parts_[order_[i]]);
        } catch (...) {
          tls_partition_ = nullptr;
          tls_sim_lane = 0;
          keep_error();
        }
      }
      window_busy_s[thread] = seconds_since(t0);
      busy_s += window_busy_s[thread];
    }
    profile_.thread_busy_s[thread] += busy_s;  // each thread its own entry
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads_; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& t : pool) t.join();
  profile_.run_s += seconds_since(run_start);
  join_all_outboxes();
  if (error) std::rethrow_exception(error);
  // Every partition's clock at the run's end, as a serial run's would stand.
  Time end = Time::zero();
  for (const auto& p : parts_) end = std::max(end, p->now);
  if (ranks_) {  // the latest of every rank's
    uint64_t before_end = UINT64_MAX - static_cast<uint64_t>(end.ps);
    ranks_->min_u64({&before_end, 1});
    end = Time{static_cast<int64_t>(UINT64_MAX - before_end)};
  }
  uint64_t pending = pending_events();
  if (ranks_) ranks_->sum_u64({&pending, 1});
  if (!stopped_ && pending > 0 && end < until) end = until;
  for (auto& p : parts_) p->now = end;
}

}  // namespace rocelab
