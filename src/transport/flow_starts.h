// When each flow starts. Flows may be added in any order, also while the simulation runs,
// and a million of them must not each hold a slot in the event queue (every event would
// pay for the bigger heap). So the starts wait here, and only each sender's earliest one's
// event is queued. Each flow's sequence number is reserved when it is added, so its start event,
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
  // names (the flow's sender). Each sender's flows wait apart, and only its events touch
  // them: a partitioned run starts each partition's flows on its own.
  FlowStarts(Simulator& sim, std::function<void(FlowId)> start, std::function<LpId(FlowId)> lp_of);
  // The simulator holds `this` as an event handler.
  FlowStarts(const FlowStarts&) = delete;
  FlowStarts& operator=(const FlowStarts&) = delete;
  // Flow f (ids dense from 0, each added once, in any order) starts at `at`, not before now.
  // While the run goes on, only an event of f's sender may add it (a partition touches
  // its own senders only).
  void add(FlowId f, Time at);
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
  // One sender's flows not started yet.
  struct Sender {
    // pending from next on is sorted (flows added in start order, the usual case, append
    // in O(1)); flows added earlier than its last go to the min-heap late.
    std::vector<Pending> pending;
    size_t next = 0;
    std::vector<Pending> late;
    std::vector<FlowId> queued;  // flows whose start event is in the simulator's queue
    // A wake-up event is queued (see add): it queues the earliest start when it fires.
    bool wakeup_queued = false;
    bool is_queued(FlowId f) const;
    // The earliest flow not started yet, and taking it off.
    const Pending* earliest() const;
    void pop_earliest();
  };
  Sender& sender(LpId lp);
  // Queues the sender's earliest pending start's event unless it is queued already.
  void queue_earliest(LpId lp, Sender& s);
  void on_start_event(FlowId f);

  Simulator& sim_;
  std::function<void(FlowId)> start_;
  std::function<LpId(FlowId)> lp_of_;
  uint32_t handler_;
  std::vector<Sender> senders_;  // by the sender's LP (its node id)
};

}  // namespace rocelab
