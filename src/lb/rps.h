// Random packet spraying (RPS, Dixit et al., INFOCOM'13): every data packet takes a
// uniformly random equal-cost next hop, drawn from the switch's own random stream.
#pragma once

#include "net/load_balancer.h"
#include "net/switch_node.h"

namespace rocelab {

class Rps final : public LoadBalancer {
 public:
  PortId choose_egress(Switch& sw, PacketId, std::span<const PortId> candidates) override {
    return candidates[sw.rng().below(candidates.size())];
  }
};

}  // namespace rocelab
