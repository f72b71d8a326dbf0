// The NIC's queue-pair scheduler at one host: its active flows in round-robin order, the
// next one that may send when the port asks for data, and how many have anything to send
// (while none, the port need not ask at the end of each frame). What "may send" means
// (window, pacing, holds, a flow control's gate) is the sender's, passed in per pick.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

class NicScheduler {
 public:
  void activate(FlowId f) { active_.push_back(f); }
  void deactivate(FlowId f) {
    const auto it = std::find(active_.begin(), active_.end(), f);
    if (it == active_.end()) return;
    *it = active_.back();
    active_.pop_back();
  }
  size_t active() const { return active_.size(); }

  // Flows with bytes not sent yet or holes to resend (the sender counts them in and out).
  void count_unsent(bool in) { in ? ++with_unsent_ : --with_unsent_; }
  bool has_unsent() const { return with_unsent_ > 0; }

  // Round robin from where the last pick left off: the first active flow for which
  // `ready(f, &ready_at)` is true. A flow that is not ready sets ready_at to when it will be
  // (paced), or leaves it at never; *earliest is the least of those when none is ready.
  // Returns FlowId::invalid() then.
  template <class Ready>
  FlowId pick(Ready&& ready, Time* earliest) {
    const size_t n = active_.size();
    // rr_ is past the end only after a flow left the list (no division per pick).
    size_t idx = rr_ < n ? rr_ : (n ? rr_ % n : 0);
    for (size_t i = 0; i < n; ++i, idx = idx + 1 == n ? 0 : idx + 1) {
      const FlowId f = active_[idx];
      Time ready_at = Time::never();
      if (ready(f, &ready_at)) {
        rr_ = idx + 1 == n ? 0 : idx + 1;
        return f;
      }
      *earliest = std::min(*earliest, ready_at);
    }
    return FlowId::invalid();
  }

 private:
  std::vector<FlowId> active_;
  size_t rr_ = 0;
  uint32_t with_unsent_ = 0;
};

}  // namespace rocelab
