// DRILL (Ghorbani et al., "DRILL: Micro Load Balancing for Low-latency Data Center
// Networks", SIGCOMM'17): every switch balances per packet on its own egress queues. For
// each data packet a forwarding engine samples d random equal-cost ports, adds the m
// least-loaded ports it remembers from its previous decisions, sends the packet to the
// least loaded of them and remembers the best (§3.2, DRILL(d, m); d = 2, m = 1 is the
// paper's choice). Loads are the local egress queues in bytes.
//
// Modelled: one forwarding engine per ingress port, each with its own memory (§3.2: engines
// decide independently on shared queue lengths). `model: ns3` is ConWeave-ns3's DRILL
// (switch-node.cc DoLbDrill): one memory per destination host, d distinct samples. Not modelled:
// the decomposition of an asymmetric fabric into symmetric components (§3.3, Quiver); on asymmetric
// topologies DRILL here balances over the equal-cost next hops as they are.
#pragma once

#include <string>
#include <vector>

#include "net/load_balancer.h"
#include "net/switch_view.h"
#include "sim/random.h"

namespace rocelab {

struct DrillConfig {
  std::string model = "paper";
  uint32_t samples = 2;  // d (DRILL §3.2, §5: DRILL(2,1))
  uint32_t memory = 1;   // m
};

class DrillSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  DrillConfig cfg;
};

class Drill final : public LoadBalancer {
 public:
  Drill(const SwitchView& sw, const DrillConfig& cfg);
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;

 private:
  PortId choose_ns3(const SwitchView& sw, Packet& p, std::span<const PortId> candidates);

  DrillConfig cfg_;
  bool ns3_;
  RandomStream rng_;
  // memory_[engine * m + i]: the i-th remembered port of that engine (invalid: none yet).
  // Under model ns3: one remembered port per destination host.
  std::vector<PortId> memory_;
  std::vector<PortId> scratch_;
};

}  // namespace rocelab
