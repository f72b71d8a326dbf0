// In-band network telemetry (INT), the switch half of HPCC (Li et al., SIGCOMM'19 §3.2):
// as a data packet leaves a switch egress, the switch appends one record for that hop —
// when it left, the port's transmitted bytes so far, its queue and its link rate. The
// receiver echoes the stack into the ACK (Echo::kToReply), where the sender's congestion
// control reads it. Records keep full precision (no quantisation of the INT wire format).
#pragma once

#include <cstdint>

#include "net/packet_state.h"
#include "net/switch_feature.h"
#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

struct IntHop {
  Time ts;                  // when the packet left the egress queue
  uint64_t tx_bytes = 0;    // wire bytes the port transmitted before this packet
  BitsPerSec rate_bps = 0;  // the port's link rate
  int64_t qlen_bytes = 0;   // bytes queued in the port's data queues behind the packet
  NodeId node;              // the switch and its egress port (INT switch id, port id):
  PortId port;              // a sender can tell a hop of another path from its own
};

struct IntStack {
  // HPCC §5: five hops cover a three-tier Clos path (HPCC-ns3 IntHeader::maxHop).
  static constexpr uint32_t kMaxHops = 5;
  uint32_t hops = 0;  // records filled; hops past kMaxHops are not recorded
  IntHop hop[kMaxHops];
};

// The packet field every INT user shares (declared once by whoever asks first).
inline PacketField<IntStack> int_stack_field(PacketStateLayout& layout) {
  return layout.declare<IntStack>("int.stack", Echo::kToReply);
}

class IntStamping final : public SwitchFeature {
 public:
  explicit IntStamping(const SwitchView& sw) : stack_(int_stack_field(sw.packet_layout())) {}
  uint32_t hooks() const override { return kOnDequeue; }
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;

 private:
  PacketField<IntStack> stack_;
};

}  // namespace rocelab
