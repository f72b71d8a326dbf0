// The congestion-control plug point: one object per simulation holds the per-flow state of
// every sender QP in flat arrays indexed by FlowId, reacts to ACK/NAK/CNP/timeouts and sets
// each flow's rate (and window, where the scheme uses one) through the transport. Its
// receiver half (DCQCN's CNP rule, PCN's rate estimate) sees every data packet arriving at
// the receiving NIC. Scheme fields of packets (INT, timestamps) come from
// RdmaTransport::field, with the ones declared Echo::kToReply copied into ACK/NAK/CNP.
#pragma once

#include <cstdint>
#include <memory>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

class RdmaTransport;

struct AckEvent {
  uint64_t newly_acked_bytes = 0;
  uint64_t snd_una = 0;
  Delta rtt;  // now - departure time of the acked packet
  const Packet* ack = nullptr;
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  // Called once, before any flow starts.
  virtual void attach(RdmaTransport& transport) { transport_ = &transport; }
  // `n` flows will exist: size per-flow state once instead of growing it flow by flow.
  virtual void reserve_flows(size_t /*n*/) {}
  virtual void on_flow_start(FlowId) {}
  virtual void on_packet_sent(FlowId, const Packet&) {}
  virtual void on_ack(FlowId, const AckEvent&) {}
  virtual void on_nak(FlowId, const Packet&) {}
  virtual void on_cnp(FlowId, const Packet&) {}
  virtual void on_timeout(FlowId) {}
  // A scheme-owned control message for this flow reached the sender host (e.g. FLB CNM).
  virtual void on_control(FlowId, const Packet&) {}
  virtual void on_flow_finish(FlowId) {}

  // Receiver half. A data packet of flow f reached its receiver (before it is acknowledged);
  // the scheme may answer with RdmaTransport::send_cnp.
  virtual void on_data_received(FlowId, const Packet& /*data*/) {}
  // Whether the ACK/NAK that `data` triggers carries a CNP flag.
  virtual bool flag_cnp_on_reply(FlowId, const Packet& /*data*/, PacketType /*reply*/) {
    return false;
  }

 protected:
  RdmaTransport* transport_ = nullptr;
};

// A congestion control's parameters and its factory.
class CcConfig {
 public:
  virtual ~CcConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual std::unique_ptr<CongestionControl> build() const = 0;
};

}  // namespace rocelab
