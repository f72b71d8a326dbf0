// The switch-feature plug point: per-switch functions in the packet path that are not the
// load balancer and not flow control. ECN/RED marking is one (net/ecn.h); INT stamping
// (HPCC), PCN's NP-ECN and utilisation estimators (CONGA's DRE) come as others. Features
// run in the order installed; each sees the switch only through a SwitchView.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/scheme_stat.h"
#include "net/switch_view.h"

namespace rocelab {

class SwitchFeature {
 public:
  // The hooks a feature uses: the switch calls only those, so a feature that marks at
  // dequeue costs nothing on receive and enqueue.
  enum Hook : uint32_t { kOnReceive = 1, kOnEnqueue = 2, kOnDequeue = 4 };
  virtual ~SwitchFeature() = default;
  virtual uint32_t hooks() const { return kOnReceive | kOnEnqueue | kOnDequeue; }
  // A packet (of any type but PAUSE) arrived; runs before routing, and before the load
  // balancer sees it. True = consumed, as a load balancer may: the feature holds it,
  // forwards it later (SwitchView::forward) or frees it, and nothing after it sees it.
  virtual bool on_receive(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*in_port*/) {
    return false;
  }
  // A data packet was admitted to egress `port` and is about to be queued.
  virtual void on_enqueue(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*port*/) {}
  // A data packet leaves its queue on `port`: it starts transmission now.
  virtual void on_dequeue(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*port*/,
                          size_t /*queue*/) {}
  // Figures for summary.json's feature_stats, combined over switches: summed, or the
  // maximum.
  virtual void add_stats(std::vector<SchemeStat>& /*out*/) const {}
};

// A feature's factory: one instance per switch (nullptr: not on this switch).
class SwitchFeatureConfig {
 public:
  virtual ~SwitchFeatureConfig() = default;
  virtual std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const = 0;
  // What the feature's header adds to every frame (net/packet.h).
  virtual HeaderBytes header_bytes() const { return {}; }
};

}  // namespace rocelab
