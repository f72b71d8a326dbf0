// A node (host or switch) of the network: it owns its egress ports and receives packets.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/egress_port.h"
#include "net/topology.h"
#include "sim/ids.h"

namespace rocelab {

struct NetContext;

class Node {
 public:
  Node(NetContext& ctx, NodeId id, const NodeSpec& spec) : ctx_(ctx), id_(id), spec_(spec) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeId id() const { return id_; }
  NodeKind kind() const { return spec_.kind; }
  Layer layer() const { return spec_.layer; }
  const std::string& name() const { return spec_.name; }
  NetContext& context() const { return ctx_; }

  size_t port_count() const { return ports_.size(); }
  EgressPort& port(PortId p) { return *ports_[p.index()]; }
  const EgressPort& port(PortId p) const { return *ports_[p.index()]; }
  PortId add_port(std::unique_ptr<EgressPort> port) {
    ports_.push_back(std::move(port));
    return PortId(static_cast<uint16_t>(ports_.size() - 1));
  }

  // A packet fully arrived on `in_port`.
  virtual void receive(PacketId pkt, PortId in_port) = 0;
  // The port starts transmitting a packet taken from its own queues: data queue `queue`, or
  // EgressPort::kNotDataQueue for its PAUSE and control queues.
  virtual void on_dequeue(PortId port, PacketId pkt, size_t queue) = 0;
  // Hosts generate data lazily: the port asks when it is idle and its queues are empty.
  // Returns an invalid id when nothing is ready; then *next_ready is when to ask again
  // (Time::never() when only an outside event can make data ready).
  virtual PacketId pull(PortId port, Time* next_ready) = 0;
  // Whether pull may return something before an outside event says so: false lets a port
  // skip asking at the end of each frame (a host that only sends ACKs).
  virtual bool may_pull(PortId /*port*/) const { return false; }

 protected:
  // What each packet reads first (ports_ in the object's first line); the name last.
  NetContext& ctx_;
  NodeId id_;
  std::vector<std::unique_ptr<EgressPort>> ports_;
  NodeSpec spec_;
};

}  // namespace rocelab
