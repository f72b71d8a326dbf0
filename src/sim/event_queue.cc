#include "sim/event_queue.h"

#include <cassert>
#include <limits>

namespace rocelab {

// The first busy slot at or after the cursor's, going round once: every event in the wheel
// lies within one lap of the cursor, so this is the earliest slot.
size_t EventQueue::first_busy_slot() const {
  assert(wheel_size_ > 0);
  const size_t from = cursor_ & slot_mask_;
  const size_t w = from >> 6;
  const uint64_t here = busy_[w] & (~uint64_t{0} << (from & 63));
  if (here) return w * 64 + static_cast<size_t>(std::countr_zero(here));
  auto first_in = [this](size_t summary, uint64_t words) {
    const size_t word = summary * 64 + static_cast<size_t>(std::countr_zero(words));
    return word * 64 + static_cast<size_t>(std::countr_zero(busy_[word]));
  };
  // The words after w, then (past the end) the lap continues from slot 0 up to and into
  // the cursor's word.
  const size_t next = w + 1;
  for (size_t s = next >> 6; s < busy_words_.size(); ++s) {
    const uint64_t words =
        busy_words_[s] & (s == (next >> 6) ? ~uint64_t{0} << (next & 63) : ~uint64_t{0});
    if (words) return first_in(s, words);
  }
  for (size_t s = 0;; ++s)
    if (busy_words_[s]) return first_in(s, busy_words_[s]);
}

EventKey EventQueue::front_key() {
  const EventKey wheel_front = wheel_size_ > 0 ? head_key(front_slot()) : kNoKey;
  return wheel_front < far_front_ ? wheel_front : far_front_;
}

Event EventQueue::pop() {
  EventEntry e{};
  take_due(Time{std::numeric_limits<int64_t>::max()}, e);  // the queue must not be empty
  return e.event();
}

void EventQueue::push_slow(EventKey key, const EventPayload& payload) {
  const uint64_t slot_abs = abs_slot(event_key_time(key));
  if (slot_abs - cursor_ <= slot_mask_) {
    const size_t slot = slot_abs & slot_mask_;
    if (slots_[slot].state.tail >= kSlotCapacity && note_full_slot(slot, key)) {
      push_slow(key, payload);  // the wheel grew: file it by the new width
      return;
    }
    if (slots_[slot].state.tail < kSlotCapacity) {
      if (free_node_ == kNoNode) add_nodes(nodes_.empty() ? 64 : nodes_.size());  // double
      link(slot, key, false, payload);
      return;
    }
    ++far_full_;
  } else {
    ++far_beyond_;
  }
  push_far(EventEntry{key, payload});
}

// One push in 16 or more finding its slot full means the slots are too wide for the
// fabric's event rate. A push into a full slot of events of its own picosecond is not
// counted: a burst of simultaneous events (BFC's filters, many frames ending at once) fills
// a slot of any width, and growing would only cost memory.
bool EventQueue::note_full_slot(size_t slot, EventKey key) {
  constexpr uint32_t kCountTo = 1024;
  const SlotState st = slots_[slot].state;
  if (st.head < st.tail &&
      event_key_time(nodes_[slots_[slot].node[st.head]].entry.key) == event_key_time(key))
    return false;
  if (++full_pushes_ < kCountTo) return false;
  const uint64_t pushes = pushes_ - pushes_at_count_;
  full_pushes_ = 0;
  pushes_at_count_ = pushes_;
  if (pushes > uint64_t{16} * kCountTo || width_log2_ <= kMinWidthLog2 ||
      slot_bits() >= kMaxSlotBits)
    return false;
  grow_wheel();
  return true;
}

void EventQueue::size_wheel(int bits) {
  const size_t count = size_t{1} << bits;
  slot_mask_ = count - 1;
  slots_.assign(count, Slot{});
  busy_.assign(count / 64, 0);
  busy_words_.assign((count / 64 + 63) / 64, 0);
  wheel_size_ = 0;
  hint_node_ = kNoNode;
  live_slot_ = kNoSlot;
}

std::vector<uint32_t> EventQueue::listed_nodes() const {
  std::vector<uint32_t> listed;
  listed.reserve(wheel_size_);
  for (size_t slot = 0; slot <= slot_mask_; ++slot)
    for (uint8_t i = slots_[slot].state.head; i < slots_[slot].state.tail; ++i)
      listed.push_back(slots_[slot].node[i]);
  return listed;
}

void EventQueue::grow_wheel() {
  const std::vector<uint32_t> listed = listed_nodes();
  size_wheel(slot_bits() + 1);
  --width_log2_;
  // The new window starts at the old cursor's first half-slot and covers the old window:
  // an old slot's events fall into two new slots, so none overflows.
  cursor_ <<= 1;
  for (const uint32_t n : listed) {
    const EventKey key = nodes_[n].entry.key;
    file(abs_slot(event_key_time(key)) & slot_mask_, n, key, false);
  }
}

void EventQueue::add_nodes(size_t count) {
  const size_t first = nodes_.size();
  nodes_.resize(first + count);
  // Threaded so that the lowest new index is taken first.
  for (size_t i = first + count; i-- > first;) {
    nodes_[i].next_free = free_node_;
    free_node_ = static_cast<uint32_t>(i);
  }
}

void EventQueue::set_slot_width_log2(int width_log2) {
  for (const uint32_t n : listed_nodes()) {
    push_far(nodes_[n].entry);
    free_node(n);
  }
  size_wheel(slot_bits());
  width_log2_ = width_log2;
  cursor_ = 0;
}

}  // namespace rocelab
