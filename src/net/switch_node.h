// An output-queued switch with a shared-buffer MMU, PFC (IEEE 802.1Qbb) per ingress and
// priority, RED/ECN marking at egress, shortest-path routing and a pluggable load balancer.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "net/load_balancer.h"
#include "net/mmu.h"
#include "net/net_context.h"
#include "net/node.h"
#include "net/switch_config.h"
#include "sim/random.h"

namespace rocelab {

class Switch final : public Node {
 public:
  Switch(NetContext& ctx, NodeId id, const NodeSpec& spec, const SwitchConfig& cfg);

  // Called once all ports exist: sizes PFC headroom from each port's link.
  void finalize();
  void set_load_balancer(std::unique_ptr<LoadBalancer> lb) { lb_ = std::move(lb); }
  LoadBalancer* load_balancer() { return lb_.get(); }

  void receive(PacketId pkt, PortId in_port) override;
  void on_dequeue(PortId port, PacketId pkt) override;
  PacketId pull(PortId, Time*) override { return PacketId::invalid(); }

  // Forwards a packet as if it had just arrived (after the load balancer's hook).
  void forward(PacketId pkt, PortId in_port);
  // Sends a control packet out of `port` (strict priority, not PFC-accounted).
  void send_control(PacketId pkt, PortId port) { port_of(port).enqueue(pkt); }
  // ECMP: the 5-tuple hash mixed with this switch's seed picks among n candidates.
  // The equal-cost choice among `hops` for a packet (switch.ecmp_hash).
  size_t ecmp_index(const Packet& p, std::span<const PortId> hops) const;

  const SwitchConfig& config() const { return cfg_; }
  const Mmu& mmu() const { return mmu_; }
  NetContext& context() { return ctx_; }
  bool is_edge() const { return ctx_.routing.is_edge(id_.index()); }
  RandomStream& rng() { return rng_; }
  uint64_t pause_frames_sent() const { return pause_frames_sent_; }

 private:
  EgressPort& port_of(PortId p) { return *ports_[p.index()]; }
  PortId route(PacketId pkt, Packet& p);
  void send_pfc(PortId in_port, Priority prio, bool xoff);
  void maybe_mark_ecn(Packet& p, const EgressPort& port);

  SwitchConfig cfg_;
  std::vector<EcnConfig> port_ecn_;  // per egress port (thresholds scaled to its rate)
  Mmu mmu_;
  std::unique_ptr<LoadBalancer> lb_;
  RandomStream rng_;
  uint64_t ecmp_seed_;
  bool ns3_hash_ = false;
  std::vector<uint32_t> peer_node_;  // node id at the far end of each port
  uint64_t pause_frames_sent_ = 0;
};

}  // namespace rocelab
