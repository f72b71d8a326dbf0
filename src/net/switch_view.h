// What a switch scheme (load balancer, switch feature) sees of its switch: read-only state
// (ports, their queues and pause state, configuration, routing, time) and the few actions
// a scheme may take: write its own fields of the packets passing through, originate
// control packets, run its own timers, hold data it consumed and route it later. It
// cannot enqueue data past the flow control or touch another scheme's state; the one way
// into the buffer accounting is admit_held, for data held for a local host (DESIGN.md,
// "Switch load balancer").
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "net/egress_port.h"
#include "net/net_context.h"
#include "net/node.h"
#include "net/switch_config.h"
#include "sim/ids.h"

namespace rocelab {

class Switch;
class FlowControl;

class SwitchView {
 public:
  explicit SwitchView(Switch& sw);

  // The per-packet queries are inline: schemes call them on every packet.
  NodeId id() const { return node_->id(); }
  bool is_edge() const { return ctx_->routing.is_edge(node_->id().index()); }
  size_t port_count() const { return node_->port_count(); }
  const EgressPort& port(PortId p) const { return std::as_const(*node_).port(p); }
  const SwitchConfig& config() const;
  const FlowControl& flow_control() const;
  const Routing& routing() const { return ctx_->routing; }
  // The routing of the fabric as built, before any failure.
  const Routing& healthy_routing() const {
    return ctx_->healthy_routing ? *ctx_->healthy_routing : ctx_->routing;
  }
  const WireModel& wire() const { return ctx_->wire; }
  Time now() const { return ctx_->sim.now(); }
  // The switch's ECMP choice among `hops` for `p` (switch.ecmp_hash).
  size_t ecmp_index(const Packet& p, std::span<const PortId> hops) const;
  uint64_t seed() const { return ctx_->seed; }

  // Packets passing through: a scheme writes its own fields (PacketStateLayout).
  Packet& pkt(PacketId id) const { return ctx_->pkt(id); }
  template <class T>
  T& field(PacketField<T> f, const Packet& p) const {
    return ctx_->field(f, p);
  }
  PacketStateLayout& packet_layout() const { return ctx_->state.layout(); }
  // A new control message of `kind` from this switch to `dst` (a host or an edge switch),
  // about `flow`, routed by `flow_hash`: a minimum-size frame, not ECN-capable. The caller
  // writes its fields and sends it (forward, or send_control on a port).
  Packet& new_control(ControlKind kind, NodeId dst, FlowId flow, uint32_t flow_hash) const;
  // Sends a control packet out of `port`, in the strict-priority control queue.
  void send_control(PacketId pkt, PortId port) const;
  // Routes a packet the scheme held back (it consumed it in on_receive) as if it had just
  // arrived on `in_port` (free_packet drops one for good).
  void forward(PacketId pkt, PortId in_port) const;
  // Holding data for a local host inside the switch buffer: admit_held charges it to the
  // buffer now (flow control, PFC; false = dropped and freed), enqueue_held later puts it
  // on its egress queue without a second admission.
  bool admit_held(PacketId pkt, PortId in_port) const;
  void enqueue_held(PacketId pkt) const;
  void free_packet(PacketId pkt) const;
  // Swallows the congestion notification `p` carries, counted in summary.json
  // (cnps_suppressed): a CNP frame is freed (true: the caller returns it as consumed); an
  // ACK/NAK loses its CNP flag and goes on (false), so no ACK is ever lost to it.
  bool suppress_cnp(Packet& p) const;
  // For a scheme's own timers.
  Simulator& sim() const { return ctx_->sim; }

 private:
  Switch* sw_;
  Node* node_;
  NetContext* ctx_;
};

}  // namespace rocelab
