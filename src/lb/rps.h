// Random packet spraying (RPS, Dixit et al., INFOCOM'13): every data packet takes a
// uniformly random equal-cost next hop, drawn from its own random stream.
#pragma once

#include "net/load_balancer.h"
#include "net/switch_view.h"
#include "sim/random.h"

namespace rocelab {

class Rps final : public LoadBalancer {
 public:
  explicit Rps(const SwitchView& sw) : rng_(sw.seed(), "rps", sw.id().index()) {}
  PortId choose_egress(const SwitchView&, Packet&, std::span<const PortId> candidates) override {
    return candidates[rng_.below(candidates.size())];
  }

 private:
  RandomStream rng_;
};

}  // namespace rocelab
