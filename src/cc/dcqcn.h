// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM'15):
// the reaction point at the sender, as the paper's equations and Fig. 5 state it
// (`model: sigcomm15`). The Mellanox NIC model of the ns-3 reference simulators
// (`model: ns3_mlx`) is in cc/dcqcn_mlx.h. The congestion point is the switch's RED/ECN marking
// (net/switch_node.cc) and the notification point the receiver's CNP generation
// (transport/rdma_transport.cc). Per-flow state in flat arrays by FlowId.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cc/dcqcn_np.h"
#include "sim/simulator.h"
#include "transport/congestion_control.h"

namespace rocelab {

// Defaults: the DCQCN paper's values as the authors' own simulator (bobzhuyb/ns3-rdma,
// mix/config.txt) and htsim's dcqcn.cpp set them. docs/reference-parameters.md lists
// these and the differing HPCC / ConWeave ns-3 settings.
struct DcqcnConfig {
  double g = 1.0 / 256;                               // alpha gain (htsim _g; ns3-rdma DCTCP_GAIN)
  double initial_alpha = 1.0;                         // first CNP halves the rate (htsim _alpha)
  Delta alpha_update_interval = Delta::from_us(55);   // K (htsim _cc_update_period)
  Delta rate_increase_interval = Delta::from_us(55);  // T (htsim _cc_update_period)
  int64_t byte_counter_bytes = 10 * 1000 * 1000;      // B (htsim _B)
  uint32_t fast_recovery_steps = 5;                   // F (htsim _F; ns3-rdma FastRecoveryTimes)
  BitsPerSec rate_ai_bps = mbps(40);                  // R_AI (ns3-rdma config RATE_AI)
  BitsPerSec rate_hai_bps = mbps(200);                // R_HAI (ns3-rdma config RATE_HAI)
  BitsPerSec min_rate_bps = mbps(100);                // ns3-rdma / HPCC ns-3 MinRate
  // sigcomm15: cuts closer together than this are merged (CNPs still update alpha);
  // 0 = every CNP.
  Delta min_cut_interval = Delta::zero();
  // Which reaction point: "sigcomm15" (the paper) or "ns3_mlx" (the Mellanox model of the
  // HPCC/ConWeave ns-3 simulators, rdma-hw.cc *Mlx functions).
  std::string model = "sigcomm15";
  // ns3_mlx only. RATE_DECREASE_INTERVAL: the period of the check that applies a cut
  // once a CNP has arrived (rdma-hw.cc CheckRateDecreaseMlx; attribute default 4 us).
  Delta rate_decrease_interval = Delta::from_us(4);
  // ns3_mlx only. RateOnFirstCnp: the fraction of the rate kept on a flow's first CNP
  // (rdma-hw.cc cnp_received_mlx; attribute default 1.0).
  double rate_on_first_cnp = 1.0;
  // ns3_mlx only. CLAMP_TARGET_RATE: a cut always sets the target to the current rate;
  // when false (the forks' runs), only if the increase timer fired since the last cut.
  bool clamp_target_rate = false;
  DcqcnNpConfig np;  // the notification point's rules (dcqcn_np.h)
};

inline const std::string kDcqcnModels[] = {"sigcomm15", "ns3_mlx"};

class DcqcnSchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  DcqcnConfig cfg;
};

// Its own timers come back through EventHandler.
class Dcqcn final : public DcqcnReceiverHalf, private EventHandler {
 public:
  explicit Dcqcn(const DcqcnConfig& cfg = {}) : DcqcnReceiverHalf(cfg.np), cfg_(cfg) {}

  void attach(RdmaTransport& transport) override;
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
    reserve_receiver(n);
  }
  void on_flow_start(FlowId f) override;
  void on_packet_sent(FlowId f, const Packet& p) override;
  void on_cnp(FlowId f, const Packet& p) override;
  void on_flow_finish(FlowId f) override;

  // Exposed for tests and time series.
  double alpha(FlowId f) const { return state_[f.index()].alpha; }
  BitsPerSec current_rate_bps(FlowId f) const { return state_[f.index()].rc; }
  BitsPerSec target_rate_bps(FlowId f) const { return state_[f.index()].rt; }
  const DcqcnConfig& config() const { return cfg_; }

 private:
  enum TimerKind : uint32_t { kAlphaTimer = 0, kIncreaseTimer = 1 };
  struct State {
    double alpha = 1.0;
    BitsPerSec rc = 0;  // current rate
    BitsPerSec rt = 0;  // target rate
    uint64_t bytes_since_increase = 0;
    uint32_t timer_stage = 0;  // T counter: increase-timer expiries since the last cut
    uint32_t byte_stage = 0;   // BC counter: byte-counter expiries since the last cut
    bool cnp_since_alpha_update = false;
    bool active = false;
    Time last_cut = Time::never();
    TimerSlot alpha_timer;
    TimerSlot increase_timer;
  };

  friend class Simulator;                               // delivers the timers to on_event
  void on_event(uint32_t kind, uint64_t arg) override;  // the timers
  void increase(FlowId f);
  void apply(FlowId f);

  DcqcnConfig cfg_;
  std::vector<State> state_;
  uint32_t handler_ = 0;
};

}  // namespace rocelab
