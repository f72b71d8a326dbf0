// Pinning a packet to an end-to-end path ID (Routing's mixed-radix path IDs) by explicit
// source routing: the one way every path-aware scheme (FLB, CONGA, ConWeave, Proteus at
// the source edge; Hermes and MP-RDMA at the host) writes a path into a packet, and the
// one way a downstream switch reads or rewrites the choice it is about to make.
#pragma once

#include <cstdint>
#include <span>

#include "net/packet.h"
#include "sim/ids.h"

namespace rocelab {

// At the source edge, choosing among `hops` (the first multi-choice hop): the port path
// `path` leaves by. When the path makes more choices further on (`paths` > hops), the
// remaining digits ride in the packet and Switch::route consumes one per choice hop.
inline PortId pin_path_at_edge(Packet& p, uint32_t path, uint64_t paths,
                               std::span<const PortId> hops) {
  const uint32_t n0 = static_cast<uint32_t>(hops.size());
  if (paths > n0) {
    p.source_routed = true;
    p.path_digits = path / n0;
  }
  return hops[path % n0];
}

// At a host: every choice of the path rides in the packet (the host link has none).
inline void pin_path_from_host(Packet& p, uint32_t path) {
  p.source_routed = true;
  p.path_digits = path;
}

// At a switch downstream of the source edge, about to route a source-routed packet among
// `n` hops: the index Switch::route will take.
inline uint32_t pinned_choice(const Packet& p, uint32_t n) {
  return p.path_digits % n;
}

}  // namespace rocelab
