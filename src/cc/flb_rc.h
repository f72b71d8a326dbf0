// FLB's minimal rate control (FLB §3.3), the congestion control named "rc": flows start at
// line rate with a BDP in flight; a CNM with the congestion flag (forwarded by the source
// edge switch) pauses the flow and sets its future rate to C/n; a CNM without it resumes
// the flow at that rate; later CNMs move the rate with n.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "net/cnm.h"
#include "sim/simulator.h"
#include "transport/congestion_control.h"

namespace rocelab {

struct FlbRcConfig {
  // In-flight limit: this many base RTTs of line-rate data (1 BDP: FLB §3.3).
  double window_bdp = 1.0;
  // FLB changes a flow's rate only with the n of a CNM (§3.3); the destination edge sends a
  // new n when its congested flows come and go (lb/flb_isolation.cc). Optionally, a flow
  // also returns to line rate after this long without any CNM (not in FLB; 0 = never).
  Delta recovery_time = Delta::zero();
};

class FlbRcSchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  FlbRcConfig cfg;
};

class FlbRateControl final : public CongestionControl, public EventHandler {
 public:
  explicit FlbRateControl(const FlbRcConfig& cfg) : cfg_(cfg) {}
  void attach(RdmaTransport& transport) override;
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
  }
  void on_flow_start(FlowId f) override;
  void on_control(FlowId f, const Packet& p) override;
  void on_flow_finish(FlowId f) override;
  void on_port_moved(FlowId f) override;
  void on_event(uint32_t kind, uint64_t arg) override;

  bool paused(FlowId f) const { return state_[f.index()].paused; }
  uint64_t congestion_cnms() const { return congestion_cnms_.load(std::memory_order_relaxed); }

 private:
  struct State {
    bool paused = false;
    bool active = false;
    BitsPerSec target_bps = 0;
    TimerSlot recovery;
  };
  FlbRcConfig cfg_;
  std::optional<CnmFormat> cnm_;  // FLB's CNM, as the edge switches write it
  std::vector<State> state_;
  uint32_t handler_ = 0;
  // Counted by the senders of every partition of a parallel run: a sum, the same on any.
  std::atomic<uint64_t> congestion_cnms_{0};
};

}  // namespace rocelab
