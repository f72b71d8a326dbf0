// HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM'19): each switch
// egress stamps INT (net/int_telemetry.h) into data packets, the receiver echoes it in the
// ACK, and the sender estimates each hop's normalised in-flight bytes
//   u_i = min(qlen_i, qlen_i') / (B_i T) + txRate_i / B_i        (Alg. 1 MeasureInflight)
// keeps the most utilised hop, smooths it over the base RTT T, and sets its window
//   W = W_c / (U / eta) + W_AI   when U >= eta or after maxStage additive steps,
//   W = W_c + W_AI               otherwise                        (Alg. 1 ComputeWind)
// on every ACK (fast reaction), committing the reference window W_c once per RTT (the first
// ACK past the data in flight at the last commit). It paces at R = W / T.
//
// In rate terms (R = W / T, as the authors' simulator HPCC-ns3 computes it, rdma-hw.cc
// UpdateRateHp): R = R_c / (U / eta) + R_AI, and the window is W = R T / 8 bytes.
#pragma once

#include <memory>
#include <vector>

#include "net/int_telemetry.h"
#include "transport/congestion_control.h"

namespace rocelab {

struct HpccConfig {
  double eta = 0.95;           // target utilisation (HPCC §3.3, §5: eta = 95%)
  uint32_t max_stage = 5;      // additive steps before a multiplicative one (§5: maxStage 5)
  BitsPerSec rate_ai_bps = 0;  // W_AI / T; 0: line rate / 2500 (HPCC-ns3 run.py 10 bw/25 Mb/s)
  BitsPerSec min_rate_bps = gbps(1);  // floor (HPCC-ns3 run.py MIN_RATE 1000Mb/s)
  // T; 0: the largest base RTT between two hosts, propagation both ways plus one MTU
  // payload's serialization per link (HPCC-ns3 third.cc maxRtt, used with GLOBAL_T 1).
  Delta base_rtt = Delta::zero();
  bool fast_react = true;               // react on every ACK, not once per RTT (§3.3)
  double initial_utilisation = 1.0;     // U before any sample (HPCC-ns3: hp.u = 1)
  uint32_t int_data_header_bytes = 42;  // 5 hops x 8 B + 2 B (HPCC-ns3 IntHeader)
  uint32_t int_ack_header_bytes = 42;   // the echoed copy in the ACK
};

class HpccSchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  HpccConfig cfg;
};

class Hpcc final : public CongestionControl {
 public:
  explicit Hpcc(const HpccConfig& cfg = {}) : cfg_(cfg) {}

  CcFabricNeeds fabric_needs() const override;
  void attach(RdmaTransport& transport) override;
  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
  }
  void on_flow_start(FlowId f) override;
  void on_ack(FlowId f, const AckEvent& ack) override;
  void on_nak(FlowId f, const Packet& nak) override;

  // For tests.
  Delta base_rtt() const { return base_rtt_; }
  double utilisation(FlowId f) const { return state_[f.index()].u; }
  BitsPerSec reference_rate_bps(FlowId f) const { return state_[f.index()].rc; }
  uint32_t stage(FlowId f) const { return state_[f.index()].stage; }

 private:
  struct State {
    IntHop hops[IntStack::kMaxHops];  // the previous ACK's INT, per hop
    uint32_t hop_count = 0;           // records stored (0 until the first INT)
    double u = 1;
    BitsPerSec rc = 0;  // reference rate, W_c / T
    uint32_t stage = 0;
    uint64_t last_update_seq = 0;
  };

  void on_feedback(FlowId f, const Packet& reply, uint64_t ack_seq);
  // Alg. 1 MeasureInflight: U of the most utilised hop; false when no hop compares.
  bool measure(State& s, const IntStack& stack, double* hop_u, Delta* hop_tau) const;
  void set_rate(FlowId f, BitsPerSec rate);

  HpccConfig cfg_;
  PacketField<IntStack> int_;
  Delta base_rtt_;
  std::vector<State> state_;
};

}  // namespace rocelab
