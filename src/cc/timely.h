// TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
// SIGCOMM'15), Algorithm 1: the rate follows the RTT gradient. Per update,
//   rtt_diff = (1 - alpha) rtt_diff + alpha (rtt - prev_rtt); g = rtt_diff / minRTT
//   rtt < T_low:  R += delta
//   rtt > T_high: R *= 1 - beta (1 - T_high / rtt)
//   g <= 0:       R += N delta (N = 5 after five negative gradients in a row: HAI)
//   else:         R *= 1 - beta g
// `model: paper` updates once per completion event (segment_bytes of data acknowledged,
// §3.1, 16 KB in §6) on an RTT sample without the segment's serialization; `model: ns3` is
// the authors'-lab simulator HPCC-ns3 (rdma-hw.cc UpdateRateTimely, CC_MODE 7): one update
// per RTT (the first ACK past the data in flight at the previous one), HAI after five
// increases of any kind (rate_hai), the first ACK only records the RTT, and rates are
// assigned without moving the next packet's send time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport/congestion_control.h"

namespace rocelab {

struct TimelyConfig {
  std::string model = "paper";
  // §6 (10 Gb/s NICs): delta 10 Mb/s, beta 0.8, T_low 50 us, T_high 500 us, 16 KB segments.
  BitsPerSec rate_ai_bps = 0;   // delta; 0: line rate / 1000 (10 Mb/s per 10 Gb/s, §6)
  BitsPerSec rate_hai_bps = 0;  // ns3: the HAI step; 0: 5 delta (N = 5, Alg. 1)
  double beta = 0.8;
  Delta t_low = Delta::from_us(50);
  Delta t_high = Delta::from_us(500);
  uint64_t segment_bytes = 16 * 1024;
  // Not in §6's list: the EWMA weight of the newest difference and the gradient's
  // normaliser, as HPCC-ns3 (TimelyAlpha, TimelyMinRtt) and Padhye's fluid model set them.
  double alpha = 0.875;
  Delta min_rtt = Delta::from_us(20);
  uint32_t hai_threshold = 5;           // N switches to 5 after this many (Alg. 1)
  BitsPerSec min_rate_bps = mbps(100);  // floor (not in the paper; ns3-rdma MinRate)
  uint32_t timestamp_header_bytes = 0;  // bytes of a send timestamp in data (ns3: 8)
};

inline const std::string kTimelyModels[] = {"paper", "ns3"};

class TimelySchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  TimelyConfig cfg;
};

class Timely final : public CongestionControl {
 public:
  explicit Timely(const TimelyConfig& cfg = {}) : cfg_(cfg), ns3_(cfg.model == "ns3") {}

  CcFabricNeeds fabric_needs() const override;
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
  }
  void on_flow_start(FlowId f) override;
  void on_ack(FlowId f, const AckEvent& ack) override;

  // For tests.
  BitsPerSec current_rate_bps(FlowId f) const { return state_[f.index()].rate; }
  double rtt_diff_ps(FlowId f) const { return state_[f.index()].rtt_diff_ps; }

 private:
  struct State {
    BitsPerSec rate = 0;
    double rtt_diff_ps = 0;
    Delta prev_rtt;
    bool have_rtt = false;
    uint32_t streak = 0;  // paper: negative gradients in a row; ns3: increases in a row
    uint64_t next_update_seq = 0;
  };
  void update(FlowId f, Delta rtt);

  TimelyConfig cfg_;
  bool ns3_;
  std::vector<State> state_;
};

}  // namespace rocelab
