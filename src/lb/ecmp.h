// ECMP: the 5-tuple hash, mixed with a per-switch seed (or ns-3's hash under
// switch.ecmp_hash: ns3), picks the next hop; one path per flow for its whole life.
// That choice is the switch's own (Switch::ecmp_index, used wherever no load balancer is
// installed), so the scheme installs nothing: a packet pays no load-balancer call on
// arrival, routing or departure.
#pragma once

#include "net/load_balancer.h"

namespace rocelab {

class EcmpConfig final : public LbConfig {
 public:
  std::unique_ptr<LoadBalancer> build(const SwitchView&) const override { return nullptr; }
};

}  // namespace rocelab
