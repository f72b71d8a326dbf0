// Strict priority among a port's data queues: the highest-numbered ready queue sends (the
// 802.1p order, 7 above 0); a lower class waits while a higher one has packets.
#pragma once

#include "net/egress_scheduler.h"

namespace rocelab {

class StrictPriorityScheduler final : public EgressScheduler {
 public:
  bool wants_on_enqueue() const override { return false; }
  size_t pick(const QueueState& queues) override {
    for (size_t q = queues.num_queues(); q-- > 0;)
      if (queues.ready(q)) return q;
    return kNone;
  }
  void on_sent(size_t, uint32_t, bool) override {}
};

class StrictPrioritySchedulerConfig final : public SchedulerConfig {
 public:
  std::unique_ptr<EgressScheduler> build(size_t, uint32_t) const override {
    return std::make_unique<StrictPriorityScheduler>();
  }
};

}  // namespace rocelab
