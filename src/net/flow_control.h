// The flow-control plug point, per switch and per host NIC: which data queue a packet
// joins, whether the buffer admits it, what its departure frees, and the flow-control
// frames between neighbours. PFC (IEEE 802.1Qbb, net/pfc.h) with pauses on is the
// lossless default; with pauses off it is a lossy shared buffer. BFC's per-hop per-flow
// backpressure plugs in here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/egress_port.h"
#include "net/egress_scheduler.h"
#include "net/packet.h"
#include "net/scheme_stat.h"
#include "sim/ids.h"
#include "sim/params.h"

namespace rocelab {

class Host;
class Mmu;
class Switch;

class FlowControl {
 public:
  virtual ~FlowControl() = default;
  // The data queue of `port` that `p` joins.
  virtual size_t classify(const EgressPort& port, const Packet& p) const {
    return port.queue_of(p);
  }
  // A packet bound for a data queue of `out` arrived on `in`: account it; false drops it.
  virtual bool admit(PortId in, PortId out, Packet& p) = 0;
  // An admitted packet left data queue `queue` of `out` (it starts transmission).
  virtual void on_dequeue(PortId out, size_t queue, Packet& p) = 0;
  // A non-data frame arrived on `in`; true when it is this flow control's own frame
  // (consumed: the caller frees it). Data packets are not shown.
  virtual bool on_frame(PortId in, const Packet& p) = 0;

  // A host NIC's per-flow gate (BFC pauses flows at the NIC): the transport asks, per
  // flow, before it sends; only when gates_flows() is true.
  virtual bool gates_flows() const { return false; }
  // `port`: the NIC port the flow sends on (each port hears its own switch).
  virtual bool flow_paused(uint32_t /*flow_hash*/, PortId /*port*/) const { return false; }

  // Figures for summary.json's fc_stats, combined over nodes.
  virtual void add_stats(std::vector<SchemeStat>& /*out*/) const {}

  // Drops under this flow control break the model's promise.
  virtual bool lossless() const = 0;
  // Why `admit` refused packet `p` on `in` (asked at once): a buffer's drop, which breaks a
  // lossless promise, or a loss a preset's model makes on purpose, counted apart.
  enum class Refusal : uint8_t {
    kBuffer,
    // a PAUSE ran out while the ingress still needed it (fc.pause_style: per_packet, as
    // ConWeave-ns3): 802.1Qbb would not have lost it
    kPauseLapse,
    // the egress queue's dynamic threshold (fc.egress_alpha, as ConWeave-ns3), which PFC
    // does not stop
    kEgressThreshold,
  };
  virtual Refusal why_refused(PortId /*in*/, const Packet& /*p*/) const { return Refusal::kBuffer; }
  // The shared buffer's accounting, where the scheme keeps one (read-only).
  virtual const Mmu* buffer() const { return nullptr; }
  // Empty when every counter is back to zero after a drained run.
  virtual std::string check_drained() const { return {}; }
};

// A flow control's parameters and factory: one object per scenario.
class FlowControlConfig {
 public:
  virtual ~FlowControlConfig() = default;
  virtual void describe(ParamVisitor&) {}
  virtual bool lossless() const = 0;
  // Data queues per switch egress port, given the scenario's switch.num_queues (BFC
  // brings its own physical queues).
  virtual size_t switch_queues(size_t configured) const { return configured; }
  // The egress scheduler of switch ports when the scheme needs its own; null: the
  // scenario's switch.scheduler.
  virtual std::shared_ptr<const SchedulerConfig> switch_scheduler() const { return nullptr; }
  // For a switch once its ports are connected, and for a host's NIC.
  virtual std::unique_ptr<FlowControl> build(Switch& sw) const = 0;
  virtual std::unique_ptr<FlowControl> build(Host& host) const = 0;
};

}  // namespace rocelab
