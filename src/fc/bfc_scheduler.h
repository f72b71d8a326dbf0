// BFC's egress scheduler: the high-priority queue (the last one, BFC §3.7) first, then
// deficit round robin among the unpaused physical queues and the overflow queue (§3.3:
// "fair queueing among the physical queues that are not paused").
#pragma once

#include <memory>

#include "net/drr_scheduler.h"
#include "net/egress_scheduler.h"

namespace rocelab {

class BfcScheduler final : public EgressScheduler {
 public:
  BfcScheduler(size_t num_queues, uint32_t quantum_bytes)
      : high_(num_queues - 1), drr_(num_queues - 1, quantum_bytes) {}
  void on_enqueue(size_t queue) override {
    if (queue != high_) drr_.on_enqueue(queue);
  }
  bool wants_on_enqueue() const override { return drr_.wants_on_enqueue(); }
  size_t pick(const QueueState& queues) override {
    if (queues.ready(high_)) return high_;
    return drr_.pick(queues.prefix(high_));
  }
  void on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) override {
    if (queue != high_) drr_.on_sent(queue, bytes, queue_now_empty);
  }

 private:
  size_t high_;
  DrrScheduler drr_;
};

class BfcSchedulerConfig final : public SchedulerConfig {
 public:
  std::unique_ptr<EgressScheduler> build(size_t num_queues,
                                         uint32_t mtu_wire_bytes) const override {
    return std::make_unique<BfcScheduler>(num_queues, mtu_wire_bytes);
  }
};

}  // namespace rocelab
