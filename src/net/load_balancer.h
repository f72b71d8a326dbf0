// The switch load-balancing plug point. One instance per switch (a scheme may install
// itself only on edge switches). It picks the egress port among equal-cost candidates for
// data packets, and may consume or originate control packets through the switch.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/params.h"

namespace rocelab {

class Switch;

class LoadBalancer {
 public:
  virtual ~LoadBalancer() = default;
  // `candidates` holds at least two ports toward the packet's destination edge switch.
  virtual PortId choose_egress(Switch& sw, PacketId pkt, std::span<const PortId> candidates) = 0;
  // Sees every packet arriving at the switch before routing; true = consumed (the
  // scheme freed or forwarded it itself).
  virtual bool on_receive(Switch& /*sw*/, PacketId /*pkt*/, PortId /*in_port*/) { return false; }
  // A data packet starts transmission on `port`.
  virtual void on_dequeue(Switch& /*sw*/, PortId /*port*/, PacketId /*pkt*/) {}

  // Figures for summary.json, combined over switches: summed, or the maximum.
  struct Stat {
    std::string name;
    double value;
    bool take_max = false;
  };
  virtual void add_stats(std::vector<Stat>& /*out*/) const {}
};

// A load balancer's parameters and its factory: one object per scenario, building one
// instance per switch (nullptr = plain ECMP hashing on that switch, e.g. edge-only schemes).
class LbConfig {
 public:
  virtual ~LbConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual std::unique_ptr<LoadBalancer> build(Switch& sw) const = 0;
};

}  // namespace rocelab
