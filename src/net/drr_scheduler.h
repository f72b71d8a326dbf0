// Deficit round robin (Shreedhar & Varghese, SIGCOMM'95) among a port's data queues: each
// visit earns a queue one quantum of bytes, and it sends while its deficit covers the head
// packet. The default egress scheduler.
#pragma once

#include <vector>

#include "net/egress_scheduler.h"

namespace rocelab {

class DrrScheduler final : public EgressScheduler {
 public:
  // A quantum of at least one MTU frame lets a backlogged, unpaused queue send at least
  // one packet per round.
  DrrScheduler(size_t num_queues, uint32_t quantum_bytes)
      : deficit_(num_queues, 0), quantum_bytes_(quantum_bytes) {}

  size_t pick(const QueueState& queues) override;
  void on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) override;

 private:
  template <class Ready>
  size_t walk(const QueueState& queues, Ready ready);
  void advance() {
    rr_ = rr_ + 1 == deficit_.size() ? 0 : rr_ + 1;
    fresh_ = true;
  }

  std::vector<int64_t> deficit_;
  uint32_t quantum_bytes_;
  size_t rr_ = 0;
  bool fresh_ = true;  // the current queue has not had its quantum for this visit
};

class DrrSchedulerConfig final : public SchedulerConfig {
 public:
  std::unique_ptr<EgressScheduler> build(size_t num_queues,
                                         uint32_t mtu_wire_bytes) const override {
    return std::make_unique<DrrScheduler>(num_queues, mtu_wire_bytes);
  }
};

}  // namespace rocelab
