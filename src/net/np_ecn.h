// PCN's congestion point (Cheng et al., "Re-architecting Congestion Management in Lossless
// Ethernet", NSDI'20): Non-PAUSE ECN. Under PFC a queue that is paused from downstream
// grows without being the bottleneck, and RED marks every flow in it, the victims with the
// culprits. NP-ECN marks on one threshold, as DCTCP does (PCN's receiver counts the share
// of marked packets, which RED's probabilities would blur): a data packet is marked at
// dequeue when it leaves more than switch.ecn.kmin bytes behind it in its queue (scaled to
// the port's rate as RED's are), unless it waited through a PAUSE of its queue: then the
// congestion it saw was not the port's own. A packet is taken to have waited through one
// when its queue was paused as it arrived, or a PAUSE started while it waited
// (EgressPort::pause_epoch moved on). PCN's own threshold is not known to us: kmin is our
// choice (docs/schemes/pcn.md). A packet ConWeave holds in the switch buffer is stamped
// when it is admitted (Switch::admit_held), so a PAUSE during its hold also spares it.
#pragma once

#include <cstdint>
#include <vector>

#include "net/net_context.h"
#include "net/packet_state.h"
#include "net/switch_config.h"
#include "net/switch_feature.h"

namespace rocelab {

// Stamped on a data packet as it joins an egress queue, read as it leaves (per hop).
struct NpEcnStamp {
  uint32_t pause_epoch = 0;
  uint8_t paused_on_arrival = 0;
};

class NpEcnMarking final : public SwitchFeature {
 public:
  NpEcnMarking(const SwitchView& sw, NetCounterLanes& counters);
  uint32_t hooks() const override { return kOnEnqueue | kOnDequeue; }
  void on_enqueue(const SwitchView& sw, Packet& p, PortId port) override;
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;
  // np_ecn_spared_by_pause: packets over the threshold left unmarked because they waited
  // through a PAUSE of their queue.
  void add_stats(std::vector<SchemeStat>& out) const override {
    out.push_back({"np_ecn_spared_by_pause", static_cast<double>(spared_)});
  }

 private:
  std::vector<EcnConfig> port_ecn_;  // kmin is the threshold
  PacketField<NpEcnStamp> stamp_;
  NetCounterLanes& counters_;
  uint64_t spared_ = 0;
};

}  // namespace rocelab
