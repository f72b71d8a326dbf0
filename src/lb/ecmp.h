// ECMP: the 5-tuple hash, mixed with a per-switch seed, picks the next hop; one path per
// flow for its whole life.
#pragma once

#include "net/load_balancer.h"
#include "net/switch_view.h"
#include "sim/random.h"

namespace rocelab {

class Ecmp final : public LoadBalancer {
 public:
  explicit Ecmp(const SwitchView&) {}
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override {
    return candidates[sw.ecmp_index(p, candidates)];
  }
};

}  // namespace rocelab
