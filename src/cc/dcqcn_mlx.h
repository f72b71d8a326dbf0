// DCQCN as the HPCC and ConWeave ns-3 simulators model the Mellanox NIC (`cc.model:
// ns3_mlx`): the *Mlx functions of src/point-to-point/model/rdma-hw.cc in
// alibaba-edu/High-Precision-Congestion-Control and conweave-project/conweave-ns3, which
// agree line for line. It differs from the paper's reaction point (cc/dcqcn.h):
// - a CNP only raises flags; a check every RATE_DECREASE_INTERVAL applies at most one cut
//   (CheckRateDecreaseMlx), and alpha moves only on its own ALPHA_RESUME_INTERVAL timer
//   (UpdateAlphaMlx);
// - with CLAMP_TARGET_RATE 0 a cut sets the target to the current rate only if the increase
//   timer fired since the previous cut (m_rpTimeStage != 0);
// - increase stages are counted by the timer alone (no byte counter): stage < F is fast
//   recovery, stage == F one additive step, stage > F one hyper step per expiry
//   (RateIncEventMlx).
// Both periodic timers of the forks run for the life of the QP; here the alpha timer is
// evaluated lazily on its grid and the check is scheduled only at the grid point after a
// CNP, which gives the same numbers with one event per cut.
#pragma once

#include <memory>
#include <vector>

#include "cc/dcqcn.h"
#include "cc/dcqcn_np.h"
#include "sim/simulator.h"
#include "transport/congestion_control.h"

namespace rocelab {

// Its own timers come back through EventHandler.
class DcqcnMlx final : public DcqcnReceiverHalf, private EventHandler {
 public:
  explicit DcqcnMlx(const DcqcnConfig& cfg = {}) : DcqcnReceiverHalf(cfg.np), cfg_(cfg) {}

  void attach(RdmaTransport& transport) override;
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
    reserve_receiver(n);
  }
  void on_flow_start(FlowId f) override;
  void on_cnp(FlowId f, const Packet& p) override;
  void on_flow_finish(FlowId f) override;

  // Exposed for tests: alpha as the forks' timer would hold it now.
  double alpha(FlowId f);
  BitsPerSec current_rate_bps(FlowId f) const { return state_[f.index()].rc; }
  BitsPerSec target_rate_bps(FlowId f) const { return state_[f.index()].rt; }
  uint32_t increase_stage(FlowId f) const { return state_[f.index()].stage; }

 private:
  enum TimerKind : uint32_t { kDecreaseCheck = 0, kIncreaseTimer = 1 };
  struct State {
    double alpha = 1.0;
    BitsPerSec rc = 0;               // m_rate
    BitsPerSec rt = 0;               // mlx.m_targetRate
    Time first_cnp = Time::never();  // origin of the alpha and check grids
    uint64_t alpha_ticks = 0;        // alpha-timer expiries applied so far
    bool alpha_cnp_arrived = false;  // mlx.m_alpha_cnp_arrived
    uint32_t stage = 0;              // mlx.m_rpTimeStage
    bool active = false;
    TimerSlot decrease_check;
    TimerSlot increase_timer;
  };

  friend class Simulator;                               // delivers the timers to on_event
  void on_event(uint32_t kind, uint64_t arg) override;  // the timers
  void advance_alpha(State& s, Time now) const;
  void schedule_check(FlowId f, Time now);
  void cut(FlowId f);
  void increase(FlowId f);
  void apply(FlowId f);

  DcqcnConfig cfg_;
  std::vector<State> state_;
  uint32_t handler_ = 0;
};

}  // namespace rocelab
