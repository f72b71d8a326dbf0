// FLB (Hu et al., USENIX ATC'25): fine-grained load balancing for lossless fabrics, at
// the edge switches. Rerouting without reordering on measured one-way path delays
// (§3.1, Alg. 1) and isolation of congested flows onto few paths on CNMs from the
// destination edge switch, before PFC triggers (§3.2, Appendix A). In multi-tier fabrics
// the source edge pins each packet to an end-to-end path ID by source routing (§3.4).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "lb/flb_flow_table.h"
#include "lb/path_feedback.h"
#include "net/cnm.h"
#include "net/load_balancer.h"
#include "net/switch_view.h"
#include "sim/flat_map.h"
#include "sim/random.h"

namespace rocelab {

struct FlbConfig {
  // Stamp one packet per path at most this often; 0 = two base RTTs of the edge pair
  // (FLB §3.1 default).
  Delta probe_interval = Delta::zero();
  // A path's delay sample older than this is forgotten (the path counts as idle again),
  // so that abandoned paths get probed; 0 = one probe interval (FLB §3.1 samples every two
  // base RTTs for continuous monitoring; it gives no expiry of its own).
  Delta delay_expiry = Delta::zero();
  Delta flow_timeout = Delta::from_ms(1);  // inactive flow entries go (FLB §3.1, 1 ms)
  bool hardware_table = false;             // CRC16-indexed fixed table (FLB §3.4)
  uint32_t hardware_entries = 1 << 16;     // 16-bit flow ID
  // Isolation threshold K on destination-edge egress queues. 0 = Appendix A: the low end
  // 2dC of [2dC, Q_PFC/n - 2dC(n-1)), computed per port (isolate as early as utilisation
  // allows). A fraction of the buffer (FLB Fig. 12: 20%, 30%) when buffer_fraction > 0.
  int64_t isolation_threshold_bytes = 0;
  double isolation_threshold_buffer_fraction = 0;
  uint32_t isolation_n = 2;  // n of Appendix A's upper bound, reported with the range
  // Isolation entries not refreshed by a CNM for this long are released (§3.2 timeout).
  Delta isolation_timeout = Delta::from_ms(1);
  // While a port stays congested its flows' CNMs are repeated this often (keeps entries).
  Delta cnm_refresh = Delta::from_us(200);
  Delta isolation_recompute = Delta::from_us(50);  // §3.2 "periodically checks"
  // Each switch's clock is offset by a uniform draw in [0, max]: FLB needs no sync.
  Delta clock_offset_max = Delta::zero();
  // What must hold, besides Alg. 1's delay test, before an existing flow moves
  // (docs/reproduction/flb.md, "Rerouting without reordering at scale"):
  //   literal:  Alg. 1's test alone; the previous packet's local wait is estimated from the
  //             uplink's queue at line rate, a current path without a fresh sample counts
  //             at its base delay.
  //   departed: the previous packet has left this switch (the uplink queue's dequeue
  //             counter has passed the position it was queued at, kept in the flow entry),
  //             and the current path has a fresh sample.
  //   idle:     the current uplink queue is empty and not paused, and the current path
  //             has a fresh sample.
  //   never:    existing flows stay where they are (a sensitivity row: what rerouting is
  //             worth).
  // Under every guard a flow leaves a path that becomes isolated at once (§3.2).
  std::string reroute_guard = "departed";
  // Alg. 1's gap from §3.4's 8-bit aging counter, incremented every tick: the gap is at
  // least (ticks - 1) x tick. 0 = the exact arrival times.
  Delta age_tick = Delta::zero();
  // What RC's n counts at a congested port (§3.2 "the number of congested flows", §3.3):
  //   recent:  the port's congested-flow entries hit within rc_n_window or paused by its
  //            congestion CNM: the flows still sending into it (a finished flow is no
  //            longer a congested flow);
  //   entries: every entry, each kept until idle for flow_timeout (§3.1's timeout, which
  //            "also applies to the congested flow entries"): a finished flow counts 1 ms
  //            more.
  std::string rc_n = "recent";
  Delta rc_n_window = Delta::zero();  // 0: isolation_recompute, §3.2's periodic check
};

class FlbSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  FlbConfig cfg;
};

class Flb final : public LoadBalancer, public EventHandler {
 public:
  Flb(const SwitchView& sw, const FlbConfig& cfg);

  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  bool on_receive(const SwitchView& sw, Packet& p, PortId in_port) override;
  // The departed and idle guards note the uplink queue a flow's packet joined: which data
  // queue that is, the flow control knows once it has admitted the packet (BFC assigns it
  // then), so it is read here, not when the path is chosen.
  bool wants_enqueue() const override {
    return guard_ == Guard::kDeparted || guard_ == Guard::kIdle;
  }
  void on_enqueue(const SwitchView& sw, Packet& p, PortId port) override;
  enum class Guard : uint8_t { kLiteral, kDeparted, kIdle, kNever };  // reroute_guard
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;
  void add_stats(std::vector<Stat>& out) const override;
  void on_event(uint32_t kind, uint64_t arg) override;

  // For tests and reports.
  const FlbFlowTable& flow_table() const { return table_; }
  int64_t isolation_threshold(PortId host_port) const { return ds_ports_[host_port.index()].k; }
  // Queueing-delay view of the paths toward an edge switch (ps; -1 = not measured).
  std::vector<int64_t> path_delays(uint32_t dst_edge) const;
  std::vector<uint16_t> isolated_paths(uint32_t dst_edge) const;
  size_t isolated_flows() const { return iso_.size(); }
  Time local_clock() const { return sw_.now() + clock_offset_; }

  // Alg. 1 lines 8-14 on a delay table: the path an existing flow on `current` takes when
  // its packets are `gap` apart; `allowed` masks paths it may use.
  static uint16_t reroute(const std::vector<int64_t>& delay, const std::vector<uint8_t>& allowed,
                          uint16_t current, Delta gap);

 private:
  struct Pair {  // state toward one other edge switch
    uint32_t dst_switch = 0;
    uint16_t paths = 1;
    std::vector<PortId> first_hop;  // per path
    Delta probe_interval;
    Delta expiry;
    std::vector<int64_t> owd;  // last one-way delay measured (with the clocks' offset)
    std::vector<Time> measured_at;
    std::vector<int64_t> min_owd;  // base delay: the minimum seen (FLB §3.1)
    std::vector<Time> last_stamp;
    // Feedback owed to that edge switch, which sends to us (we are its destination).
    std::vector<int64_t> fb_owd;
    std::vector<Time> fb_measured_at;  // when (reported: how long feedback waits to go)
    FeedbackRoundRobin fb;
    // Isolation paths toward that edge switch (we are the source).
    std::vector<uint16_t> iso_paths;
  };

  struct DsPort {  // destination-edge state of one host-facing port
    bool congested = false;
    uint32_t congestion_point = 0;  // the host behind the port, named in its CNMs
    int64_t k = 0;
    struct Flow {
      FlowId flow;
      NodeId src_host;
      PortId in_port;
      uint16_t sport;
      uint8_t nic_port;  // its QP's NIC port: a CNM goes back to the sender's edge on it
      Time last_cnm;
      Time last_seen;             // its last packet toward this port
      bool in_congestion = true;  // its last CNM carried the congestion flag
    };
    // Flows reported congested here: kept after the release while they stay active, so
    // that n follows them (§3.3 "the rate varies with the change of n"); removed when
    // idle for the flow timeout (§3.1, "also applies to the congested flow entries").
    // Ordered by key: CNMs go out in the same order with every standard library.
    FlatMap<uint32_t, Flow> flows;
    uint32_t n_notified = 0;  // n of the last release or update sent
  };

  struct Isolation {  // one congested flow known at this (source) edge switch
    uint32_t dst_edge;
    uint32_t congestion_point;  // the congested port's host (the CNM's CPID)
    uint32_t n;                 // the latest n reported for that congestion point
    Time refreshed;
    uint16_t path;
  };

  Pair& pair(uint32_t edge_index);
  int64_t delay_of(const Pair& p, uint16_t path, Time now) const;
  int64_t remote_delay(const Pair& p, uint16_t path, Time now) const;
  bool fresh_measurement(const Pair& p, uint16_t path, Time now) const;
  int64_t local_queue_ps(const Pair& p, uint16_t path) const;
  void stamp_departure(Packet& p) const;
  Delta packet_gap(Time prev, Time now) const;
  bool may_move(const Pair& pr, const FlbFlowEntry& e, Time now);
  static bool is_isolation_path(const Pair& pr, uint16_t path);
  uint64_t& dequeued_bytes(PortId port, size_t queue) {
    return dequeued_bytes_[port.index() * queue_stride_ + queue];
  }
  uint16_t pick_min(const Pair& p, const std::vector<uint8_t>& allowed, Time now);
  void allowed_paths(const Pair& p, std::vector<uint8_t>& out) const;
  void as_destination(Packet& p, PortId in_port);
  void as_source(Packet& p);
  void check_isolation(const Packet& p, PortId in_port);
  void send_cnm(const DsPort::Flow& f, const Cnm& cnm);
  void on_cnm(const Packet& p);
  void release_port(DsPort& dp, Time now);
  void sweep_congested_flows(Time now);
  // `recent`: the port's entries hit within rc_n_window (counted beside n).
  void send_flow_cnm(const DsPort& dp, uint32_t key, DsPort::Flow& f, bool congested, uint32_t n,
                     uint32_t recent, Time now);
  uint32_t recent_flows(const DsPort& dp, Time now) const;
  uint32_t rc_n(const DsPort& dp, Time now) const;
  void resize_isolation(uint32_t dst_edge);
  void assign_isolation_path(uint32_t key, Isolation& iso, const Pair& pr);
  void compute_thresholds();

  SwitchView sw_;
  RandomStream rng_;  // FLB's own draws (ties, isolation paths)
  // In-band fields (FLB §3.1): a departure stamp on sampled data packets, and one delay
  // measurement fed back on traffic toward the edge switch it describes.
  struct Stamp {
    uint8_t state;  // kNoStamp, kStampPending (routed, stamped at departure), kStamped
    uint16_t path;
    int64_t time_ps;  // the source edge's local clock at departure
  };
  struct Feedback {
    bool valid;
    uint16_t path;
    int64_t owd_ps;
  };
  static constexpr uint8_t kNoStamp = 0, kStampPending = 1, kStamped = 2;
  PacketField<Stamp> stamp_;
  PacketField<Feedback> feedback_;
  CnmFormat cnm_;
  FlbConfig cfg_;
  uint32_t handler_;
  uint32_t self_edge_;
  Delta clock_offset_;
  FlbFlowTable table_;
  std::vector<std::unique_ptr<Pair>> pairs_;
  std::vector<DsPort> ds_ports_;      // by port index
  FlatMap<uint32_t, Isolation> iso_;  // ordered: deterministic iteration
  TimerSlot iso_timer_;
  TimerSlot ds_timer_;  // destination side: ages congested-flow entries, updates n
  std::vector<uint8_t> scratch_allowed_;
  std::vector<int64_t> scratch_delay_;
  std::vector<uint32_t> scratch_touched_;
  std::vector<uint16_t> scratch_free_paths_;
  int64_t range_low_ = 0, range_high_ = 0;  // Appendix A range of K (reported)
  uint64_t forced_moves_ = 0, feedback_sent_ = 0, feedback_received_ = 0;
  Guard guard_;
  // Data bytes dequeued per (port, queue) since the start: with the queue's bytes, the
  // enqueue/dequeue counters of §3.4, read as FIFO positions. Kept under the departed
  // guard only, the one that reads them.
  std::vector<uint64_t> dequeued_bytes_;
  size_t queue_stride_ = 1;
  // The flow entry of the packet just routed to an uplink, until it joins the queue
  // (on_enqueue, in the same call; one the buffer drops never does, and the next arrival's
  // on_receive forgets it).
  FlbFlowEntry* routed_entry_ = nullptr;
  uint64_t held_stale_current_ = 0, held_not_departed_ = 0, held_uplink_busy_ = 0;
  bool rc_n_recent_ = false;
  Delta rc_n_window_;
  // Over the CNMs sent: the n each carried, and how many of the port's entries had been
  // hit within rc_n_window then (what n would be under rc_n: recent).
  uint64_t rc_n_sum_ = 0, rc_n_recent_sum_ = 0;
  // Reported only: Alg. 1's moves by the flow's real gap since its previous packet (< 100
  // ns, < 1 us, < 10 us, more), and by their slack (Alg. 1's gap less the delay difference
  // it moved on: the error in the sampled delays a move survives), and of them those whose
  // previous packet reached the destination edge after the moved one (the move overtook).
  // The moved packet carries its buckets to the destination edge, which watches for that
  // previous packet, as first sent, until kMoveWatch passes. Beside them, how much a path's
  // sampled delay changed from one sample to the next, in the same buckets.
  // A moved packet also carries when Alg. 1 expected it and its flow's previous packet at
  // the destination edge (the routing time plus each path's delay, on the source's clock,
  // which the samples' offset turns into the destination's). Where the move overtook, the
  // previous packet's lateness and the moved one's earliness against them say which
  // path's delay was off (their sum exceeds the slack).
  struct MovePrediction {
    static constexpr int64_t kNotKnown = INT64_MIN;
    int64_t previous_arrival_ps;
    int64_t moved_arrival_ps;
    // The move's time plus the current path's sample: the previous packet, gone from the
    // uplink by then, should have arrived before it (kNotKnown: the guard let the flow move
    // with the packet still queued).
    int64_t previous_fabric_ps;
  };
  struct MoveWatch {
    Time sent_time;  // the moved packet's, from its host
    Time at;         // the moved packet's arrival (local_clock() then: at + clock_offset_)
    MovePrediction predicted;
    uint8_t gap_bucket, slack_bucket, age_bucket;
  };
  static constexpr Delta kMoveWatch = Delta::from_us(100);
  void note_move(Packet& p, Delta gap, Delta slack, size_t age_quarter,
                 const MovePrediction& predicted);
  size_t sample_age_quarter(const Pair& pr, uint16_t path, Time now) const;
  void watch_moves(const Packet& p);
  void count_overtaking(const MoveWatch& w);
  PacketField<uint8_t> move_mark_;
  PacketField<MovePrediction> move_prediction_;
  static uint64_t move_watch_key(uint32_t flow, uint64_t seq);
  FlatMap<uint64_t, MoveWatch> move_watch_;
  std::array<uint64_t, 4> moves_by_gap_{}, overtaken_by_gap_{};
  std::array<uint64_t, 4> moves_by_slack_{}, overtaken_by_slack_{}, sample_change_{};
  // Overtaking moves: by the previous packet's lateness and the moved one's earliness
  // against Alg. 1's expectation (none when on time or the other way), and by which of the
  // two was the larger.
  std::array<uint64_t, 4> overtaken_previous_late_{}, overtaken_moved_early_{};
  // Of the previous packet's lateness, at least this much the fabric added (its arrival
  // after the move's time plus the path's sample).
  std::array<uint64_t, 4> overtaken_previous_fabric_late_{};
  // Feedback sent, by how long its measurement waited here for traffic toward its source.
  std::array<uint64_t, 4> feedback_wait_{};
  uint64_t overtaken_mainly_previous_ = 0, overtaken_mainly_moved_ = 0;
  // Moves, and the overtaking ones, by the age of the current path's sample, in quarters
  // of its lifetime.
  std::array<uint64_t, 4> moves_by_sample_age_{}, overtaken_by_sample_age_{};
  uint64_t reroutes_ = 0, cnms_sent_ = 0, isolations_ = 0, isolation_timeouts_ = 0, probes_ = 0;
  static constexpr uint32_t kIsolationTimerKind = 0;
  static constexpr uint32_t kCongestedFlowTimerKind = 1;
};

}  // namespace rocelab
