// The host path plug point: the sender NIC chooses each data packet's path entropy (UDP
// source port and flow hash, which ECMP and flowlet switches hash) or source route, and
// sees the feedback coming back for its flows. `fixed` keeps one entropy per flow (a
// RoCE QP's source port); `spray` draws a new one per packet (host-based packet
// spraying). Hermes, MP-RDMA and Clove-like schemes plug in here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/packet.h"
#include "net/scheme_stat.h"
#include "sim/ids.h"
#include "sim/params.h"
#include "sim/random.h"
#include "sim/registry.h"

namespace rocelab {

class RdmaTransport;

class HostPathPolicy {
 public:
  virtual ~HostPathPolicy() = default;
  // Called once, before any flow starts.
  virtual void attach(RdmaTransport& transport) { transport_ = &transport; }
  // A data packet of flow f is about to leave the sender's NIC with the flow's own entropy.
  virtual void on_send(FlowId f, Packet& p) = 0;
  // An ACK/NAK/CNP or scheme control packet of flow f reached the sender.
  virtual void on_feedback(FlowId /*f*/, const Packet& /*p*/) {}
  // Flow f's retransmission timer fired; flow f finished.
  virtual void on_timeout(FlowId /*f*/) {}
  virtual void on_finish(FlowId /*f*/) {}
  // QP f now sends on another NIC port (its old one failed): other edge switches.
  virtual void on_port_moved(FlowId /*f*/) {}
  // Figures for summary.json (summed over hosts already: one policy serves them all). In a
  // run over several ranks each rank's are combined (summed, or the maximum taken): each
  // must be a count or a maximum, never a ratio.
  virtual void add_stats(std::vector<SchemeStat>& /*out*/) const {}
  // A parallel run (sim/lane.h): state that hosts of different partitions would share is
  // split per partition before the run, and folded after each run (RdmaTransport's lanes).
  virtual void set_lanes(uint32_t /*partitions*/) {}
  virtual void fold_lanes() {}

 protected:
  RdmaTransport* transport_ = nullptr;
};

// One random stream per sending host (`name`, indexed by node): what a host draws does not
// depend on what the others drew, so the partitions of a parallel run draw what a serial run
// draws. A policy acts at its flows' sender only.
class HostStreams {
 public:
  void init(const RdmaTransport& transport, std::string_view name);
  RandomStream& of(NodeId host) { return streams_[host.index()]; }

 private:
  std::vector<RandomStream> streams_;
};

// A policy's parameters (transport.path_policy: {name: hermes, ...}): read from the scenario,
// then built into the policy every host's NIC shares.
class HostPathConfig {
 public:
  virtual ~HostPathConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual std::unique_ptr<HostPathPolicy> build() const = 0;
};

// Makes the policy's default configuration.
using HostPathFactory = std::function<std::unique_ptr<HostPathConfig>()>;
const Registry<HostPathFactory>& host_path_registry();

// A configuration without parameters, for policies that have none.
template <class Policy>
class PlainHostPathConfig final : public HostPathConfig {
 public:
  std::unique_ptr<HostPathPolicy> build() const override { return std::make_unique<Policy>(); }
};

}  // namespace rocelab
