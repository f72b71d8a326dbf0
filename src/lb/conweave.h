// ConWeave (Song et al., "Network Load Balancing with In-network Reordering Support for
// RDMA", SIGCOMM'23), as its authors' simulator ConWeave-ns3 implements it
// (conweave-routing.cc). The source ToR keeps each flow on one path and probes it with
// an RTT_REQUEST at the start of every epoch; when the RTT_REPLY misses its deadline (base
// RTT + θ_reply) the next packet, the TAIL, closes the old path and the flow moves to a
// path not marked busy, its packets flagged REROUTED (phase 1). The destination ToR holds
// rerouted packets that overtake the TAIL in a reorder queue and releases them when the
// TAIL arrives (answering it with CLEAR) or at a deadline predicted from the departure gap
// between the last old-path packet and the TAIL. ECN-marked packets make the destination
// ToR send NOTIFY, which marks their path busy at the source for θ_path_busy.
//
// Only data between different ToRs is balanced; ACKs, CNPs and ConWeave's own control
// packets follow ECMP in the strict-priority control queue. Held packets are charged to
// the switch buffer while held (reorder_buffer: switch), or kept outside it until released
// (outside, as ConWeave-ns3). docs/schemes/conweave.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lb/in_network_reorder.h"
#include "net/load_balancer.h"
#include "net/packet_state.h"
#include "net/switch_view.h"
#include "sim/flat_map.h"
#include "sim/random.h"
#include "sim/simulator.h"

namespace rocelab {

// Defaults: ConWeave-ns3's run.py for a leaf-spine (its fat-tree values in the doc).
struct ConWeaveConfig {
  Delta reply_deadline_extra = Delta::from_us(4);  // θ_reply - base RTT
  Delta path_busy = Delta::from_us(16);            // θ_path_busy after a NOTIFY
  Delta inactive = Delta::from_us(300);            // θ_inactive: idle gap, new epoch
  Delta flush_extra = Delta::from_us(16);          // slack on the predicted TAIL arrival
  Delta default_wait = Delta::from_us(200);        // hold time with no old-path timing
  Delta aging = Delta::from_ms(2);                 // idle flow state is dropped
  // Where held packets live: "switch" = in the shared buffer, charged to their ingress
  // port while held (PFC sees them: the paper's reorder queues are paused egress queues);
  // "outside" = beside it until released, then admitted at once (ConWeave-ns3).
  std::string reorder_buffer = "switch";
};

class ConWeaveSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  ConWeaveConfig cfg;
};

// The ConWeave header on data packets (no wire bytes in ConWeave-ns3: an ns-3 tag).
struct ConWeaveTag {
  int64_t tx_time_ps = 0;    // departure from the source ToR
  int64_t tail_time_ps = 0;  // when this epoch's TAIL left the source ToR (0: none yet)
  uint32_t path = 0;
  uint32_t epoch = 0;
  uint8_t phase = 0;  // 1 = REROUTED
  uint8_t flag = 0;   // kNone, kData, kInit (RTT_REQUEST), kTail
};

// RTT_REPLY, CLEAR and NOTIFY.
struct ConWeaveControl {
  uint32_t epoch = 0;
  uint32_t path = 0;
  uint8_t phase = 0;
  uint8_t kind = 0;  // kReplyInit, kReplyTail, kNotify
};

class ConWeave final : public LoadBalancer, public EventHandler {
 public:
  ConWeave(const SwitchView& sw, const ConWeaveConfig& cfg);
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  bool on_receive(const SwitchView& sw, Packet& p, PortId in_port) override;
  void on_event(uint32_t kind, uint64_t arg) override;
  void add_stats(std::vector<Stat>& out) const override;

  static constexpr uint8_t kData = 1, kInit = 2, kTail = 3;
  static constexpr uint8_t kReplyInit = 1, kReplyTail = 2, kNotify = 3;

  // The source ToR's and the replies' counters; the reorder queues keep their own.
  struct Counters {
    uint64_t reroutes = 0;
    uint64_t replies_sent = 0, replies_timely = 0, clears_sent = 0, notifies_sent = 0;
  };
  const Counters& counters() const { return stats_; }
  const InNetworkReorder::Counters& reorder_counters() const { return reorder_.counters(); }

 private:
  // Source-ToR state of one flow (ConWeave-ns3: conweaveTxState).
  struct TxFlow {
    Time active = Time::never();
    Time reply_deadline = Time::never();  // never = disarmed
    Time tail_time;
    uint32_t path = 0;
    uint32_t epoch = 0;
    uint8_t phase = 0;
    bool stabilized = false;
  };
  static constexpr uint32_t kFlushEvent = 1;

  // Source ToR.
  void on_control(const Packet& p);
  std::vector<Time>& busy_until(uint32_t dst_edge);
  Delta base_rtt(uint32_t dst_edge);
  // Destination ToR.
  bool on_data_from_fabric(Packet& p, PortId in_port);
  void send_control(const Packet& data, PortId in_port, const ConWeaveControl& c);
  void age(Time now);

  const SwitchView sw_;
  ConWeaveConfig cfg_;
  RandomStream rng_;
  PacketField<ConWeaveTag> tag_;
  PacketField<ConWeaveControl> control_;
  ControlKind control_kind_;
  uint32_t handler_;
  uint32_t self_;
  FlatMap<uint32_t, TxFlow> tx_;
  InNetworkReorder reorder_;             // the destination ToR's reorder queues
  std::vector<std::vector<Time>> busy_;  // by destination edge index: per path, busy until
  std::vector<Delta> base_rtt_;          // by destination edge index (0: not computed)
  Time next_aging;
  Counters stats_;
};

}  // namespace rocelab
