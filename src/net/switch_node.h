// An output-queued switch: routing over equal-cost next hops, a pluggable flow control
// (PFC over a shared-buffer MMU by default), a pipeline of switch features (RED/ECN
// marking by default) and a pluggable load balancer. Schemes see it through a SwitchView.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "net/flow_control.h"
#include "net/load_balancer.h"
#include "net/net_context.h"
#include "net/node.h"
#include "net/switch_config.h"
#include "net/switch_feature.h"
#include "net/switch_view.h"

namespace rocelab {

class Switch final : public Node {
 public:
  Switch(NetContext& ctx, NodeId id, const NodeSpec& spec, const SwitchConfig& cfg);

  // Called once all ports are connected and routing is built.
  void finalize();
  void set_flow_control(std::unique_ptr<FlowControl> fc) { fc_ = std::move(fc); }
  void add_feature(std::unique_ptr<SwitchFeature> feature);
  void set_load_balancer(std::unique_ptr<LoadBalancer> lb) {
    lb_ = std::move(lb);
    lb_on_enqueue_ = lb_ && lb_->wants_enqueue();
  }
  LoadBalancer* load_balancer() { return lb_.get(); }
  // The features installed, in pipeline order.
  const std::vector<std::unique_ptr<SwitchFeature>>& features() const { return features_; }
  const FlowControl& flow_control() const { return *fc_; }
  const SwitchView& view() const { return view_; }

  void receive(PacketId pkt, PortId in_port) override;
  void on_dequeue(PortId port, PacketId pkt, size_t queue) override;
  PacketId pull(PortId, Time*) override { return PacketId::invalid(); }

  // Sends a control packet out of `port` (strict priority, not PFC-accounted).
  void send_control(PacketId pkt, PortId port) { port_of(port).enqueue(pkt); }
  // The equal-cost choice among `hops` for a packet (switch.ecmp_hash).
  size_t ecmp_index(const Packet& p, std::span<const PortId> hops) const;

  const SwitchConfig& config() const { return cfg_; }
  bool is_edge() const { return ctx_.routing.is_edge(id_.index()); }

 private:
  EgressPort& port_of(PortId p) { return *ports_[p.index()]; }
  friend class SwitchView;  // forwards what a scheme held back
  PortId route(Packet& p);
  PortId current_hop(const Packet& p, std::span<const PortId> hops, PortId chosen);
  void forward(PacketId pkt, PortId in_port);
  // Buffer admission (flow control, enqueue features) for `p` toward `out`; false: dropped.
  bool admit(Packet& p, PortId in_port, PortId out);
  bool admit_held(PacketId pkt, PortId in_port);
  void enqueue_held(PacketId pkt);

  // What a packet's arrival and departure read, ahead of the configuration.
  std::unique_ptr<FlowControl> fc_;
  std::unique_ptr<LoadBalancer> lb_;
  uint64_t ecmp_seed_;
  bool lb_on_enqueue_ = false;
  bool ns3_hash_ = false;
  // The features using each hook, in pipeline order.
  std::vector<SwitchFeature*> on_receive_, on_enqueue_, on_dequeue_;
  SwitchView view_;
  std::vector<std::unique_ptr<SwitchFeature>> features_;
  SwitchConfig cfg_;
};

}  // namespace rocelab
