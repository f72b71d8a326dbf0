// The switch load-balancing plug point. One instance per switch (a scheme may install
// itself only on edge switches). It picks the egress port among equal-cost candidates for
// data packets (and for ACK/NAK/CNP/control packets when it asks to), sees every packet
// arriving, and may consume, hold or originate packets through its SwitchView.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "net/packet.h"
#include "net/scheme_stat.h"
#include "net/switch_view.h"
#include "sim/ids.h"
#include "sim/params.h"

namespace rocelab {

class LoadBalancer {
 public:
  virtual ~LoadBalancer() = default;
  // `candidates` holds at least two ports toward the packet's destination edge switch.
  virtual PortId choose_egress(const SwitchView& sw, Packet& p,
                               std::span<const PortId> candidates) = 0;
  // Also route ACK/NAK/CNP and scheme control packets (default: they follow ECMP).
  virtual bool routes_control() const { return false; }
  // Sees every packet arriving at the switch (PAUSE frames excepted) before routing;
  // true = consumed: the scheme holds it, forwards it later (SwitchView::forward) or
  // frees it.
  virtual bool on_receive(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*in_port*/) {
    return false;
  }
  // A data packet is admitted to the buffer toward `port`: queued now, or held by a scheme
  // (SwitchView::admit_held) and queued later (called only for schemes that return
  // true from wants_enqueue, read once when installed: the others pay no call).
  virtual bool wants_enqueue() const { return false; }
  virtual void on_enqueue(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*port*/) {}
  // A data packet starts transmission on `port`.
  virtual void on_dequeue(const SwitchView& /*sw*/, Packet& /*p*/, PortId /*port*/,
                          size_t /*queue*/) {}

  // Figures for summary.json, combined over switches: summed, or the maximum.
  using Stat = SchemeStat;
  virtual void add_stats(std::vector<Stat>& /*out*/) const {}
};

// A load balancer's parameters and its factory: one object per scenario, building one
// instance per switch (nullptr = plain ECMP hashing on that switch, e.g. edge-only schemes).
class LbConfig {
 public:
  virtual ~LbConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const = 0;
  // What the scheme's header adds to every frame (net/packet.h).
  virtual HeaderBytes header_bytes() const { return {}; }
};

}  // namespace rocelab
