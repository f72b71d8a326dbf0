// RED-style ECN marking on the instantaneous queue (the DCQCN congestion point): no mark
// at or below Kmin, probability rising linearly to Pmax at Kmax, always above Kmax. A
// switch feature, marking as a data packet leaves its queue (as the HPCC/ConWeave ns-3
// simulators do), with its own random stream (named "switch", the stream RED has always
// used): the load balancer's draws never change which packets are marked, so schemes
// compared on one seed see the same marking randomness.
#pragma once

#include <cstdint>
#include <vector>

#include "net/net_context.h"
#include "net/switch_config.h"
#include "net/switch_feature.h"
#include "sim/random.h"

namespace rocelab {

inline double red_mark_probability(int64_t queue_bytes, const EcnConfig& ecn) {
  if (queue_bytes <= ecn.kmin_bytes) return 0.0;
  if (queue_bytes > ecn.kmax_bytes) return 1.0;
  return ecn.pmax * static_cast<double>(queue_bytes - ecn.kmin_bytes) /
         static_cast<double>(ecn.kmax_bytes - ecn.kmin_bytes);
}

inline bool red_should_mark(int64_t queue_bytes, const EcnConfig& ecn, RandomStream& rng) {
  const double p = red_mark_probability(queue_bytes, ecn);
  return p >= 1.0 || (p > 0.0 && rng.uniform() < p);
}

// The ECN thresholds of each of a switch's ports, by port index (EcnConfig::for_port).
std::vector<EcnConfig> port_ecn_configs(const SwitchView& sw);

class RedEcnMarking final : public SwitchFeature {
 public:
  // Thresholds per egress port, scaled to its rate (EcnConfig::for_port).
  RedEcnMarking(const SwitchView& sw, NetCounterLanes* counters);
  uint32_t hooks() const override { return kOnDequeue; }
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;

 private:
  std::vector<EcnConfig> port_ecn_;
  RandomStream rng_;
  NetCounterLanes* counters_;  // ecn_marks, in the running partition's lane
};

}  // namespace rocelab
