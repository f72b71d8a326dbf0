// PCN (Cheng et al., "Re-architecting Congestion Management in Lossless Ethernet",
// NSDI'20): congestion control for PFC fabrics that reacts only to flows that are the
// cause of congestion, and to them within one round trip.
// - Congestion point: NP-ECN at the switches (net/np_ecn.h, installed with the scheme).
// - Notification point (receiver): every cnp_period it tells the sender of each flow that
//   sent it data the rate at which that data arrived, and whether the flow is congested:
//   at least congested_ratio of its packets in the period were marked. Under NP-ECN a
//   mark means a port's own congestion, so a flow whose packets are all marked is a
//   culprit; one with only some marked is passing a congested port it does not saturate.
// - Reaction point (sender): a congested CNP sets the rate to the receive rate (less
//   w_min, so the queue behind it drains) and resets the increase weight; an uncongested
//   one moves the rate toward line rate by weighted increase, R = (1 - w) R + w R_line,
//   doubling w up to w_max. A flow restarting after a PAUSE thus regains line rate in a few
//   periods instead of DCQCN's many timer steps.
//
// Source: the paper's §4 as published. No public implementation of PCN exists, and the
// paper's text is not in this repository: the constants (T = 50 us, 95%, w_min = 1/128,
// w_max = 0.5) are the paper's as we read it, to be checked against it. docs/schemes/pcn.md
// lists what is modelled and what is our reading.
#pragma once

#include <memory>
#include <vector>

#include "net/packet_state.h"
#include "transport/congestion_control.h"

namespace rocelab {

struct PcnConfig {
  Delta cnp_period = Delta::from_us(50);  // T: the NP's reporting period (PCN §4)
  double congested_ratio = 0.95;          // marked share that makes a flow congested
  double w_min = 1.0 / 128;               // increase weight after a congested CNP
  double w_max = 0.5;                     // largest increase weight
  BitsPerSec min_rate_bps = mbps(100);    // floor (not in the paper; DCQCN's)
};

// What a PCN CNP carries (PCN §4: the receive rate and the congestion flag).
struct PcnFeedback {
  BitsPerSec recv_rate_bps = 0;
  uint8_t congested = 0;
};

class PcnSchemeConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<CongestionControl> build() const override;
  PcnConfig cfg;
};

class Pcn final : public CongestionControl {
 public:
  explicit Pcn(const PcnConfig& cfg = {}) : cfg_(cfg) {}

  CcFabricNeeds fabric_needs() const override;
  void attach(RdmaTransport& transport) override;
  void reserve_flows(size_t n) override;
  void on_flow_start(FlowId f) override;
  void on_cnp(FlowId f, const Packet& cnp) override;
  void on_data_received(FlowId f, const Packet& data) override;

  // For tests.
  double increase_weight(FlowId f) const { return sender_[f.index()].w; }

 private:
  struct SenderState {
    double w = 0;
  };
  // The receiver's count for the current period of one flow.
  struct ReceiverState {
    Time period_start = Time::never();
    uint64_t wire_bytes = 0;
    uint32_t packets = 0;
    uint32_t marked = 0;
  };
  void report(ReceiverState& r, const Packet& data);

  PcnConfig cfg_;
  PacketField<PcnFeedback> feedback_;
  std::vector<SenderState> sender_;
  std::vector<ReceiverState> receiver_;
};

}  // namespace rocelab
