// Proteus (Hu et al., "Load Balancing With Multi-Level Signals for Lossless Datacenter
// Networks", IEEE/ACM ToN 2024). Installed on every switch (§IV-C):
//  - RTT-level signals (§III-A-1): each path's one-way delay and the utilisation of its
//    last link, measured at the destination edge per period and piggybacked back to the
//    source edge, sort the paths into non-congested / undetermined / congested (Table II).
//  - Alg. 1 at the source edge: a new flow takes SelectPath over the active paths; an
//    existing flow moves only to paths faster than its own by less than its packet gap
//    (order-preserving, no threshold).
//  - Alg. 2 at every switch: a packet meeting a PFC-paused egress waits while its
//    tolerable delay t_td exceeds the predicted queueing delay, else takes the next
//    effective alternative path from its header, and the paused path is kicked out until
//    the pause ends ("better late than never", §III-B-2, §III-C).
// docs/schemes/proteus.md states each rule with its section and each reading.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "lb/edge_flow_table.h"
#include "lb/path_feedback.h"
#include "net/load_balancer.h"
#include "net/packet_state.h"
#include "net/switch_view.h"
#include "sim/random.h"
#include "sim/simulator.h"

namespace rocelab {

struct ProteusConfig {
  // RTT_low = (1 + x) x the host-to-host one-way base delay: "20-40% times larger than
  // one-way base RTT" (§III-A-1); 0.3 is the middle of that range.
  double rtt_low_factor = 0.3;
  Delta rtt_low_allowance = Delta::zero();  // absolute queueing allowance instead (> 0)
  double util_full = 0.95;                  // Table II's "= 1" (the paper gives no margin)
  Delta measure_period = Delta::zero();     // 0 = the base RTT ("e.g., RTT", §IV-C)
  uint32_t path_expiry_periods = 10;        // a report older than this is forgotten (silent)
  uint32_t alternatives = 3;                // "each packet ... carries 3 alternative path IDs"
  Delta flow_timeout = Delta::from_ms(1);   // silent; FLB's value (same authors)
  bool hardware_table = false;              // CRC16-indexed table (§IV-A)
  uint32_t hardware_entries = 1 << 16;
  // Alg. 2: better_late (the paper), immediate (reroute on any pause: the "kick out"
  // strawman of §II-D), never (wait through every pause: no sub-RTT rerouting).
  std::string subrtt = "better_late";
  bool sojourn_at_every_hop = true;  // CST over every switch (§III-A-2) vs Alg. 2 lines 5-7
  // Alg. 1's else branch: on every packet (the algorithm) or only when the current path is
  // not non-congested (the prose: "or the current path is congested"); never: an ablation.
  std::string rtt_reroute = "every_packet";
  // Who a kick-out (Alg. 2 line 10, "p_active = 0 ... until PFC resuming") keeps off the
  // paused uplink: the pair whose packet met the pause (pair: the table is per destination
  // edge and path), or every pair whose path leaves by that uplink (port).
  std::string kickout_scope = "pair";
};

class ProteusSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  ProteusConfig cfg;
};

enum class PathClass : uint8_t { kNonCongested, kUndetermined, kCongested };

// One path's RTT-level state at a source edge, as SelectPath reads it.
struct ProteusPathView {
  int64_t delay_ps = 0;  // t_pd (edge to edge)
  double util = 0;       // u_link
  PathClass cls = PathClass::kNonCongested;
  bool active = true;  // p_active: not kicked out
};

class Proteus final : public LoadBalancer, public EventHandler {
 public:
  static constexpr uint32_t kMaxAlternatives = 7;

  Proteus(const SwitchView& sw, const ProteusConfig& cfg);

  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  bool on_receive(const SwitchView& sw, Packet& p, PortId in_port) override;
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;
  void add_stats(std::vector<Stat>& out) const override;
  void on_event(uint32_t kind, uint64_t arg) override;

  // Table II: the class of a path with delay t_pd against RTT_low and utilisation u.
  static PathClass classify(int64_t delay_ps, double util, int64_t rtt_low_ps, double util_full);
  // Alg. 1 lines 12-24 over the paths with allowed[i]: the minimum-delay non-congested path,
  // else the undetermined one of maximum utilisation, else the minimum-delay congested one;
  // inactive paths only when every allowed one is inactive. Ties go to `rng`.
  static uint32_t select_path(const std::vector<ProteusPathView>& paths,
                              const std::vector<uint8_t>& allowed, RandomStream& rng);
  // Alg. 1 lines 6-7: whether p' qualifies for a flow on `current` whose packets are `gap`
  // apart: 0 < t_pd(current) - t_pd(p') < gap.
  static bool faster_within_gap(int64_t current_ps, int64_t candidate_ps, Delta gap) {
    const int64_t diff = current_ps - candidate_ps;
    return diff > 0 && diff < gap.ps;
  }
  // Alg. 2 line 5: wait through the pause (true) or reroute.
  static bool wait_through_pause(int64_t tolerable_ps, int64_t queueing_ps) {
    return tolerable_ps > queueing_ps;
  }

  // For tests and reports: the source-edge view of the paths toward an edge switch.
  std::vector<ProteusPathView> path_views(uint32_t dst_edge);
  int64_t rtt_low_ps(uint32_t dst_edge);
  int64_t base_delay_ps(uint32_t dst_edge);
  // For tests: a report on `path` toward `dst_edge` as if fed back now.
  void inject_report(uint32_t dst_edge, uint32_t path, int64_t delay_ps, double util);

 private:
  struct Tag {  // Proteus' in-band header (§IV-A) plus the simulation's measurement stamp
    int64_t stamp_ps = 0;       // arrival at the source edge (the one-way delay sample, A1)
    int64_t arrival_ps = 0;     // arrival at the current switch (its sojourn time)
    int64_t tolerable_ps = 0;   // t_td
    uint32_t radix_before = 1;  // product of the choices the path made before this switch
    uint16_t path = 0;
    std::array<uint16_t, kMaxAlternatives> alt{};
    uint8_t alt_count = 0;
    uint8_t state = 0;  // kNone, kMeasured (path known), kRouted (Proteus chose it)
  };
  struct Feedback {
    uint8_t valid = 0;
    uint16_t path = 0;
    uint16_t util_permille = 0;
    int64_t delay_ps = 0;
  };
  static constexpr uint8_t kNone = 0, kMeasured = 1, kRouted = 2;
  static constexpr uint8_t kWaited = 4;  // state bit: waited through a pause at this hop

  struct FlowEntry {  // §IV-A's flow table entry
    uint32_t key = 0;
    Time last_seen = Time::never();  // "timestamp for the last forwarded packet"
    uint16_t path = 0;
    std::array<uint16_t, kMaxAlternatives> alt{};
    uint8_t alt_count = 0;
    uint8_t rerouted = 0;  // the 2-bit status: the initial path was kicked out
  };

  struct Pair {  // toward one other edge switch
    uint32_t edge_index = 0;
    uint32_t paths = 1;
    std::vector<PortId> first_hop;
    int64_t base_ps = 0;     // edge-to-edge one-way base delay
    int64_t rtt_low_ps = 0;  // the non-congested bound on the measured t_pd
    // Source side: the reports on our paths toward it.
    std::vector<int64_t> delay_ps;
    std::vector<uint16_t> util_permille;
    std::vector<Time> reported_at;
    std::vector<PortId> kicked_port;  // p_active = 0 while this (port, queue) stays paused
    std::vector<uint8_t> kicked_queue;
    std::vector<uint8_t> kicked;
    // Destination side: this period's samples of its paths toward us, and the reports owed.
    std::vector<int64_t> sum_ps;
    std::vector<uint32_t> samples;
    std::vector<PortId> last_in_port;
    std::vector<int64_t> fb_delay_ps;
    std::vector<uint16_t> fb_util;
    FeedbackRoundRobin fb;
    // The previous new flow's path and time (reported: how often new flows herd).
    uint32_t last_new_path = UINT32_MAX;
    Time last_new_at = Time::never();
    uint32_t last_move_path = UINT32_MAX;  // and the previous Alg. 1 move's
    Time last_move_at = Time::never();
  };

  Pair& pair(uint32_t edge_index);
  bool fresh(const Pair& pr, uint32_t path, Time now) const;
  bool active(Pair& pr, uint32_t path);
  bool uplink_paused(PortId port) const { return sw_.port(port).paused_mask() != 0; }
  void note_move(const Pair& pr, uint32_t dst_edge, uint32_t path, int64_t gain_ps, Time now);
  void refresh_views(Pair& pr, Time now);
  void rank_alternatives(const Pair& pr, uint32_t chosen, FlowEntry& e);
  int64_t tolerable_delay(const Pair& pr, uint32_t path, const FlowEntry& e, uint32_t from) const;
  int64_t queueing_ps(const EgressPort& port, size_t queue) const;
  uint32_t rtt_level_choice(Pair& pr, FlowEntry& e, bool fresh_flow, Time now);
  PortId sub_rtt_at_source(Pair& pr, FlowEntry& e, Packet& p, Tag& tag,
                           std::span<const PortId> hops);
  void sub_rtt_downstream(Packet& p, Tag& tag, std::span<const PortId> hops);
  void write_header(const Pair& pr, const FlowEntry& e, Tag& tag) const;
  void as_destination(Packet& p, PortId in_port, Time now);
  void as_source(Packet& p);
  void close_period();

  SwitchView sw_;
  ProteusConfig cfg_;
  RandomStream rng_;
  PacketField<Tag> tag_;
  PacketField<Feedback> feedback_;
  uint32_t handler_;
  uint32_t self_;
  bool is_edge_;
  uint8_t subrtt_;       // 0 better_late, 1 immediate, 2 never
  uint8_t rtt_reroute_;  // 0 every_packet, 1 when_not_noncongested, 2 never, 3 when_congested
  bool kick_port_scope_;
  std::vector<uint32_t> port_kicked_;  // kickout_scope: port: queues kicked out, by port
  // Reported: by uplink, the latest Alg. 1 move onto it and its destination edge (moves of
  // other pairs onto the same uplink within one period: cross-pair herding).
  std::vector<Time> uplink_move_at_;
  std::vector<uint32_t> uplink_move_pair_;
  uint64_t moves_same_uplink_other_pair_ = 0;
  // Alg. 1 moves by their gain t_pd(current) - t_pd(new): < 100 ns, < 1 us, < 10 us, more.
  std::array<uint64_t, 4> move_gain_{};
  // New flows and moves whose chosen path leaves by an uplink paused at that moment.
  uint64_t chose_paused_uplink_ = 0;
  EdgeFlowTable<FlowEntry> table_;
  std::vector<std::unique_ptr<Pair>> pairs_;
  // Destination side: the period's data bytes per ingress port, and the pairs touched.
  Delta period_;
  Delta expiry_;
  TimerSlot period_timer_;
  std::vector<uint64_t> port_bytes_;
  std::vector<uint32_t> touched_;  // (edge index << 16) | path with samples this period
  std::vector<ProteusPathView> views_;
  std::vector<uint8_t> allowed_;
  uint64_t new_flows_ = 0, rtt_reroutes_ = 0, subrtt_reroutes_ = 0, subrtt_waits_ = 0;
  std::array<uint64_t, 3> rtt_reroutes_from_{};  // by PathClass of the path left
  uint64_t same_path_within_period_ = 0, moves_same_path_within_period_ = 0;
  uint64_t no_alternative_same_uplink_ = 0;
  uint64_t downstream_reroutes_ = 0, kickouts_ = 0, no_alternative_ = 0;
  std::array<uint64_t, 3> selected_{};
  uint64_t feedback_sent_ = 0, feedback_received_ = 0;
};

}  // namespace rocelab
