// The egress-scheduler plug point: which data queue of a port sends next. The port keeps
// the FIFO queues and their pause state; the scheduler only chooses among the queues that
// hold a packet and are not paused. DRR and strict priority today; SFQ, ideal fair
// queueing and BFC's dynamically assigned queues plug in here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace rocelab {

// What a scheduler may read of its port's data queues.
class QueueState {
 public:
  virtual ~QueueState() = default;
  virtual size_t num_queues() const = 0;
  // Holds a packet and is not paused.
  virtual bool ready(size_t queue) const = 0;
  // Wire bytes of the head packet of a ready queue.
  virtual uint32_t head_bytes(size_t queue) const = 0;
};

class EgressScheduler {
 public:
  static constexpr size_t kNone = SIZE_MAX;
  virtual ~EgressScheduler() = default;
  // A packet joined `queue`.
  virtual void on_enqueue(size_t /*queue*/) {}
  // The queue to send from now, or kNone when no queue is ready. The port then takes that
  // queue's head packet and calls on_sent.
  virtual size_t pick(const QueueState& queues) = 0;
  virtual void on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) = 0;
};

// One scheduler per egress port, built from the scenario's parameters.
class SchedulerConfig {
 public:
  virtual ~SchedulerConfig() = default;
  virtual std::unique_ptr<EgressScheduler> build(size_t num_queues,
                                                 uint32_t mtu_wire_bytes) const = 0;
};

}  // namespace rocelab
