// A packet is a plain struct with typed fields (never byte offsets), living in a pool and
// referenced by PacketId. Fields a scheme needs beyond these are declared by the scheme
// (net/packet_state.h) and live beside the pool.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/ids.h"
#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

enum class PacketType : uint8_t {
  kData,
  kAck,     // cumulative: `seq` is the next byte the receiver expects
  kNak,     // go-back-N request: `seq` is the next byte the receiver expects
  kCnp,     // RoCEv2 congestion notification packet (DCQCN notification point -> sender)
  kPause,   // IEEE 802.1Qbb PFC frame: XOFF or XON for one priority
  kControl  // scheme-owned control message (probes, CNM, ...): see `control_kind`
};

constexpr bool is_control(PacketType t) {
  return t != PacketType::kData;
}

struct alignas(64) Packet {
  PacketType type = PacketType::kData;
  Priority priority = 0;  // 802.1p class of the data; control frames use the control queue
  bool ecn_capable = true;
  bool ecn_ce = false;        // congestion experienced (set by RED marking)
  bool cnp_flag = false;      // ACK/NAK carrying a CNP (DCQCN cc.cnp_delivery: ack_flag)
  bool pfc_xoff = false;      // kPause: true = XOFF (pause), false = XON (resume)
  Priority pfc_priority = 0;  // kPause: the class paused or resumed
  bool source_routed = false;
  uint16_t control_kind = 0;  // kControl: which scheme's message (PacketStateLayout::control_kind)
  PortId ingress_port;        // port it arrived on at the current switch (for MMU release)
  uint16_t sport = 0;
  uint16_t dport = 4791;  // RoCEv2 UDP port
  PacketId self;          // its own id (scheme fields are found by it: NetContext::field)

  // The first cache line holds what every switch reads (routing, buffering, marking, the
  // wire list); the second what only the hosts read and the scheme fields (inline_state),
  // so a switch hop under a scheme without packet fields (ECMP, DCQCN) touches one line.
  uint32_t wire_bytes = 0;  // bytes serialized on the link (headers + payload + phy)
  NodeId src;               // sending host
  NodeId dst;               // receiving host
  // The frames on a link's wire form a list through the packets themselves (EgressPort):
  // the frame behind this one, when it arrives, and the event sequence number of its
  // delivery, reserved by the sending node when that frame started (Simulator::reserve_seq:
  // the delivery orders the same whether the link is cut between threads or not). Read with
  // the line a delivery loads: in the second line the sequence number cost 10% more L1 data
  // misses (cachegrind, conweave-128 with 0.5 ms of arrivals: 39.0 M against 35.9 M).
  PacketId next_on_wire;
  uint32_t flow_hash = 0;  // hash of the 5-tuple, computed once at the NIC
  Time next_on_wire_arrival;
  uint64_t next_on_wire_seq = 0;
  FlowId flow;
  // With source_routed: the remaining hop choices of an explicit end-to-end path, one
  // mixed-radix digit per multi-choice hop.
  uint32_t path_digits = 0;

  uint64_t seq = 0;            // data: offset of the first payload byte; ack/nak: cumulative ack
  Time sent_time;              // departure from the sender NIC (data); echoed in ACK/NAK
  uint32_t payload_bytes = 0;  // RDMA payload carried (data only; switches do not read it)
  // The NIC port its QP uses at both ends (port k: the host's k-th link, plane k). Switches
  // read it only in fabrics whose NICs have several ports (Routing::multi_port).
  uint8_t nic_port = 0;

  // The first scheme-declared fields (net/packet_state.h), in the packet itself so that a
  // switch reading them touches no other memory. Zeroed with the packet.
  // 40: the transport's own two fields (its SACK sequence, the first-of-flow mark) left the
  // packet for here, with the room they took.
  static constexpr uint32_t kInlineStateBytes = 40;
  alignas(8) std::byte inline_state[kInlineStateBytes] = {};
};
static_assert(sizeof(Packet) == 128);
static_assert(offsetof(Packet, inline_state) == 88, "nic_port took padding, not a field's room");
static_assert(offsetof(Packet, path_digits) + sizeof(uint32_t) <= 64,
              "what switches read stays in the first cache line");

// Bytes a scheme's own header adds to every data frame and to every ACK/NAK (an INT stack,
// a tag): declared by load balancers, switch features and congestion controls alike, and
// added to the wire model before the network is built (PFC headroom counts them).
struct HeaderBytes {
  uint32_t data = 0;
  uint32_t ack = 0;
};

// The header model, stated once. RoCEv2 data frame: Ethernet 14 + IPv4 20 + UDP 8 +
// BTH 12 + ICRC 4 + FCS 4 = 62 bytes of headers; ACK/NAK add AETH 4; a CNP carries 16
// reserved bytes after the BTH. PFC frames are minimum-size (64 B) MAC control frames.
// On the wire each frame also takes preamble+SFD 8 + inter-frame gap 12 = 20 bytes,
// counted when `phy_overhead_bytes` is 20 (set 0 to match simulators that ignore it).
struct WireModel {
  uint32_t mtu_payload_bytes = 1000;  // payload per full data packet (ns-3 reference sims)
  uint32_t data_header_bytes = 62;
  uint32_t ack_bytes = 66;
  uint32_t cnp_bytes = 78;
  uint32_t pfc_frame_bytes = 64;
  uint32_t phy_overhead_bytes = 20;
  // Serialization times are truncated to a multiple of this (0: exact). ns-3 keeps time in
  // whole nanoseconds and truncates a frame's transmission time to them.
  Delta serialization_resolution;

  // A frame of `bytes` at `rate_bps`, at the model's resolution.
  Delta serialize(int64_t bytes, BitsPerSec rate_bps) const {
    const Delta d = serialization_delay(bytes, rate_bps);
    return serialization_resolution.ps > 0 ? Delta{d.ps - d.ps % serialization_resolution.ps} : d;
  }

  uint32_t data_wire_bytes(uint32_t payload) const {
    return payload + data_header_bytes + phy_overhead_bytes;
  }
  uint32_t mtu_wire_bytes() const { return data_wire_bytes(mtu_payload_bytes); }
  uint32_t control_wire_bytes(PacketType t) const {
    switch (t) {
      case PacketType::kAck:
      case PacketType::kNak:
        return ack_bytes + phy_overhead_bytes;
      case PacketType::kCnp:
        return cnp_bytes + phy_overhead_bytes;
      case PacketType::kPause:
        return pfc_frame_bytes + phy_overhead_bytes;
      default:
        return 64 + phy_overhead_bytes;
    }
  }
  // Wire bytes to carry `size` payload bytes in MTU-sized packets.
  uint64_t message_wire_bytes(uint64_t size) const {
    const uint64_t full = size / mtu_payload_bytes;
    const uint64_t rest = size % mtu_payload_bytes;
    return full * mtu_wire_bytes() + (rest ? data_wire_bytes(static_cast<uint32_t>(rest)) : 0);
  }
};

void describe(ParamVisitor& v, WireModel& w);

}  // namespace rocelab
