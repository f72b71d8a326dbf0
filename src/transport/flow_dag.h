// Flows that wait for other flows: a flow starts `delay` after the last of the flows it
// depends on has been delivered to its receiver, and after the flow queued before it on the
// same queue pair has sent its last byte, and not before its own start time. This is how a
// collective's step k+1 waits for the chunk of step k, how the chunks of one QP go out one
// after another, and how a training job's next iteration waits for the last and its compute
// gap. Dependencies point to flows added earlier, so the graph cannot hold a cycle. Flat
// arrays by flow and singly linked edge lists: nothing is allocated per delivery.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

class FlowDag {
 public:
  enum Event : uint8_t { kDelivered = 0, kSent = 1 };

  // Flow f (added after every flow it waits for) waits for the delivery of each of `after`
  // and then `delay`, for `behind` (if valid) to have sent its last byte, and does not start
  // before `not_before`. `happened_at(d, event)` is when flow d's event happened (never: not
  // yet). Returns the start time if nothing is left to wait for, else never.
  template <class HappenedAt>
  Time add(FlowId f, std::span<const FlowId> after, FlowId behind, Delta delay, Time not_before,
           HappenedAt&& happened_at) {
    grow(f.index() + 1);
    ready_at_[f.index()] = not_before;
    delay_[f.index()] = delay;
    uint32_t waiting = 0;
    auto wait_for = [&](FlowId d, Event event, Delta after_it) {
      const Time at = happened_at(d, event);
      if (at != Time::never()) {
        ready_at_[f.index()] = std::max(ready_at_[f.index()], at + after_it);
        return;
      }
      ++waiting;
      std::vector<uint32_t>& heads = first_edge_[event];
      if (edges_.size() >= kNone) throw std::length_error("FlowDag: more than 2^32 - 1 waits");
      edges_.push_back(Edge{f, heads[d.index()]});
      heads[d.index()] = static_cast<uint32_t>(edges_.size() - 1);
    };
    for (FlowId d : after) wait_for(d, kDelivered, delay);
    if (behind.valid()) wait_for(behind, kSent, Delta{});
    waiting_[f.index()] = waiting;
    return waiting == 0 ? ready_at_[f.index()] : Time::never();
  }

  // Flow d's event happened at `now`: `release(f, at)` for each flow whose last dependency
  // it was, with the time it may start. Once per event and flow; later calls do nothing.
  template <class Release>
  void on_event(FlowId d, Event event, Time now, Release&& release) {
    std::vector<uint32_t>& heads = first_edge_[event];
    if (d.index() >= heads.size()) return;
    for (uint32_t e = heads[d.index()]; e != kNone; e = edges_[e].next) {
      const uint32_t f = edges_[e].flow.index();
      if (event == kDelivered) ready_at_[f] = std::max(ready_at_[f], now + delay_[f]);
      ready_at_[f] = std::max(ready_at_[f], now);
      if (--waiting_[f] == 0) release(edges_[e].flow, ready_at_[f]);
    }
    heads[d.index()] = kNone;
  }

  // fn(d, event, f) for every edge not yet released: flow f waits for flow d's event.
  template <class Fn>
  void for_each_edge(Fn&& fn) const {
    for (const Event event : {kDelivered, kSent})
      for (size_t d = 0; d < first_edge_[event].size(); ++d)
        for (uint32_t e = first_edge_[event][d]; e != kNone; e = edges_[e].next)
          fn(FlowId(static_cast<uint32_t>(d)), event, edges_[e].flow);
  }

  // Whether flow f still waits for a dependency.
  bool waiting(FlowId f) const { return f.index() < waiting_.size() && waiting_[f.index()] > 0; }
  void reserve(size_t flows) {
    first_edge_[kDelivered].reserve(flows);
    first_edge_[kSent].reserve(flows);
    waiting_.reserve(flows);
    ready_at_.reserve(flows);
    delay_.reserve(flows);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Edge {
    FlowId flow;    // the dependent flow
    uint32_t next;  // the next edge out of the same flow, kNone: none
  };
  void grow(size_t n) {
    if (n <= waiting_.size()) return;
    first_edge_[kDelivered].resize(n, kNone);
    first_edge_[kSent].resize(n, kNone);
    waiting_.resize(n, 0);
    ready_at_.resize(n, Time::zero());
    delay_.resize(n, Delta::zero());
  }

  // By event and flow: the first edge to a flow waiting for it, kNone: none. 32-bit links:
  // a job of 67 M messages keeps two edges each.
  std::vector<uint32_t> first_edge_[2];
  std::vector<uint32_t> waiting_;  // by flow: dependencies not delivered yet
  std::vector<Time> ready_at_;     // by flow: the latest of not_before and delivery + delay
  std::vector<Delta> delay_;       // by flow: after its last dependency
  std::vector<Edge> edges_;
};

}  // namespace rocelab
