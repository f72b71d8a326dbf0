// The event list: a timing wheel for the next few microseconds, a radix heap behind it.
//
// Events are ordered by (time, insertion sequence), so ties break deterministically. Most
// of a fabric's events are due within one link delay plus a frame (the next frame end, the
// next delivery); those go into a wheel of 4096 slots of 2^width_log2 ps each (1.024 ns by
// default, a 4.2 us horizon; more and finer slots in a dense fabric), where a push files
// the event's node in its slot, in key order, and a pop takes the first of the first
// non-empty slot, found from a bitmap. Events beyond the horizon (timers, most of them
// stale by the time they fire) and the rare crowded slot go to the radix heap. A pop
// compares the two fronts, so which store holds an event never changes the order.
// Nothing is allocated per event once the stores reach their working size.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.h"
#include "sim/radix_heap.h"
#include "sim/time.h"

namespace rocelab {

class EventQueue {
 public:
  // The wheel starts with 4096 slots and doubles its slot count, halving the slot width so
  // that the horizon stays, while one push in 16 or more finds its slot full: a dense
  // fabric (a thousand hosts) puts more events in a nanosecond than a slot holds, and
  // every one of them would otherwise go through the heap.
  static constexpr int kMinSlotBits = 12;
  static constexpr int kMaxSlotBits = 16;  // 4 MiB of slots at most
  static constexpr int kMinWidthLog2 = 6;  // 64 ps: finer slots would not split the bursts
  static constexpr int kDefaultWidthLog2 = 10;

  EventQueue() { size_wheel(kMinSlotBits); }

  void reserve(size_t n) {
    if (n > nodes_.size()) add_nodes(n - nodes_.size());
    far_.reserve_per_bucket(n / 16);
  }
  bool empty() const { return size() == 0; }
  size_t size() const { return wheel_size_ + far_.size(); }
  size_t slots() const { return slot_mask_ + 1; }
  int slot_bits() const { return std::countr_one(slot_mask_); }
  // The wheel's horizon: slots() slots of 2^width_log2 ps. Events already in the wheel
  // move to the heap; the order does not change.
  void set_slot_width_log2(int width_log2);
  int slot_width_log2() const { return width_log2_; }
  // Pushes so far, and those the heap took: beyond the wheel's horizon, or into a full
  // slot (a diagnostic: bench_macro reports them).
  uint64_t pushes() const { return pushes_; }
  uint64_t far_pushes_beyond() const { return far_beyond_; }
  uint64_t far_pushes_full() const { return far_full_; }

  // Time of the next event (the queue must not be empty).
  Time top_time() { return Time{event_key_time(front_key())}; }

  // Pushes must not be earlier than the last event taken (the simulator aborts on one); a
  // push earlier than a peeked front (top_time) is fine.
  void push(Time time, uint32_t target, uint32_t kind, uint64_t arg) {
    push_key(make_event_key(time.ps, next_seq_++), true, EventPayload{target, kind, arg});
  }
  // Takes the next sequence number for an event pushed later with push_reserved: among
  // events of its time it then orders as if it had been pushed now. Each reserved number
  // may be pushed once.
  uint64_t reserve_seq() { return next_seq_++; }
  void push_reserved(Time time, uint64_t seq, uint32_t target, uint32_t kind, uint64_t arg) {
    push_key(make_event_key(time.ps, seq), seq + 1 == next_seq_, EventPayload{target, kind, arg});
  }
  // An event whose sequence number comes from elsewhere (the simulator's per-process
  // counters): it orders among events of its time by `seq` alone, wherever it is pushed.
  void push_keyed(Time time, uint64_t seq, const EventPayload& payload) {
    push_key(make_event_key(time.ps, seq), false, payload);
  }

  // Removes and returns the next event (the queue must not be empty).
  Event pop();

  // The target of the event listed after the one take_due just took, when it shares its
  // wheel slot (most often the next event of all); kNoTarget when there is none. A hint
  // only: the simulator prefetches that handler while the current event runs.
  static constexpr uint32_t kNoTarget = UINT32_MAX;
  uint32_t next_target_hint() const {
    return hint_node_ != kNoNode ? nodes_[hint_node_].entry.payload.target : kNoTarget;
  }

  // Removes the next event into `out` if there is one due at or before `until`; false
  // leaves the queue as it was. The simulator's loop: one call per event, where top_time()
  // and pop() would find the front twice.
  [[gnu::always_inline]] bool take_due(Time until, EventEntry& out) {
    return take_before(until.ps == INT64_MAX ? kNoKey : make_event_key(until.ps + 1, 0), out);
  }
  // The same with the bound a key (exclusive): a parallel run's window ends between two
  // events of one picosecond when a global event falls there.
  [[gnu::always_inline]] bool take_before(EventKey bound, EventEntry& out) {
    EventKey best = kNoKey;
    size_t slot = 0;
    if (wheel_size_ > 0) {
      slot = front_slot();
      best = head_key(slot);
    }
    if (far_front_ < best) {  // the heap's front is earlier (kNoKey: the heap is empty)
      if (far_front_ >= bound) return false;
      out = pop_far();
      hint_node_ = kNoNode;
      live_slot_ = kNoSlot;  // its handler may push into a slot before the live one
    } else {
      if (best >= bound) return false;  // kNoKey: the wheel is empty
      out = unlink_front(slot);
    }
    cursor_ = abs_slot(event_key_time(out.key));
    return true;
  }
  // No event has this key: time and sequence both at their maximum.
  static constexpr EventKey kNoKey = ~EventKey{0};
  // The smallest key, kNoKey when the queue is empty.
  EventKey peek_key() { return empty() ? kNoKey : front_key(); }

 private:
  // A slot whose places up to this many have been used since it last emptied sends further
  // events elsewhere (a slot drains from its head, so a freed place is reused only then).
  static constexpr uint8_t kSlotCapacity = 14;
  // A slot's bounds, and the low 32 bits of its last event's time.
  struct SlotState {
    uint8_t head = 0;
    uint8_t tail = 0;
    uint16_t unused = 0;
    uint32_t last_time_low = 0;
  };
  // A slot lists its events' nodes in one cache line, from head to tail, in key order, with
  // its bounds in the same line: a push, a pop and the front's search each touch one line
  // of the slot, not a line of bounds and a line of nodes. A pop takes the head, and the
  // next event's handler is known early. Nearly every push comes in order (a slot holds
  // 3.3 events on average in a synchronised fabric, where many frames end at the same
  // picosecond, and a new event has the largest sequence number yet), which the last
  // time's low bits show without reading another node: it appends. Only the others are
  // inserted among the slot's nodes.
  struct alignas(64) Slot {
    std::array<uint32_t, kSlotCapacity> node;
    SlotState state;
  };
  static_assert(sizeof(Slot) == 64);
  // One node per line half: an entry never straddles two cache lines. A free node links
  // to the next free one through its own memory (no side array to grow and check).
  struct alignas(32) Node {
    union {
      EventEntry entry;
      uint32_t next_free;
    };
  };
  static constexpr uint32_t kNoNode = UINT32_MAX;

  // `fresh`: the key's sequence number is the largest yet given (a push, not a reserved
  // number from earlier), so among events of its time it comes last.
  void push_key(EventKey key, bool fresh, const EventPayload& payload) {
    ++pushes_;
    const uint64_t slot_abs = abs_slot(event_key_time(key));
    // One unsigned comparison: a slot before the cursor wraps round to a large distance.
    // The rare paths (heap, node growth, a full slot) are one out-of-line call, so this
    // one saves no registers: a push is a few loads and stores.
    if (slot_abs - cursor_ <= slot_mask_) [[likely]] {
      const size_t slot = slot_abs & slot_mask_;
      if (slots_[slot].state.tail < kSlotCapacity && free_node_ != kNoNode) [[likely]] {
        link(slot, key, fresh, payload);
        return;
      }
    }
    push_slow(key, payload);
  }
  // Files a new node in `slot`, which has room; the free list must not be empty.
  void link(size_t slot, EventKey key, bool fresh, const EventPayload& payload) {
    const uint32_t n = free_node_;
    free_node_ = nodes_[n].next_free;
    nodes_[n].entry = EventEntry{key, payload};
    file(slot, n, key, fresh);
  }
  void file(size_t slot, uint32_t n, EventKey key, bool fresh) {
    SlotState& st = slots_[slot].state;
    assert(st.tail < kSlotCapacity);
    const uint8_t pos = st.tail++;
    // A slot's events share their time's bits from width_log2_ up (every wheel event lies
    // within one lap of the cursor), so in slots up to 2^32 ps wide their low 32 bits order
    // them.
    const auto low = static_cast<uint32_t>(event_key_time(key));
    // One branch, nearly always taken: the conditions are combined without short circuits,
    // each of which would be a branch on the slot's line, often a cache miss, and hard to
    // predict.
    const uint32_t last = st.last_time_low;
    const bool lows_order = width_log2_ <= 32;
    const bool append = (pos == st.head) | (lows_order & ((low > last) | ((low == last) & fresh)));
    if (append) [[likely]] {
      slots_[slot].node[pos] = n;
      st.last_time_low = low;
    } else {
      insert_in_order(slot, pos, n, key);  // no later time than the last: last_time_low stays
    }
    busy_[slot >> 6] |= uint64_t{1} << (slot & 63);
    busy_words_[slot >> 12] |= uint64_t{1} << ((slot >> 6) & 63);
    ++wheel_size_;
  }
  void free_node(uint32_t n) {
    nodes_[n].next_free = free_node_;
    free_node_ = n;
  }
  // The absolute wheel slot of a time (slot index: & slot_mask_).
  uint64_t abs_slot(int64_t time_ps) const { return static_cast<uint64_t>(time_ps) >> width_log2_; }
  // A push the wheel cannot take as it stands: beyond its horizon, into a full slot, or
  // with no free node. Out of line (event_queue.cc).
  [[gnu::noinline]] void push_slow(EventKey key, const EventPayload& payload);
  // Takes the smallest event of `slot` out of the wheel, and notes the slot's next node as
  // the hint. The hint comes from the bounds in registers: reading the slot's state back
  // whole would wait for the byte just stored in it (no store-to-load forwarding from a
  // narrower store), a stall on every event.
  EventEntry unlink_front(size_t slot) {
    SlotState& st = slots_[slot].state;
    const uint8_t head = st.head;
    const uint8_t tail = st.tail;
    const uint32_t n = slots_[slot].node[head];
    const EventEntry e = nodes_[n].entry;
    free_node(n);  // the line was just read: freeing it costs no miss
    --wheel_size_;
    if (head + 1 == tail) {
      st = SlotState{};
      hint_node_ = kNoNode;
      live_slot_ = kNoSlot;
      busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      if (busy_[slot >> 6] == 0) busy_words_[slot >> 12] &= ~(uint64_t{1} << ((slot >> 6) & 63));
    } else {
      st.head = static_cast<uint8_t>(head + 1);
      hint_node_ = slots_[slot].node[head + 1];
      live_slot_ = slot;
    }
    return e;
  }
  // The heap, with its smallest key kept here: the front is compared with the wheel's on
  // every pop, and the heap (nearly always holding far timers) changes far more rarely.
  void push_far(const EventEntry& e) {
    far_.push(e);
    if (e.key < far_front_) far_front_ = e.key;
  }
  EventEntry pop_far() {
    const EventEntry e = far_.pop();
    far_front_ = far_.empty() ? kNoKey : far_.top().key;
    return e;
  }
  size_t first_busy_slot() const;
  // The first busy slot (the wheel must not be empty). When a slot becomes the front, its
  // other events' nodes are fetched together: pushed a link delay ago, they have left the
  // L1, and its pops would otherwise wait for them one by one.
  size_t front_slot() {
    if (live_slot_ != kNoSlot) return live_slot_;
    const size_t slot = first_busy_slot();
    const Slot& listed = slots_[slot];
    for (uint8_t i = listed.state.head + 1; i < listed.state.tail; ++i)
      __builtin_prefetch(&nodes_[listed.node[i]]);
    return slot;
  }
  EventKey head_key(size_t slot) const {
    return nodes_[slots_[slot].node[slots_[slot].state.head]].entry.key;
  }
  // Lists node `n` (key `key`) at place `pos` of the slot or, moving later ones up, before
  // it: the places from the head to pos - 1 hold events in key order.
  void insert_in_order(size_t slot, uint8_t pos, uint32_t n, EventKey key) {
    Slot& listed = slots_[slot];
    const uint8_t head = listed.state.head;
    while (pos > head && key < nodes_[listed.node[pos - 1]].entry.key) {
      listed.node[pos] = listed.node[pos - 1];
      --pos;
    }
    listed.node[pos] = n;
  }
  // The smallest key, wheel or heap (the queue must not be empty).
  EventKey front_key();
  // Counts a push (key `key`) that found `slot` full; true when the wheel grew.
  bool note_full_slot(size_t slot, EventKey key);
  // An empty wheel of 2^bits slots.
  void size_wheel(int bits);
  // Twice the slots at half the width, the wheel's events filed again.
  void grow_wheel();
  // The nodes the wheel lists, slot by slot (for refiling them; allocates).
  std::vector<uint32_t> listed_nodes() const;
  // Appends `count` nodes to the free list (nodes are indices: moving the array is safe).
  void add_nodes(size_t count);

  int width_log2_ = kDefaultWidthLog2;
  uint64_t slot_mask_ = 0;
  // An absolute slot at or before the last event taken's (its own after a pop; earlier
  // after a growth or a new width): every wheel event lies in [cursor_, cursor_ + slot_mask_].
  uint64_t cursor_ = 0;
  std::vector<Slot> slots_;           // each slot's events are listed in [state.head, state.tail)
  std::vector<uint64_t> busy_;        // bit s: slot s holds events
  std::vector<uint64_t> busy_words_;  // bit w: busy_[w] != 0
  std::vector<Node> nodes_;
  uint32_t free_node_ = kNoNode;  // head of the free list threaded through nodes_
  size_t wheel_size_ = 0;
  RadixHeap far_;
  EventKey far_front_ = kNoKey;  // far_'s smallest key, kNoKey when it is empty
  uint64_t next_seq_ = 0;
  // Growth: pushes that found their slot full since the push count stood here.
  uint64_t pushes_ = 0;
  uint64_t far_beyond_ = 0, far_full_ = 0;
  uint32_t full_pushes_ = 0;
  uint64_t pushes_at_count_ = 0;
  // The node listed after the one take_due just took, in its slot (kNoNode: none).
  uint32_t hint_node_ = kNoNode;
  // The slot of the event take_due just took from the wheel, while it holds more: no event
  // can be pushed before the one just taken, so it is the first busy slot with
  // no search. kNoSlot after the slot empties, a pop from the heap, or a new wheel.
  static constexpr size_t kNoSlot = SIZE_MAX;
  size_t live_slot_ = kNoSlot;
};

}  // namespace rocelab
