#include "net/drr_scheduler.h"

namespace rocelab {

size_t DrrScheduler::pick(const QueueState& queues) {
  if (queues.has_ready_mask()) return pick_by_mask(queues);
  const size_t n = deficit_.size();
  // 2n+1 visits always reach a ready queue with enough deficit: at most one visit that
  // earns the quantum, then one that spends it.
  for (size_t step = 0; step < 2 * n + 1; ++step) {
    if (!queues.ready(rr_)) {
      deficit_[rr_] = 0;  // an idle or paused queue keeps no credit
      advance();
      continue;
    }
    if (fresh_) {
      deficit_[rr_] += quantum_bytes_;
      fresh_ = false;
    }
    if (deficit_[rr_] >= queues.head_bytes(rr_)) return rr_;
    advance();
  }
  return kNone;
}

// The same walk as pick, but a run of queues that are not ready is crossed in one go from
// the port's ready bits instead of one visit each (most ports use one class of eight).
size_t DrrScheduler::pick_by_mask(const QueueState& queues) {
  const size_t n = deficit_.size();
  const uint32_t ready = queues.ready_mask();
  size_t step = 0;
  while (step < 2 * n + 1) {
    if (!((ready >> rr_) & 1u)) {
      deficit_[rr_] = 0;  // an idle or paused queue keeps no credit
      advance();
      ++step;
      continue;
    }
    if (fresh_) {
      deficit_[rr_] += quantum_bytes_;
      fresh_ = false;
    }
    if (deficit_[rr_] >= queues.head_bytes(rr_)) return rr_;
    advance();
    ++step;
  }
  return kNone;
}

void DrrScheduler::on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) {
  deficit_[queue] -= bytes;
  if (queue_now_empty) {
    deficit_[queue] = 0;
    advance();
  }
}

}  // namespace rocelab
