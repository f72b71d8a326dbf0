// Congestion notification message (QCN-style CNM, IEEE 802.1Qau) as FLB uses it (FLB §3.2):
// a control packet from the destination edge switch that names a flow, says whether its
// egress port is congested, and how many flows are congested there. The source edge
// switch acts on it and forwards it to the sending host (FLB's minimal rate control).
// Both ends declare the same packet field and control kind by name.
#pragma once

#include <cstdint>

#include "net/packet.h"
#include "net/packet_state.h"

namespace rocelab {

struct Cnm {
  bool congested = false;
  uint32_t congested_flows = 0;  // n
  uint32_t flow_key = 0;         // the flow table key at the switches (flow id or CRC16)
  // The congested port, named by the host behind it (QCN's congestion point ID): flows
  // reported by one congestion point share its n.
  uint32_t congestion_point = 0;
};

class CnmFormat {
 public:
  explicit CnmFormat(PacketStateLayout& layout)
      : field_(layout.declare<Cnm>("cnm")), kind_(layout.control_kind("cnm")) {}

  // `fields` is whatever gives the scheme its packet fields (a SwitchView, the transport).
  template <class Fields>
  void write(Fields& fields, Packet& p, const Cnm& c) const {
    p.type = PacketType::kControl;
    p.control_kind = kind_;
    fields.field(field_, p) = c;
  }
  bool is_cnm(const Packet& p) const {
    return p.type == PacketType::kControl && p.control_kind == kind_;
  }
  template <class Fields>
  Cnm read(Fields& fields, const Packet& p) const {
    return fields.field(field_, p);
  }

 private:
  PacketField<Cnm> field_;
  ControlKind kind_;
};

}  // namespace rocelab
