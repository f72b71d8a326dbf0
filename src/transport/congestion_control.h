// The congestion-control plug point: one object per simulation holds the per-flow state of
// every sender QP in flat arrays indexed by FlowId, reacts to ACK/NAK/CNP/timeouts and sets
// each flow's rate (and window, where the scheme uses one) through the transport. Its
// receiver half (DCQCN's CNP rule, PCN's rate estimate) sees every data packet arriving at
// the receiving NIC. Scheme fields of packets (INT, timestamps) come from
// RdmaTransport::field, with the ones declared Echo::kToReply copied into ACK/NAK/CNP.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

// What a scheme needs of the fabric, asked once before the network is built.
struct CcFabricNeeds {
  // Switch features installed on every switch after switch.features (HPCC: "int").
  std::vector<std::string> switch_features;
  // Bytes the scheme's header adds to every data frame and to every ACK/NAK (an INT stack).
  uint32_t data_header_bytes = 0;
  uint32_t ack_header_bytes = 0;
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  virtual CcFabricNeeds fabric_needs() const { return {}; }
  // A cap on each flow's bytes in flight, in end-to-end BDPs at the NIC's line rate (0 =
  // none); the transport applies it below the scheme's own window. BFC §4.1's DCQCN+Win.
  double window_cap_bdp() const { return window_cap_bdp_; }
  void set_window_cap_bdp(double bdps) { window_cap_bdp_ = bdps; }
  // Called once, before any flow starts.
  virtual void attach(RdmaTransport& transport) { transport_ = &transport; }
  // Every QP's id is below `n`: size per-flow state (by the QP's FlowId) once instead of
  // growing it flow by flow. Called again as QPs are added, with a larger n.
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
  // The QP moved to another NIC port (its old one failed): state tied to switches of the
  // old path (a pause a switch ordered) no longer applies. Rate state stays by default.
  virtual void on_port_moved(FlowId) {}

  // Receiver half. A data packet of flow f reached its receiver (before it is acknowledged);
  // the scheme may answer with RdmaTransport::send_cnp.
  virtual void on_data_received(FlowId, const Packet& /*data*/) {}
  // Whether the ACK/NAK that `data` triggers carries a CNP flag.
  virtual bool flag_cnp_on_reply(FlowId, const Packet& /*data*/, PacketType /*reply*/) {
    return false;
  }

 protected:
  RdmaTransport* transport_ = nullptr;

 private:
  double window_cap_bdp_ = 0;
};

// A congestion control's parameters and its factory.
class CcConfig {
 public:
  virtual ~CcConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual std::unique_ptr<CongestionControl> build() const = 0;

  // The window cap of a rate-based scheme (CongestionControl::window_cap_bdp): its
  // describe lists it, its build hands it on.
  double window_cap_bdp = 0;

 protected:
  void describe_window_cap(ParamVisitor& v) {
    v.real("window_cap_bdp", window_cap_bdp, 0, 1000,
           "cap on bytes in flight per flow, in end-to-end BDPs at line rate (0: none; 1: "
           "the window of BFC's DCQCN+Win, after its ref. [22])");
  }
  std::unique_ptr<CongestionControl> with_window_cap(std::unique_ptr<CongestionControl> cc) const {
    cc->set_window_cap_bdp(window_cap_bdp);
    return cc;
  }
};

}  // namespace rocelab
