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

FlowStarts::Sender& FlowStarts::sender(LpId lp) {
  // Grown while building (the global LP adds the flows of the scenario); a flow added while
  // the run goes on is one of a sender that already has flows, or the run is serial.
  if (lp >= senders_.size()) senders_.resize(lp + 1);
  return senders_[lp];
}

bool FlowStarts::Sender::is_queued(FlowId f) const {
  return std::find(queued.begin(), queued.end(), f) != queued.end();
}

void FlowStarts::add(FlowId f, Time at) {
  const LpId lp = lp_of_(f);
  Sender& s = sender(lp);
  const Pending ps{at, sim_.reserve_seq(), f};
  if (s.next == s.pending.size() || !(ps < s.pending.back())) {
    s.pending.push_back(ps);
  } else {
    s.late.push_back(ps);
    std::push_heap(s.late.begin(), s.late.end(), later);
  }
  // A queued wake-up comes before this start (queued earlier, at a time no later); so does
  // the earliest start's own event if it is queued.
  if (s.wakeup_queued || s.is_queued(s.earliest()->flow)) return;
  // This flow is the sender's new earliest. A start queued for a later flow cannot be
  // taken out of the queue; queuing this one too would let flows added in falling start
  // order fill the queue again, so one wake-up, now, stands for every flow of the sender
  // added until it fires. Its sequence number follows this flow's, with nothing queued in
  // between.
  if (s.queued.empty()) {
    queue_earliest(lp, s);
  } else {
    s.wakeup_queued = true;
    sim_.schedule_on(lp, sim_.now(), handler_, kWakeup, lp);
  }
}

const FlowStarts::Pending* FlowStarts::Sender::earliest() const {
  const Pending* in_order = next < pending.size() ? &pending[next] : nullptr;
  if (late.empty()) return in_order;
  const Pending* first_late = &late.front();
  return in_order && *in_order < *first_late ? in_order : first_late;
}

void FlowStarts::Sender::pop_earliest() {
  const Pending* e = earliest();
  if (!late.empty() && e == &late.front()) {
    std::pop_heap(late.begin(), late.end(), later);
    late.pop_back();
  } else if (++next == pending.size()) {
    pending.clear();  // keeps the capacity for flows added later
    next = 0;
  }
}

void FlowStarts::queue_earliest(LpId lp, Sender& s) {
  const Pending* e = s.earliest();
  if (!e || s.is_queued(e->flow)) return;
  s.queued.push_back(e->flow);
  sim_.schedule_reserved_on(lp, e->start, e->seq, handler_, kFlowStart, e->flow.index());
}

void FlowStarts::on_start_event(FlowId f) {
  const LpId lp = lp_of_(f);
  Sender& s = senders_[lp];
  s.queued.erase(std::find(s.queued.begin(), s.queued.end(), f));
  // Every flow of the sender earlier than f has a queued event (or wake-up) that fires
  // first.
  const Pending* e = s.earliest();
  if (!e || e->flow != f) {
    std::fprintf(stderr, "rocelab: internal error: flow %u starts before flow %u\n", f.index(),
                 e ? e->flow.index() : 0u);
    std::abort();
  }
  s.pop_earliest();
  queue_earliest(lp, s);
  start_(f);
}

void FlowStarts::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kFlowStart) {
    on_start_event(FlowId(static_cast<uint32_t>(arg)));
    return;
  }
  const auto lp = static_cast<LpId>(arg);
  senders_[lp].wakeup_queued = false;
  queue_earliest(lp, senders_[lp]);
}

}  // namespace rocelab
