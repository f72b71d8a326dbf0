// Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
// Datacenter", SIGCOMM'20): a congestion window in packets driven by the fabric delay of
// each ACK against a target that grows with the path's hop count and shrinks as the
// window grows (flow scaling, §3.2); additive increase below the target, a multiplicative
// decrease proportional to the excess above it at most once per RTT (Algorithm 1); below
// one packet of window the sender paces one packet per RTT / cwnd (§3.4).
//
// Modelled: the fabric window. Not modelled: the endpoint window, since rocelab's NICs
// and hosts add no queueing of their own (endpoint delay is zero); the sender's RTO and
// NAK handling are the transport's, with Swift's window reactions on top.
#pragma once

#include <memory>
#include <vector>

#include "transport/congestion_control.h"

namespace rocelab {

// The paper gives Algorithm 1 and the target formula but few constants (§3.2, §5 leave
// them to deployment). The defaults are the open-source Swift of Google's Falcon simulator
// Isekai (rue/algorithm/swift.h), whose comments trace them to Swift in Pony Express;
// htsim's (sim/swift.cpp) differ and are labelled guesses there. docs/schemes/swift.md
// lists both.
struct SwiftConfig {
  double additive_increase_packets = 1.0;    // ai per RTT (Isekai fabric_additive_increment)
  double beta = 0.8;                         // MD gain (Isekai fabric_multiplicative_decrease)
  double max_mdf = 0.5;                      // largest single decrease (Isekai)
  Delta base_target = Delta::from_us(25);    // one-hop target (Isekai fabric_base_delay)
  Delta per_hop_target = Delta::from_us(1);  // h, per switch hop (Isekai topo_scaling)
  Delta flow_scaling_range = Delta::from_us(100);  // fs_range (Isekai max_flow_scaling)
  double flow_scaling_min_cwnd = 0.1;              // fs_min_cwnd, packets (Isekai)
  double flow_scaling_max_cwnd = 256;              // fs_max_cwnd, packets (Isekai)
  double min_cwnd = 0.001;                         // packets (Swift §3.4)
  double max_cwnd = 256;                           // packets (Isekai max fabric window)
  // A flow starts with this many BDPs of window: RDMA NICs start at line rate.
  double initial_cwnd_bdp = 1.0;
  uint32_t retransmit_reset_threshold = 3;  // RTOs in a row that reset cwnd (Isekai)
};

class SwiftSchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  SwiftConfig cfg;
};

class Swift final : public CongestionControl {
 public:
  explicit Swift(const SwiftConfig& cfg = {}) : cfg_(cfg) {}

  // Sized, not only reserved: a partitioned run's flows may not grow a shared vector.
  void reserve_flows(size_t n) override {
    if (state_.size() < n) state_.resize(n);
  }
  void on_flow_start(FlowId f) override;
  void on_ack(FlowId f, const AckEvent& ack) override;
  void on_nak(FlowId f, const Packet& nak) override;
  void on_timeout(FlowId f) override;

  // For tests.
  double cwnd_packets(FlowId f) const { return state_[f.index()].cwnd; }
  Delta target_delay(FlowId f) const;

 private:
  struct State {
    double cwnd = 1;  // packets
    Time last_decrease = Time::never();
    Delta rtt;  // latest sample
    uint32_t hops = 0;
    uint32_t retransmits = 0;
  };
  bool can_decrease(const State& s, Time now) const;
  void decrease_once(FlowId f, double factor);
  void apply(FlowId f, double old_cwnd);

  SwiftConfig cfg_;
  std::vector<State> state_;
};

}  // namespace rocelab
