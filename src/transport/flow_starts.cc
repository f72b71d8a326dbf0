#include "transport/flow_starts.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rocelab {

FlowStarts::FlowStarts(Simulator& sim, std::function<void(FlowId)> start,
                       std::function<LpId(FlowId)> lp_of)
    : sim_(sim),
      start_(std::move(start)),
      lp_of_(std::move(lp_of)),
      handler_(sim.add_handler(this)) {}

void FlowStarts::reserve(size_t n) {
  pending_.reserve(n);
  queued_.reserve(n);
}

void FlowStarts::add(FlowId f, Time at) {
  // Ids are dense, but a flow waiting for others (FlowDag) is added when it is released.
  if (f.index() >= queued_.size()) queued_.resize(f.index() + 1, 0);
  const Pending ps{at, sim_.reserve_seq(), f};
  if (next_ == pending_.size() || !(ps < pending_.back())) {
    pending_.push_back(ps);
  } else {
    late_.push_back(ps);
    std::push_heap(late_.begin(), late_.end(), later);
  }
  // A queued wake-up comes before this start (queued earlier, at a time no later); so does
  // the earliest start's own event if it is queued.
  if (wakeup_queued_ || queued_[earliest()->flow.index()]) return;
  // This flow is the new earliest. A start queued for a later flow cannot be taken out of
  // the queue; queuing this one too would let flows added in falling start order fill the
  // queue again, so one wake-up, now, stands for every flow added until it fires. Its
  // sequence number follows this flow's, with nothing queued in between.
  if (queued_count_ == 0) {
    queue_earliest();
  } else {
    wakeup_queued_ = true;
    sim_.schedule(sim_.now(), handler_, kWakeup);
  }
}

const FlowStarts::Pending* FlowStarts::earliest() const {
  const Pending* in_order = next_ < pending_.size() ? &pending_[next_] : nullptr;
  if (late_.empty()) return in_order;
  const Pending* late = &late_.front();
  return in_order && *in_order < *late ? in_order : late;
}

void FlowStarts::pop_earliest() {
  const Pending* e = earliest();
  if (!late_.empty() && e == &late_.front()) {
    std::pop_heap(late_.begin(), late_.end(), later);
    late_.pop_back();
  } else if (++next_ == pending_.size()) {
    pending_.clear();  // keeps the capacity for flows added later
    next_ = 0;
  }
}

void FlowStarts::queue_earliest() {
  const Pending* e = earliest();
  if (!e || queued_[e->flow.index()]) return;
  queued_[e->flow.index()] = 1;
  ++queued_count_;
  sim_.schedule_reserved_on(lp_of_(e->flow), e->start, e->seq, handler_, kFlowStart,
                            e->flow.index());
}

void FlowStarts::on_start_event(FlowId f) {
  queued_[f.index()] = 0;
  --queued_count_;
  // Every flow earlier than f has a queued event (or wake-up) that fires first.
  const Pending* e = earliest();
  if (!e || e->flow != f) {
    std::fprintf(stderr, "rocelab: internal error: flow %u starts before flow %u\n", f.index(),
                 e ? e->flow.index() : 0u);
    std::abort();
  }
  pop_earliest();
  queue_earliest();
  start_(f);
}

void FlowStarts::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kFlowStart) {
    on_start_event(FlowId(static_cast<uint32_t>(arg)));
    return;
  }
  wakeup_queued_ = false;
  queue_earliest();
}

}  // namespace rocelab
