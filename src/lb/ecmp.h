// ECMP: the 5-tuple hash, mixed with a per-switch seed, picks the next hop; one path per
// flow for its whole life.
#pragma once

#include "net/load_balancer.h"
#include "net/switch_node.h"

namespace rocelab {

class Ecmp final : public LoadBalancer {
 public:
  PortId choose_egress(Switch& sw, PacketId pkt, std::span<const PortId> candidates) override {
    return candidates[sw.ecmp_index(sw.context().pkt(pkt), candidates)];
  }
};

}  // namespace rocelab
