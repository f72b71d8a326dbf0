// LetFlow (Vanini et al., NSDI'17): a flowlet table indexed by the 5-tuple hash; a packet
// arriving more than the flowlet timeout after the previous one of its entry starts a new
// flowlet on a uniformly random next hop. The table has a fixed size, so flows that
// collide share an entry as they would in switch hardware.
#pragma once

#include <vector>

#include "net/load_balancer.h"
#include "net/switch_view.h"
#include "sim/random.h"

namespace rocelab {

struct LetFlowConfig {
  Delta flowlet_timeout = Delta::from_us(50);  // FLB §2 testbed setting
  uint32_t table_entries = 1 << 14;            // power of two
};

class LetFlowSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  LetFlowConfig cfg;
};

class LetFlow final : public LoadBalancer {
 public:
  LetFlow(const SwitchView& sw, const LetFlowConfig& cfg)
      : cfg_(cfg), rng_(sw.seed(), "letflow", sw.id().index()) {}
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  uint64_t flowlets_started() const { return flowlets_; }
  void add_stats(std::vector<Stat>& out) const override {
    out.push_back({"letflow_flowlets", static_cast<double>(flowlets_)});
  }

 private:
  struct Entry {
    Time last_seen = Time::never();
    uint16_t choice = 0;
  };
  LetFlowConfig cfg_;
  RandomStream rng_;
  std::vector<Entry> table_;  // allocated on first use: switches that never choose pay nothing
  uint64_t flowlets_ = 0;
};

}  // namespace rocelab
