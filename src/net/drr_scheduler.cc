#include "net/drr_scheduler.h"

#include <bit>
#include <stdexcept>

namespace rocelab {

DrrScheduler::DrrScheduler(size_t num_queues, uint32_t quantum_bytes)
    : num_queues_(static_cast<uint32_t>(num_queues)), quantum_bytes_(quantum_bytes) {
  if (num_queues == 0) throw std::invalid_argument("DRR needs at least one queue");
  if (num_queues > kInlineQueues) spill_deficit_.assign(num_queues, 0);
  deficit_ = num_queues > kInlineQueues ? spill_deficit_.data() : inline_deficit_;
  if (num_queues > kListQueues) listed_ = std::make_unique<uint8_t[]>(num_queues);
}

size_t DrrScheduler::pick(const QueueState& queues) {
  if (listed_) return pick_listed(queues);
  // Ports of up to 32 queues keep ready bits: one load instead of a ring and a pause flag
  // per queue visited.
  if (queues.has_ready_mask()) {
    const uint32_t ready = queues.ready_mask() & static_cast<uint32_t>(queue_bits());
    if (ready != 0 && (ready & (ready - 1)) == 0) {  // one bit (no popcount call)
      const size_t q = pick_only_ready(queues, static_cast<uint32_t>(std::countr_zero(ready)));
      if (q != kNone) return q;
    }
    return walk_ready_bits(queues, ready);
  }
  return pick_by_visits(queues);
}

// One ready queue, as in a fabric with one busy class: the walk's outcome in closed form
// when its first quantum (or the credit left) covers the head. kNone leaves a state from
// which walk_ready_bits makes exactly the walk's remaining visits.
size_t DrrScheduler::pick_only_ready(const QueueState& queues, uint32_t q) {
  const int64_t head = queues.head_bytes(q);
  if (rr_ == q && !fresh_) {
    if (int64_t{deficit_[q]} >= head) return q;  // q goes on spending its credit
    if (int64_t{deficit_[q]} + quantum_bytes_ < head) return kNone;
    // Its credit is spent: the walk laps the idle queues, which keep no credit, back to q.
    drop_credit(static_cast<uint32_t>(queue_bits()) & ~(1u << q));
  } else if (rr_ != q) {
    if (int64_t{deficit_[q]} + quantum_bytes_ < head) return kNone;
    // The walk crosses the idle queues from rr_ up to q, going round; they lose their credit.
    const uint32_t below_q = (1u << q) - 1;
    const uint32_t below_rr = (1u << rr_) - 1;
    drop_credit(rr_ < q ? below_q & ~below_rr
                        : (~below_rr & static_cast<uint32_t>(queue_bits())) | below_q);
    rr_ = q;
  }
  // rr_ is q on a fresh visit: it earns its quantum.
  deficit_[q] += static_cast<int32_t>(quantum_bytes_);
  credited_ |= 1u << q;
  fresh_ = false;
  // Only a fresh visit of q gets here and fails (the others checked the head first): its
  // next visit spends nothing and moves on, as the walk's first visit would have.
  return int64_t{deficit_[q]} >= head ? q : kNone;
}

size_t DrrScheduler::pick_by_visits(const QueueState& queues) {
  return walk(queues, [&queues](size_t q) { return queues.ready(q); });
}

// walk() visit for visit, but a run of idle (or paused) queues costs one count-trailing-
// zeros and the zeroing of the credited ones among them. With one busy class, as in most
// fabrics, each frame that spends the deficit would otherwise walk a lap of idle queues.
size_t DrrScheduler::walk_ready_bits(const QueueState& queues, uint32_t ready) {
  const uint32_t n = num_queues_;
  const uint32_t visits = 2 * n + 1;
  const uint64_t all = queue_bits();
  ready &= static_cast<uint32_t>(all);
  uint32_t used = 0;
  while (used < visits) {
    // Idle queues from rr_ to the next ready one, going round.
    const uint64_t twice = (uint64_t{ready} << n) | ready;  // bit rr_ + k: queue rr_ + k
    const uint64_t ahead = (twice >> rr_) & all;
    const uint32_t idle = ahead ? static_cast<uint32_t>(std::countr_zero(ahead)) : visits;
    if (idle >= visits - used) {  // the walk ends before it reaches a ready queue
      skip_idle(visits - used);
      return kNone;
    }
    skip_idle(idle);
    used += idle + 1;
    if (fresh_) {
      deficit_[rr_] += static_cast<int32_t>(quantum_bytes_);
      credited_ |= 1u << rr_;
      fresh_ = false;
    }
    if (int64_t{deficit_[rr_]} >= int64_t{queues.head_bytes(rr_)}) return rr_;
    advance();
  }
  return kNone;
}

void DrrScheduler::skip_idle(uint32_t count) {
  if (count == 0) return;
  const uint32_t n = num_queues_;
  // Visits past a full lap zero nothing more.
  const uint32_t span = count < n ? count : n;
  const uint64_t run = ((uint64_t{1} << span) - 1) << rr_;  // bits rr_ .. rr_ + span - 1
  drop_credit(static_cast<uint32_t>((run | (run >> n)) & queue_bits()));
  uint32_t next = rr_ + count;  // count is at most 2n + 1 visits: no division needed
  while (next >= n) next -= n;
  rr_ = next;
  fresh_ = true;
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
      if (rr_ < 32) credited_ |= 1u << rr_;
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
