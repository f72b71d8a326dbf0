// LBoDSN (Shi et al., "LBoDSN: An In-network Load Balancing Mechanism for Lossless Data
// Center Networks Based on Direct Switch Notification"). On edge switches only.
//
// Destination ToR (§3.2): it watches the PFC counter of each fabric-facing ingress port,
// predicts a PAUSE when the counter reaches Q_th (Eq. 1), names a flow whose queued bytes
// in that ingress reach its equal share F_cc (Eq. 3), picks the flow's new path by power of
// two choices on T_d = T_path + T_PFC (Eq. 4-5), and sends a flow congestion notification
// (FCN, tag 1) straight to the flow's source ToR, at most one per ingress port per RTT;
// when the counter falls back below Q_th and stops growing, FCNs with tag 0 clear it.
// Source ToR (§3.3): new flows take a random path of the best class of Table 1 (FCN state x
// local link utilisation), else one of the three least-loaded uplinks; an FCN moves its
// flow to the named path; until the destination ToR answers the notification bit of the
// first packet on the new path, the flow's CNPs are stale and dropped with the
// probability of Eq. 6-7. Reordering at the destination ToR is ConWeave's
// (lb/in_network_reorder.h): the packet after an FCN is the TAIL of the old path.
//
// Where the watching switch sits is a reading (lb.watch): the destination ToR (the text's
// "destination switch" with T_path, per-path ingresses and reordering), or the switch one
// hop past the source ToR (its "upstream source switch", an FCN crossing one link), whose
// FCNs name the congested path and leave the new one to the source ToR's Table 1.
// Every reading of a point the paper leaves open is a key; docs/schemes/lbodsn.md gives
// each rule with its equation and each reading with its sensitivity.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "lb/dre.h"
#include "lb/in_network_reorder.h"
#include "net/load_balancer.h"
#include "net/packet_state.h"
#include "net/switch_view.h"
#include "sim/flat_map.h"
#include "sim/random.h"
#include "sim/simulator.h"

namespace rocelab {

class Mmu;

struct LbodsnConfig {
  // --- destination ToR: prediction (§3.2, Eq. 1-2)
  bool fcn = true;                          // off: new-flow classes only (ablation)
  std::string watch = "tor";                // tor | spine | both: who predicts pauses
  double epsilon = 0.8;                     // "epsilon around 0.8"
  Delta rate_window = Delta::from_us(1);    // lambda_t, mu_t measured over this
  Delta t_d = Delta::zero();                // 0: FCN one-way delay, from the topology
  bool qth_floor = true;                    // Q_th >= t_d * C (Eq. 2's lower end)
  Delta fcn_interval = Delta::zero();       // 0: ToR-to-ToR base RTT
  std::string fcn_flow_pick = "arriving";   // arriving | largest
  double clear_gradient_gbps = 0;           // tag 0 when growth <= this
  Delta t_re_flight = Delta::zero();        // 0: = t_d (Eq. 5, to the source switch)
  Delta path_delay_expiry = Delta::zero();  // 0: 2 x base RTT
  // --- source ToR: Table 1 and the fallback (§3.3)
  double high_utilization = 0.9;                 // "high"/"full" link utilisation
  Delta utilization_tau = Delta::from_us(50);    // DRE time constant
  uint32_t fallback_candidates = 3;              // "three least loaded local queues"
  Delta path_state_timeout = Delta::from_ms(1);  // a tag-1 path not refreshed reverts
  Delta flow_idle = Delta::from_ms(2);           // flow state idle this long is dropped
  // --- stale CNPs (§3.3, Eq. 6-7)
  std::string cnp_filter = "probabilistic";  // probabilistic | none | all
  double w_q = 0.2;
  double max_p = 0.5;
  double cnp_threshold = 8;                // T
  std::string cnp_threshold_on = "count";  // count (W) | average (avgCNP)
  // --- reordering "like ConWeave" (its run.py leaf-spine values)
  Delta flush_extra = Delta::from_us(16);
  Delta default_wait = Delta::from_us(200);
  std::string reorder_buffer = "switch";  // switch | outside
};

class LbodsnSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  LbodsnConfig cfg;
};

// The LBoDSN header on balanced data packets (an INT-style tag: no wire bytes).
struct LbodsnTag {
  int64_t tx_time_ps = 0;    // departure from the source ToR (T_path)
  int64_t tail_time_ps = 0;  // when this epoch's TAIL left (reordering)
  uint32_t path = 0;
  uint32_t epoch = 0;
  uint8_t phase = 0;   // 1: sent after the TAIL, on the new path
  uint8_t flag = 0;    // kData, kTail
  uint8_t notify = 0;  // the first packet on a new path: the one-bit notification
  uint8_t nbit = 0;    // its alternating value
};

// FCN, notification reply and CLEAR: switch to switch.
struct LbodsnControl {
  int64_t sent_ps = 0;
  uint32_t path = 0;      // FCN: target (tag 1) or cleared (tag 0) path; CLEAR: epoch
  uint32_t old_path = 0;  // tag-1 FCN: the path the flow was seen on
  uint8_t kind = 0;       // kFcn, kNotifyReply, kClear
  uint8_t tag = 0;        // FCN congestion tag
  uint8_t nbit = 0;       // notification reply
  uint32_t dst_edge = 0;  // FCN: the flow's destination ToR (the sender, unless a spine)
};

class Lbodsn final : public LoadBalancer, public EventHandler {
 public:
  Lbodsn(const SwitchView& sw, const LbodsnConfig& cfg);
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  bool on_receive(const SwitchView& sw, Packet& p, PortId in_port) override;
  bool wants_enqueue() const override { return true; }
  void on_enqueue(const SwitchView& sw, Packet& p, PortId port) override;
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;
  void on_event(uint32_t kind, uint64_t arg) override;
  void add_stats(std::vector<Stat>& out) const override;

  static constexpr uint8_t kData = 1, kTail = 2;
  static constexpr uint8_t kFcn = 1, kNotifyReply = 2, kClear = 3;

  // The equations, as functions of their inputs (unit-tested on hand numbers).
  // Eq. 1 with Eq. 2's lower end as a floor (when floor_bytes > 0); bytes, bytes/s, s.
  static double q_th(double q_pfc, double growth_bytes_per_s, double t_d_s, double epsilon,
                     double floor_bytes);
  // Eq. 3: Q >> ceil(log2 fNum).
  static int64_t f_cc(int64_t q, uint32_t flows);
  // Eq. 5: time to the resume of a paused ingress (infinite when it is not draining).
  static double t_pfc_s(int64_t q, int64_t q_resume, double growth_bytes_per_s,
                        double t_re_flight_s);
  // Eq. 6 then 7: the new average and the discard probability (count-based threshold: W).
  struct CnpDecision {
    double avg_cnp;
    double p;  // 1 once the threshold is reached
  };
  static CnpDecision stale_cnp(double avg_cnp, uint32_t w, double w_q, double max_p, double t,
                               bool threshold_on_average);

  struct Counters {
    // Watching switch (destination ToR, or the spine under lb.watch: spine | both).
    uint64_t episodes = 0;           // an ingress rising to Q >= Q_th while growing
    uint64_t prediction_tries = 0;   // arrivals in an episode with an FCN allowed (retries)
    uint64_t rate_limited = 0;       // ... while an FCN of the port was under one RTT old
    uint64_t no_congested_flow = 0;  // predicted, but no flow held F_cc
    uint64_t fcns_sent = 0, clear_fcns_sent = 0;
    uint64_t spine_fcns_sent = 0;    // of fcns_sent, by spines (lb.watch)
    uint64_t fcns_before_pause = 0;  // tag-1 FCNs sent while their ingress was not paused
    uint64_t notify_replies = 0, clears_sent = 0;
    uint64_t t_pfc_nonzero = 0;  // candidate paths whose ingress was paused
    uint64_t no_target = 0;      // predictions whose flow had no path avoiding the ingress
    // Arrivals at a monitored ingress by Q / Q_th in tenths (10: at or above Q_th), and the
    // highest ratio seen: how near the prediction the fabric came.
    std::array<uint64_t, 11> qth_ratio_arrivals{};
    double max_qth_ratio = 0;
    // Source ToR.
    uint64_t reroutes = 0;   // tag-1 FCNs accepted: the flow moves at its next packet
    uint64_t tails = 0;      // ... and moved: its TAIL left on the old path
    uint64_t fcn_stale = 0;  // tag-1 FCNs about a path the flow had already left
    uint64_t fcn_in_flight = 0, fcn_unknown_flow = 0, fcn_same_path = 0;
    uint64_t paths_tagged = 0;  // tag-1 FCNs that tagged their path, the flow moving or not
    uint64_t source_picks = 0;  // spine FCNs: the source ToR chose the path (Table 1)
    uint64_t new_uncongested = 0, new_undetermined = 0, new_fallback = 0;
    uint64_t stale_cnps = 0, stale_cnps_discarded = 0;
    int64_t fcn_delay_sum_ps = 0, fcn_delay_max_ps = 0;
    uint64_t fcns_received = 0;
  };
  const Counters& counters() const { return stats_; }
  const InNetworkReorder::Counters& reorder_counters() const { return reorder_.counters(); }

  // Table 1: a path without a tag-1 FCN is uncongested whatever its utilisation; with one,
  // undetermined below high utilisation, congested at or above it.
  enum class PathClass : uint8_t { kUncongested, kUndetermined, kCongested };
  static PathClass classify(bool tag1, double utilization, double high);
  // §3.2: a new tag-1 FCN from an ingress whose last one left at `last` (never: none).
  static bool fcn_allowed(Time last, Time now, Delta interval) {
    return last == Time::never() || now - last >= interval;
  }
  // §3.3 with the alternating bit: a reply ends the window only if it answers the latest
  // reroute's notification.
  static bool reply_closes_window(uint8_t reply_nbit, uint8_t flow_nbit) {
    return reply_nbit == flow_nbit;
  }

  // The first tag-1 FCNs of this switch (up to kFcnLogSize), for tests and inspection.
  struct FcnRecord {
    Time at;
    PortId ingress;
    uint32_t flow;
    int64_t flow_bytes, f_cc, q;
    bool ingress_paused;
  };
  static constexpr size_t kFcnLogSize = 4096;
  const std::vector<FcnRecord>& fcn_log() const { return fcn_log_; }

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  static constexpr uint32_t kSourcePicks = 0xfffffffeu;  // an FCN's target: Table 1 chooses
  static constexpr uint32_t kFlushEvent = 1;
  static constexpr double kDreAlpha = 0.2;  // CONGA's: the period is tau x alpha
  static constexpr uint32_t kMaxPaths = 1u << 16;

  // ---- source ToR
  struct TxFlow {
    Time active;
    Time tail_time;
    uint32_t path = 0, pending_path = kNone;
    uint32_t epoch = 0;
    uint8_t phase = 0;
    uint8_t nbit = 0;
    bool awaiting_clear = false, stabilized = false, notify_next = false, stale = false;
    uint32_t w = 0;  // stale CNPs since the latest reroute
    double avg_cnp = 0;
  };
  struct PathState {
    bool tag1 = false;
    Time changed;
    std::vector<uint32_t> congested;  // flows FCN'd off it, not yet cleared
  };
  struct Uplink {
    DiscountingRateEstimator dre;
  };
  std::vector<PathState>& path_states(uint32_t dst_edge);
  double uplink_utilization(PortId port);
  // new_flow: counted in new_flows_* (a spine's FCN also places its flow by Table 1).
  uint32_t choose_new_path(uint32_t dst_edge, uint32_t paths, std::span<const PortId> candidates,
                           bool new_flow = true);
  void on_fcn(const Packet& p, const LbodsnControl& c);
  uint32_t resolve_source_pick(TxFlow& f, uint32_t dst_edge, uint32_t paths,
                               std::span<const PortId> candidates);
  bool filter_cnp(Packet& p);

  // ---- destination ToR
  struct Reported {
    uint32_t src_edge;
    uint32_t dst_edge;
    uint32_t path;       // the path it was on through this ingress (tag 0 names it)
    uint32_t flow_hash;  // tag 0 takes the route tag 1 took: it cannot overtake it
  };
  struct QueuedFlow {
    int64_t bytes = 0;
    uint32_t src_edge = 0, dst_edge = 0;
    uint32_t path = 0;  // as its source ToR numbers it (latest packet)
    uint32_t flow_hash = 0;
  };
  struct Ingress {
    bool monitored = false;  // faces a switch: watched as an ingress, estimated as an uplink
    Priority prio = 0;       // the class its data uses (the latest packet's)
    int64_t in_bytes = 0, out_bytes = 0;  // in the open rate window
    Time window_start;
    double growth = 0;  // lambda - mu of the last closed window, bytes/s
    Time last_fcn = Time::never();
    bool in_episode = false;              // Q >= Q_th while growing since the last arrival below
    FlatMap<uint32_t, QueuedFlow> flows;  // flows with bytes in this ingress
    FlatMap<uint32_t, Reported> reported;
  };
  struct PathDelay {
    Delta owd;
    Time at = Time::never();
    Delta min_owd = Delta::max();
  };
  void sample_window(Ingress& g, Time now);
  double q_th_of(PortId in, const Ingress& g) const;
  void check_prediction(const Packet& p, PortId in, Ingress& g);
  void check_clear(PortId in, Ingress& g);
  uint32_t pick_flow(const Packet& p, const Ingress& g, int64_t f_cc) const;
  uint32_t choose_target(uint32_t src_edge, PortId in, Priority prio);
  // T_d of Eq. 4 and the backlog above resume, for ties between two paused paths.
  std::pair<double, int64_t> t_d_of_path(uint32_t src_edge, uint32_t path, Priority prio);
  Delta t_path(uint32_t src_edge, uint32_t path);
  // This ToR's ingress port of each path from `src_edge` (worked out once per source ToR).
  const std::vector<PortId>& path_ingresses(uint32_t src_edge);
  PathDelay& path_delay(uint32_t src_edge, uint32_t path);
  void send(uint32_t to_edge, FlowId flow, uint32_t flow_hash, PortId in_port,
            const LbodsnControl& c);
  bool on_data_from_fabric(Packet& p, PortId in_port);
  void age(Time now);

  const SwitchView sw_;
  LbodsnConfig cfg_;
  bool spine_;          // not an edge switch: it only watches its ingresses from ToRs
  bool watch_ingress_;  // predicts pauses on its monitored ingresses (lb.watch)
  RandomStream rng_;
  PacketField<LbodsnTag> tag_;
  PacketField<LbodsnControl> control_;
  ControlKind control_kind_;
  uint32_t handler_;
  uint32_t self_;
  const Mmu* mmu_;
  bool arriving_pick_;
  int cnp_mode_;  // 0 probabilistic, 1 none, 2 all
  bool threshold_on_average_;
  Delta dre_period_;
  // Source.
  FlatMap<uint32_t, TxFlow> tx_;
  std::vector<std::vector<PathState>> paths_;  // by destination edge index
  std::vector<Uplink> uplinks_;                // by port
  std::vector<uint32_t> scratch_;
  std::vector<std::pair<int64_t, uint32_t>> scratch_load_;
  // Destination.
  std::vector<Ingress> ingress_;                   // by port
  std::vector<std::vector<PathDelay>> delays_;     // by source edge index, path
  std::vector<PathDelay> ingress_delay_;           // by port: freshest sample on that hop
  std::vector<std::vector<PortId>> path_ingress_;  // by source edge index, path
  Delta t_d_, fcn_interval_, t_re_flight_, delay_expiry_;
  InNetworkReorder reorder_;
  Time next_aging;
  Counters stats_;
  std::vector<FcnRecord> fcn_log_;
};

}  // namespace rocelab
