// Deficit round robin (Shreedhar & Varghese, SIGCOMM'95) among a port's data queues: each
// visit earns a queue one quantum of bytes, and it sends while its deficit covers the head
// packet. The default egress scheduler.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/egress_scheduler.h"
#include "sim/ring.h"

namespace rocelab {

class alignas(64) DrrScheduler final : public EgressScheduler {
 public:
  // A quantum of at least one MTU frame lets a backlogged, unpaused queue send at least
  // one packet per round.
  DrrScheduler(size_t num_queues, uint32_t quantum_bytes);
  DrrScheduler(const DrrScheduler&) = delete;  // deficit_ may point into the object
  DrrScheduler& operator=(const DrrScheduler&) = delete;

  void on_enqueue(size_t queue) override {
    if (listed_ && !listed_[queue]) {
      listed_[queue] = 1;
      active_.push_back(static_cast<uint32_t>(queue));
    }
  }
  bool wants_on_enqueue() const override { return listed_ != nullptr; }
  size_t pick(const QueueState& queues) override;
  void on_sent(size_t queue, uint32_t bytes, bool queue_now_empty) override;
  // The visit-by-visit walk, the definition pick() follows; public so that tests can hold
  // the ready-bit walk to it.
  size_t pick_by_visits(const QueueState& queues);

 private:
  template <class Ready>
  size_t walk(const QueueState& queues, Ready ready);
  // The same walk from the ready bits: a run of idle queues is crossed at once.
  size_t walk_ready_bits(const QueueState& queues, uint32_t ready);
  // The walk when q is the only ready queue; kNone where it needs walk_ready_bits.
  size_t pick_only_ready(const QueueState& queues, uint32_t q);
  // Zeroes the deficits of the `count` queues from rr_ on (going round) and moves rr_ past
  // them, as that many visits to idle queues would.
  void skip_idle(uint32_t count);
  // Zeroes the deficits of the queues in `queues` (a bit each) that hold credit.
  void drop_credit(uint32_t queues) {
    for (uint32_t zero = credited_ & queues; zero != 0; zero &= zero - 1)
      deficit_[std::countr_zero(zero)] = 0;
    credited_ &= ~queues;
  }
  // Bits 0 .. num_queues_ - 1 (ports of up to 32 queues).
  uint64_t queue_bits() const { return (uint64_t{1} << num_queues_) - 1; }
  size_t pick_listed(const QueueState& queues);
  void advance() {
    rr_ = rr_ + 1 == num_queues_ ? 0 : rr_ + 1;
    fresh_ = true;
  }

  // The state of a port of up to kInlineQueues queues, read per frame: the first cache
  // line, then credited_ and listed_ in the second. A deficit stays below one
  // quantum plus one frame, so 32 bits hold it.
  static constexpr size_t kInlineQueues = 8;
  int32_t* deficit_;  // inline_deficit_ or spill_deficit_
  uint32_t rr_ = 0;
  uint32_t num_queues_;
  uint32_t quantum_bytes_;
  bool fresh_ = true;  // the current queue has not had its quantum for this visit
  int32_t inline_deficit_[kInlineQueues] = {};
  // Ports of up to 32 queues: bit q set when queue q may hold a non-zero deficit, so that
  // skip_idle zeroes only those.
  uint32_t credited_ = 0;
  std::vector<int32_t> spill_deficit_;  // ports of more than kInlineQueues queues
  // Ports of more than kListQueues queues (SFQ's 1000) keep the classic DRR active list:
  // a pick visits the queues holding packets, not every queue.
  static constexpr size_t kListQueues = 64;
  Ring<uint32_t> active_;
  std::unique_ptr<uint8_t[]> listed_;  // null below kListQueues
};

class DrrSchedulerConfig final : public SchedulerConfig {
 public:
  std::unique_ptr<EgressScheduler> build(size_t num_queues,
                                         uint32_t mtu_wire_bytes) const override {
    return std::make_unique<DrrScheduler>(num_queues, mtu_wire_bytes);
  }
};

}  // namespace rocelab
