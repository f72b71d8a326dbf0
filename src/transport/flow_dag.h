// Flows that wait for other flows: a flow starts `delay` after the last of the flows it
// depends on has been delivered to its receiver, and not before its own start time. This is
// how a collective's step k+1 waits for the chunk of step k, and how a training job's next
// iteration waits for the last and its compute gap. Dependencies point to flows added
// earlier, so the graph cannot hold a cycle. Flat arrays by flow and a singly linked edge
// list: nothing is allocated per delivery.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

class FlowDag {
 public:
  // Flow f (added after every flow in `after`) waits for them, then `delay`, and does not
  // start before `not_before`. `delivered_at(d)` is when flow d was delivered (never: not
  // yet). Returns the start time if every dependency is already delivered, else never.
  template <class DeliveredAt>
  Time add(FlowId f, std::span<const FlowId> after, Delta delay, Time not_before,
           DeliveredAt&& delivered_at) {
    grow(f.index() + 1);
    ready_at_[f.index()] = not_before;
    delay_[f.index()] = delay;
    uint32_t waiting = 0;
    for (FlowId d : after) {
      const Time at = delivered_at(d);
      if (at != Time::never()) {
        ready_at_[f.index()] = std::max(ready_at_[f.index()], at + delay);
        continue;
      }
      ++waiting;
      edges_.push_back(Edge{f, first_edge_[d.index()]});
      first_edge_[d.index()] = static_cast<int64_t>(edges_.size() - 1);
    }
    waiting_[f.index()] = waiting;
    return waiting == 0 ? ready_at_[f.index()] : Time::never();
  }

  // Flow d was delivered at `now`: `release(f, at)` for each flow whose last dependency it
  // was, with the time it may start.
  template <class Release>
  void on_delivered(FlowId d, Time now, Release&& release) {
    if (d.index() >= first_edge_.size()) return;
    for (int64_t e = first_edge_[d.index()]; e >= 0; e = edges_[e].next) {
      const uint32_t f = edges_[e].flow.index();
      ready_at_[f] = std::max(ready_at_[f], now + delay_[f]);
      if (--waiting_[f] == 0) release(edges_[e].flow, ready_at_[f]);
    }
    first_edge_[d.index()] = -1;
  }

  // Whether flow f still waits for a dependency.
  bool waiting(FlowId f) const { return f.index() < waiting_.size() && waiting_[f.index()] > 0; }
  void reserve(size_t flows) {
    first_edge_.reserve(flows);
    waiting_.reserve(flows);
    ready_at_.reserve(flows);
    delay_.reserve(flows);
  }

 private:
  struct Edge {
    FlowId flow;   // the dependent flow
    int64_t next;  // the next edge out of the same flow, -1: none
  };
  void grow(size_t n) {
    if (n <= first_edge_.size()) return;
    first_edge_.resize(n, -1);
    waiting_.resize(n, 0);
    ready_at_.resize(n, Time::zero());
    delay_.resize(n, Delta::zero());
  }

  std::vector<int64_t> first_edge_;  // by flow: its first dependent's edge, -1: none
  std::vector<uint32_t> waiting_;    // by flow: dependencies not delivered yet
  std::vector<Time> ready_at_;       // by flow: the latest of not_before and delivery + delay
  std::vector<Delta> delay_;         // by flow: after its last dependency
  std::vector<Edge> edges_;
};

}  // namespace rocelab
