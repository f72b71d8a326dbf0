#include "net/drr_scheduler.h"

namespace rocelab {

DrrScheduler::DrrScheduler(size_t num_queues, uint32_t quantum_bytes)
    : num_queues_(static_cast<uint32_t>(num_queues)), quantum_bytes_(quantum_bytes) {
  if (num_queues > kInlineQueues) spill_deficit_.assign(num_queues, 0);
  deficit_ = num_queues > kInlineQueues ? spill_deficit_.data() : inline_deficit_;
  if (num_queues > kListQueues) listed_ = std::make_unique<uint8_t[]>(num_queues);
}

size_t DrrScheduler::pick(const QueueState& queues) {
  if (listed_) return pick_listed(queues);
  // Ports of up to 32 queues keep ready bits: one load instead of a ring and a pause flag
  // per queue visited.
  if (queues.has_ready_mask()) {
    const uint32_t ready = queues.ready_mask();
    return walk(queues, [ready](size_t q) { return ((ready >> q) & 1u) != 0; });
  }
  return walk(queues, [&queues](size_t q) { return queues.ready(q); });
}

template <class Ready>
size_t DrrScheduler::walk(const QueueState& queues, Ready ready) {
  const size_t n = num_queues_;
  // 2n+1 visits always reach a ready queue with enough deficit: at most one visit that
  // earns the quantum, then one that spends it.
  for (size_t step = 0; step < 2 * n + 1; ++step) {
    if (!ready(rr_)) {
      deficit_[rr_] = 0;  // an idle or paused queue keeps no credit
      advance();
      continue;
    }
    if (fresh_) {
      deficit_[rr_] += static_cast<int32_t>(quantum_bytes_);
      fresh_ = false;
    }
    if (int64_t{deficit_[rr_]} >= int64_t{queues.head_bytes(rr_)}) return rr_;
    advance();
  }
  return kNone;
}

// The active list's front is the queue being served; an emptied queue leaves the list, a
// queue whose deficit is spent goes to its back, a paused one too (without credit).
size_t DrrScheduler::pick_listed(const QueueState& queues) {
  const size_t visits = 2 * active_.size() + 1;
  for (size_t step = 0; step < visits && !active_.empty(); ++step) {
    const uint32_t q = active_.front();
    if (!queues.ready(q)) {
      deficit_[q] = 0;
      active_.pop_front();
      if (queues.queue_empty(q)) {
        listed_[q] = 0;
      } else {
        active_.push_back(q);
      }
      fresh_ = true;
      continue;
    }
    if (fresh_) {
      deficit_[q] += static_cast<int32_t>(quantum_bytes_);
      fresh_ = false;
    }
    if (int64_t{deficit_[q]} >= int64_t{queues.head_bytes(q)}) return q;
    active_.push_back(active_.pop_front());
    fresh_ = true;
  }
  return kNone;
}

void DrrScheduler::on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) {
  deficit_[queue] -= static_cast<int32_t>(bytes);
  if (listed_) {
    if (queue_now_empty) {
      deficit_[queue] = 0;
      active_.pop_front();  // the queue served is the list's front
      listed_[queue] = 0;
      fresh_ = true;
    }
    return;
  }
  if (queue_now_empty) {
    deficit_[queue] = 0;
    advance();
  }
}

}  // namespace rocelab
