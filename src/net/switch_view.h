// What a switch scheme (load balancer, switch feature) sees of its switch: read-only state
// (ports, their queues and pause state, configuration, routing, time) and the few actions
// a scheme may take: write its own fields of the packets passing through, originate
// control packets, run its own timers. It cannot enqueue data, touch the buffer
// accounting or another scheme's state (DESIGN.md, "Switch load balancer").
#pragma once

#include <cstddef>
#include <span>

#include "net/egress_port.h"
#include "net/net_context.h"
#include "net/switch_config.h"
#include "sim/ids.h"

namespace rocelab {

class Switch;
class FlowControl;

class SwitchView {
 public:
  explicit SwitchView(Switch& sw) : sw_(&sw) {}

  NodeId id() const;
  bool is_edge() const;
  size_t port_count() const;
  const EgressPort& port(PortId p) const;
  const SwitchConfig& config() const;
  const FlowControl& flow_control() const;
  const Routing& routing() const;
  const WireModel& wire() const;
  Time now() const;
  // The switch's ECMP choice among `hops` for `p` (switch.ecmp_hash).
  size_t ecmp_index(const Packet& p, std::span<const PortId> hops) const;
  uint64_t seed() const;

  // Packets passing through: a scheme writes its own fields (PacketStateLayout).
  Packet& pkt(PacketId id) const;
  template <class T>
  T& field(PacketField<T> f, const Packet& p) const {
    return context().field(f, p);
  }
  PacketStateLayout& packet_layout() const { return context().state.layout(); }
  // A new packet for a control message (the caller fills it and sends it).
  PacketId new_packet() const;
  // Sends a control packet out of `port`, in the strict-priority control queue.
  void send_control(PacketId pkt, PortId port) const;
  // Routes a packet the scheme held back (it consumed it in on_receive) as if it had just
  // arrived on `in_port`; or drops a packet the scheme consumed for good.
  void forward(PacketId pkt, PortId in_port) const;
  void free_packet(PacketId pkt) const;
  // For a scheme's own timers.
  Simulator& sim() const;

 private:
  NetContext& context() const;
  Switch* sw_;
};

}  // namespace rocelab
