// When each flow starts. Flows may be added in any order, also while the simulation runs,
// and a million of them must not each hold a slot in the event queue (every event would
// pay for the bigger heap). So the starts wait here, and only the earliest one's event is
// queued. Each flow's sequence number is reserved when it is added, so its start event,
// queued later, orders among simultaneous events exactly as if every start had been queued
// up front: flows starting at the same time start in the order they were added.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/ids.h"
#include "sim/simulator.h"

namespace rocelab {

class FlowStarts final : public EventHandler {
 public:
  // `start` is called once per flow, at its start time, as an event of the node `lp_of`
  // names (the flow's sender).
  FlowStarts(Simulator& sim, std::function<void(FlowId)> start, std::function<LpId(FlowId)> lp_of);
  // The simulator holds `this` as an event handler.
  FlowStarts(const FlowStarts&) = delete;
  FlowStarts& operator=(const FlowStarts&) = delete;
  // Flow f (ids dense from 0, each added once, in any order) starts at `at`, not before now.
  void add(FlowId f, Time at);
  void reserve(size_t n);
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  enum EventKind : uint32_t { kFlowStart = 0, kWakeup = 1 };
  struct Pending {
    Time start;
    uint64_t seq;
    FlowId flow;
    bool operator<(const Pending& o) const {
      return start != o.start ? start < o.start : seq < o.seq;
    }
  };
  static bool later(const Pending& a, const Pending& b) { return b < a; }  // heap order
  // The earliest flow not started yet, and taking it off.
  const Pending* earliest() const;
  void pop_earliest();
  // Queues the earliest pending start's event unless it is queued already.
  void queue_earliest();
  void on_start_event(FlowId f);

  Simulator& sim_;
  std::function<void(FlowId)> start_;
  std::function<LpId(FlowId)> lp_of_;
  uint32_t handler_;
  // pending_ from next_ on is sorted (flows added in start order, the usual case, append in
  // O(1)); flows added earlier than its last go to the min-heap late_.
  std::vector<Pending> pending_;
  size_t next_ = 0;
  std::vector<Pending> late_;
  std::vector<uint8_t> queued_;  // by flow: its start event is in the simulator's queue
  size_t queued_count_ = 0;      // flows whose start event is in the queue
  // A wake-up event is queued (see add): it queues the earliest start when it fires.
  bool wakeup_queued_ = false;
};

}  // namespace rocelab
