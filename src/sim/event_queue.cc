#include "sim/event_queue.h"

namespace rocelab {

// The first busy slot at or after the cursor's, going round once: every event in the wheel
// lies within one lap of the cursor, so this is the earliest slot.
size_t EventQueue::first_busy_slot() const {
  const size_t from = cursor_ & (kSlots - 1);
  size_t w = from >> 6;
  const uint64_t here = busy_[w] & (~uint64_t{0} << (from & 63));
  if (here) return w * 64 + static_cast<size_t>(std::countr_zero(here));
  const uint64_t later = w + 1 < 64 ? busy_words_ & (~uint64_t{0} << (w + 1)) : 0;
  // Past the end, the lap continues from slot 0 up to (and into) the cursor's word.
  w = static_cast<size_t>(std::countr_zero(later ? later : busy_words_));
  return w * 64 + static_cast<size_t>(std::countr_zero(busy_[w]));
}

void EventQueue::sort_slot(size_t slot) {
  for (uint8_t i = head_[slot] + 1; i < tail_[slot]; ++i) {
    const uint32_t n = slots_[slot].node[i];
    insert_in_order(slot, i, n, nodes_[n].entry.key);
  }
  sorted_[slot] = 1;
}

EventKey EventQueue::front_key() {
  if (wheel_size_ > 0 && !front_known_) front_slot_ = front_slot();
  const EventKey wheel_front = wheel_size_ > 0 ? head_key(front_slot_) : kNoKey;
  front_in_wheel_ = wheel_front < far_front_;
  front_known_ = true;
  return front_in_wheel_ ? wheel_front : far_front_;
}

Event EventQueue::pop() {
  if (!front_known_) front_key();
  front_known_ = false;
  const EventEntry e = front_in_wheel_ ? unlink_front(front_slot_) : pop_far();
  // Nothing left in the wheel is earlier than the event taken.
  cursor_ = static_cast<uint64_t>(event_key_time(e.key)) >> width_log2_;
  return e.event();
}

void EventQueue::set_slot_width_log2(int width_log2) {
  for (size_t slot = 0; slot < kSlots; ++slot) {
    for (uint8_t i = head_[slot]; i < tail_[slot]; ++i) {
      const uint32_t n = slots_[slot].node[i];
      push_far(nodes_[n].entry);
      free_nodes_.push_back(n);
    }
    head_[slot] = 0;
    tail_[slot] = 0;
    sorted_[slot] = 0;
  }
  busy_ = {};
  busy_words_ = 0;
  wheel_size_ = 0;
  front_known_ = false;
  width_log2_ = width_log2;
  cursor_ = 0;
}

}  // namespace rocelab
