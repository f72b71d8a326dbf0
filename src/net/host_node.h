// A host: its NIC's port(s) obey the flow control of its ToR (PFC PAUSE frames by
// default); everything above the link (queue pairs, transport, congestion control) lives
// in a HostAgent that the transport layer provides.
#pragma once

#include <memory>

#include "net/flow_control.h"
#include "net/net_context.h"
#include "net/node.h"

namespace rocelab {

class HostAgent {
 public:
  virtual ~HostAgent() = default;
  // A packet (data, ACK, NAK, CNP, control) arrived at `host`; the agent frees it.
  virtual void on_host_receive(NodeId host, PacketId pkt) = 0;
  // The NIC port is idle: the next data packet to send, or invalid (see Node::pull).
  virtual PacketId pull_data(NodeId host, const EgressPort& port, Time* next_ready) = 0;
  // False when pull_data on `port` would return nothing and no wake-up time until something outside
  // (a flow start, an ACK, a rate change) kicks the NIC.
  virtual bool has_data(NodeId /*host*/, PortId /*port*/) const { return true; }
};

class Host final : public Node {
 public:
  Host(NetContext& ctx, NodeId id, const NodeSpec& spec) : Node(ctx, id, spec) {}

  void set_agent(HostAgent* agent) { agent_ = agent; }
  void set_flow_control(std::unique_ptr<FlowControl> fc) { fc_ = std::move(fc); }
  // The NIC's port `port` (its port-th link; one per plane or ToR).
  EgressPort& nic(uint32_t port = 0) { return *ports_[port]; }
  const FlowControl* flow_control() const { return fc_.get(); }

  void receive(PacketId pkt, PortId in_port) override;
  void on_dequeue(PortId, PacketId, size_t) override {}
  PacketId pull(PortId port, Time* next_ready) override {
    return agent_ ? agent_->pull_data(id_, *ports_[port.index()], next_ready) : PacketId::invalid();
  }
  bool may_pull(PortId port) const override { return agent_ && agent_->has_data(id_, port); }

 private:
  HostAgent* agent_ = nullptr;
  std::unique_ptr<FlowControl> fc_;
};

}  // namespace rocelab
