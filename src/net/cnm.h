// Congestion notification message (QCN-style CNM, IEEE 802.1Qau) as FLB uses it (FLB §3.2):
// a control packet from the destination edge switch that names a flow, says whether its
// egress port is congested, and how many flows are congested there. The source edge
// switch acts on it and forwards it to the sending host (FLB's minimal rate control).
#pragma once

#include <cstdint>

#include "net/packet.h"

namespace rocelab {

struct Cnm {
  bool congested = false;
  uint32_t congested_flows = 0;  // n
  uint32_t flow_key = 0;         // the flow table key at the switches (flow id or CRC16)
};

namespace cnm_detail {
constexpr uint64_t kMagic = 0xC4Dull << 48;
constexpr uint64_t kMagicMask = 0xFFFull << 48;
}  // namespace cnm_detail

inline void write_cnm(Packet& p, const Cnm& c) {
  p.type = PacketType::kControl;
  p.scheme_tag[0] = cnm_detail::kMagic | (c.congested ? (1ull << 47) : 0) | c.congested_flows;
  p.scheme_tag[1] = c.flow_key;
}

inline bool is_cnm(const Packet& p) {
  return p.type == PacketType::kControl &&
         (p.scheme_tag[0] & cnm_detail::kMagicMask) == cnm_detail::kMagic;
}

inline Cnm read_cnm(const Packet& p) {
  Cnm c;
  c.congested = (p.scheme_tag[0] >> 47) & 1;
  c.congested_flows = static_cast<uint32_t>(p.scheme_tag[0] & 0xffffffffu);
  c.flow_key = static_cast<uint32_t>(p.scheme_tag[1]);
  return c;
}

}  // namespace rocelab
