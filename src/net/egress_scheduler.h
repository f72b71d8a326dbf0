// The egress-scheduler plug point: which data queue of a port sends next. The port keeps
// the FIFO queues and their pause state; the scheduler only chooses among the queues that
// hold a packet and are not paused. DRR and strict priority today; SFQ, ideal fair
// queueing and BFC's dynamically assigned queues plug in here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/pool.h"
#include "sim/ring.h"

namespace rocelab {

// One data queue of a port: its FIFO and the wire bytes it holds, side by side (a frame
// enqueued or sent updates both).
struct PortQueue : Ring<PacketId> {
  int64_t bytes = 0;
};

// What a scheduler may read of its port's data queues (inline: it is asked per packet).
class QueueState {
 public:
  QueueState(const PortQueue* queues, size_t num_queues, const std::vector<uint8_t>& paused,
             const Pool<Packet>& pool, const uint32_t& nonempty_mask, const uint32_t& paused_mask)
      : queues_(queues),
        num_queues_(num_queues),
        paused_(&paused),
        pool_(&pool),
        nonempty_mask_(&nonempty_mask),
        paused_mask_(&paused_mask) {}
  QueueState(const std::vector<PortQueue>& queues, const std::vector<uint8_t>& paused,
             const Pool<Packet>& pool, const uint32_t& nonempty_mask, const uint32_t& paused_mask)
      : QueueState(queues.data(), queues.size(), paused, pool, nonempty_mask, paused_mask) {}
  size_t num_queues() const { return num_queues_; }
  // The same port seen through its first `n` queues (a scheduler that serves one queue
  // itself and hands the others to DRR).
  QueueState prefix(size_t n) const {
    QueueState s = *this;
    s.num_queues_ = n;
    return s;
  }
  // Holds a packet and is not paused.
  bool ready(size_t q) const { return !queues_[q].empty() && !(*paused_)[q]; }
  bool queue_empty(size_t q) const { return queues_[q].empty(); }
  // Bit q set: queue q is ready; exact for ports of at most kMaskQueues queues.
  static constexpr size_t kMaskQueues = 32;
  bool has_ready_mask() const { return num_queues() <= kMaskQueues; }
  uint32_t ready_mask() const { return *nonempty_mask_ & ~*paused_mask_; }
  // Wire bytes of the head packet of a ready queue.
  uint32_t head_bytes(size_t q) const { return (*pool_)[queues_[q].front().index()].wire_bytes; }

 private:
  const PortQueue* queues_;
  size_t num_queues_;
  const std::vector<uint8_t>* paused_;  // not its data: most picks never read it
  const Pool<Packet>* pool_;
  const uint32_t* nonempty_mask_;
  const uint32_t* paused_mask_;
};

class EgressScheduler {
 public:
  static constexpr size_t kNone = SIZE_MAX;
  virtual ~EgressScheduler() = default;
  // A packet joined `queue`.
  virtual void on_enqueue(size_t /*queue*/) {}
  // Whether on_enqueue does anything: asked once, when the port is built. A port skips the
  // call (and the read of the scheduler's cold line at every enqueue) when it does not.
  virtual bool wants_on_enqueue() const { return true; }
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
