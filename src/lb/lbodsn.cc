// LBoDSN: configuration, the equations, and the source ToR (§3.3: new flows by Table 1,
// FCN handling, stale CNPs).
#include "lb/lbodsn.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "net/flow_control.h"
#include "net/mmu.h"
#include "net/node.h"
#include "net/source_route.h"

namespace rocelab {

namespace {
const std::array<std::string, 2> kFlowPick = {"arriving", "largest"};
const std::array<std::string, 3> kCnpFilter = {"probabilistic", "none", "all"};
const std::array<std::string, 2> kThresholdOn = {"count", "average"};
const std::array<std::string, 2> kReorderBuffers = {"switch", "outside"};
const std::array<std::string, 3> kWatch = {"tor", "spine", "both"};

// A switch that is not an edge watches only under lb.watch: spine | both, and only if some
// port of it faces an edge switch (the first hop of a flow's path).
bool faces_an_edge(const SwitchView& sw) {
  for (size_t i = 0; i < sw.port_count(); ++i) {
    const Node* peer = sw.port(PortId{static_cast<uint16_t>(i)}).peer();
    if (peer->kind() == NodeKind::kSwitch && sw.routing().is_edge(peer->id().index())) return true;
  }
  return false;
}
}  // namespace

// ---------------------------------------------------------------- configuration

void LbodsnSchemeConfig::describe(ParamVisitor& v) {
  const Delta max = Delta::max();
  v.flag("fcn", cfg.fcn,
         "destination ToRs predict pauses and send FCNs (§3.2); false: an ablation with new-flow "
         "path classes only");
  v.choice("watch", cfg.watch, kWatch,
           "which switches predict pauses on their ingresses: tor: the destination ToR, on its "
           "spine-facing ingresses (§3.2's \"destination switch\"); spine: the switch one hop "
           "past the source ToR, on its ingresses from ToRs (the \"upstream source switch\" "
           "one link away), naming the path and leaving the new one to the source's Table 1; "
           "both");
  v.real("epsilon", cfg.epsilon, 0.01, 1, "Eq. 1's multiplicative factor (§3.2: around 0.8)");
  v.duration("rate_window", cfg.rate_window, Delta::from_ns(1), max,
             "lambda_t and mu_t of Eq. 1 and the gradient of Eq. 5 are measured over windows of "
             "this length (silent in the paper)");
  v.duration("t_d", cfg.t_d, Delta::zero(), max,
             "Eq. 1's t_d, the FCN's delay to the source ToR; 0 = propagation plus a control "
             "frame's serialization over the path's links");
  v.flag("qth_floor", cfg.qth_floor, "Q_th never below Eq. 2's lower end t_d x C");
  v.duration("fcn_interval", cfg.fcn_interval, Delta::zero(), max,
             "at most one tag-1 FCN per ingress port per this (§3.2 \"one RTT\"); 0 = the "
             "ToR-to-ToR base RTT");
  v.choice("fcn_flow_pick", cfg.fcn_flow_pick, kFlowPick,
           "which flow an FCN names: the arriving packet's, when it holds F_cc (arriving), or "
           "the one with most bytes in the ingress (largest)");
  v.real("clear_gradient_gbps", cfg.clear_gradient_gbps, -1e6, 1e6,
         "tag-0 FCNs once the counter is below Q_th and grows at most this fast (§3.2 \"growth "
         "gradient is small\")");
  v.duration("t_re_flight", cfg.t_re_flight, Delta::zero(), max,
             "Eq. 5's T_re_flight; 0 = t_d (\"to arrive at the source switch\")");
  v.duration("path_delay_expiry", cfg.path_delay_expiry, Delta::zero(), max,
             "a T_path sample older than this gives way to the freshest on the same last hop, "
             "then to the path's minimum; 0 = 2 x base RTT");
  v.real("high_utilization", cfg.high_utilization, 0.01, 10,
         "Table 1's \"high\"/\"full\" local link utilisation");
  v.duration("utilization_tau", cfg.utilization_tau, Delta::from_ns(5), max,
             "time constant of the uplinks' rate estimators (CONGA's DRE, alpha 0.2)");
  v.count("fallback_candidates", cfg.fallback_candidates, 1, 1024,
          "with no uncongested or undetermined path, a random one of this many least-loaded "
          "uplinks (§3.3: three)");
  v.duration("path_state_timeout", cfg.path_state_timeout, Delta::from_ns(1), max,
             "a tag-1 path not refreshed by an FCN this long counts as uncongested again (silent "
             "in the paper)");
  v.duration("flow_idle", cfg.flow_idle, Delta::from_ns(1), max,
             "flow state idle this long is dropped; the flow is new again (ConWeave's aging)");
  v.choice("cnp_filter", cfg.cnp_filter, kCnpFilter,
           "stale CNPs: dropped with Eq. 7's probability (probabilistic), all forwarded (none) "
           "or all dropped (all)");
  v.real("w_q", cfg.w_q, 0, 1, "Eq. 6's weight (no value in the paper)");
  v.real("max_p", cfg.max_p, 0, 1, "Eq. 7's maxP (no value in the paper)");
  v.real("cnp_threshold", cfg.cnp_threshold, 1e-9, 1e9, "Eq. 7's T (no value in the paper)");
  v.choice("cnp_threshold_on", cfg.cnp_threshold_on, kThresholdOn,
           "every stale CNP is dropped once W (count) or avgCNP (average) reaches T");
  v.duration("flush_extra", cfg.flush_extra, Delta::zero(), max,
             "reordering: slack on the predicted TAIL arrival (ConWeave run.py: 16 us)");
  v.duration("default_wait", cfg.default_wait, Delta::zero(), max,
             "reordering: hold time with no old-path timing (ConWeave run.py: 200 us)");
  v.choice("reorder_buffer", cfg.reorder_buffer, kReorderBuffers,
           "held packets in the switch buffer (switch) or beside it until released (outside, "
           "ConWeave-ns3)");
}

std::unique_ptr<LoadBalancer> LbodsnSchemeConfig::build(const SwitchView& sw) const {
  // The fabric follows the source route; under lb.watch: spine | both, the switches past
  // the ToRs watch their ingresses.
  if (!sw.is_edge() && (cfg.watch == "tor" || !faces_an_edge(sw))) return nullptr;
  if (!sw.flow_control().buffer() || !sw.flow_control().lossless())
    throw std::invalid_argument(
        "lb: lbodsn predicts PFC pauses from the switches' ingress counters: it needs fc: pfc "
        "(a lossless fabric with a shared-buffer MMU)");
  return std::make_unique<Lbodsn>(sw, cfg);
}

// ---------------------------------------------------------------- the equations

double Lbodsn::q_th(double q_pfc, double growth, double t_d_s, double epsilon, double floor_bytes) {
  const double q = (q_pfc - std::max(0.0, growth) * t_d_s) * epsilon;  // Eq. 1
  return std::max(q, floor_bytes);                                     // Eq. 2, lower end
}

int64_t Lbodsn::f_cc(int64_t q, uint32_t flows) {
  if (flows <= 1) return q;
  const int shift = std::bit_width(flows - 1);  // ceil(log2 flows)
  return q >> shift;                            // Eq. 3
}

double Lbodsn::t_pfc_s(int64_t q, int64_t q_resume, double growth, double t_re_flight_s) {
  if (growth >= 0) return std::numeric_limits<double>::infinity();  // not draining
  return static_cast<double>(std::max<int64_t>(0, q - q_resume)) / -growth + t_re_flight_s;
}

Lbodsn::CnpDecision Lbodsn::stale_cnp(double avg, uint32_t w, double w_q, double max_p, double t,
                                      bool threshold_on_average) {
  avg = (1 - w_q) * avg + w_q * static_cast<double>(w);  // Eq. 6
  const double level = threshold_on_average ? avg : static_cast<double>(w);
  if (level >= t) return {avg, 1.0};
  return {avg, std::min(1.0, max_p * avg / t)};  // Eq. 7
}

Lbodsn::PathClass Lbodsn::classify(bool tag1, double utilization, double high) {
  if (!tag1) return PathClass::kUncongested;
  return utilization < high ? PathClass::kUndetermined : PathClass::kCongested;
}

// ---------------------------------------------------------------- setup

Lbodsn::Lbodsn(const SwitchView& sw, const LbodsnConfig& cfg)
    : sw_(sw),
      cfg_(cfg),
      spine_(!sw.is_edge()),
      watch_ingress_(spine_ || cfg.watch != "spine"),
      rng_(sw.seed(), "lbodsn", sw.id().index()),
      tag_(sw.packet_layout().declare<LbodsnTag>("lbodsn.tag")),
      control_(sw.packet_layout().declare<LbodsnControl>("lbodsn.control")),
      control_kind_(sw.packet_layout().control_kind("lbodsn")),
      handler_(sw.sim().add_handler(this, sw.id().index())),
      self_(sw.id().index()),
      mmu_(sw.flow_control().buffer()),
      arriving_pick_(cfg.fcn_flow_pick == "arriving"),
      cnp_mode_(static_cast<int>(std::find(kCnpFilter.begin(), kCnpFilter.end(), cfg.cnp_filter) -
                                 kCnpFilter.begin())),
      threshold_on_average_(cfg.cnp_threshold_on == "average"),
      dre_period_(Delta{std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<double>(cfg.utilization_tau.ps) * kDreAlpha))}),
      reorder_(
          sw,
          InNetworkReorderConfig{cfg.flush_extra, cfg.default_wait, cfg.reorder_buffer == "switch"},
          handler_, kFlushEvent) {
  const Routing& r = sw.routing();
  const size_t edges = r.edge_switches().size();
  paths_.resize(edges);
  delays_.resize(edges);
  path_ingress_.resize(edges);
  uplinks_.resize(sw.port_count());
  ingress_.resize(sw.port_count());
  ingress_delay_.resize(sw.port_count());
  // One switch-to-switch hop, for a 64 B control frame and for a full data packet: this
  // ToR's first uplink (leaf-spines and fat-trees are uniform). t_d is the FCN's trip to
  // the farthest source ToR (two links in a leaf-spine, four across fat-tree pods); §3.2's
  // "one RTT" between ToRs is data one way and the FCN back.
  Delta control_hop = Delta::zero(), data_hop = Delta::zero();
  for (size_t i = 0; i < sw.port_count(); ++i) {
    const EgressPort& port = sw.port(PortId{static_cast<uint16_t>(i)});
    const bool fabric = port.peer()->kind() == NodeKind::kSwitch;
    // A ToR: its fabric ports (watched ingresses, estimated uplinks); a spine: its ports
    // from ToRs, where the data arrives one hop from its source ToR.
    ingress_[i].monitored = fabric && (!spine_ || r.is_edge(port.peer()->id().index()));
    if (!fabric || control_hop != Delta::zero()) continue;
    control_hop =
        port.delay() +
        sw.wire().serialize(sw.wire().control_wire_bytes(PacketType::kControl), port.rate_bps());
    data_hop = port.delay() + sw.wire().serialize(sw.wire().mtu_wire_bytes(), port.rate_bps());
  }
  // A spine's FCN crosses one link, back to the flow's source ToR.
  const uint32_t links = spine_ ? 1 : r.farthest_edge_distance(self_);
  t_d_ = cfg.t_d > Delta::zero() ? cfg.t_d : control_hop * static_cast<int64_t>(links);
  t_re_flight_ = cfg.t_re_flight > Delta::zero() ? cfg.t_re_flight : t_d_;
  const Delta rtt = data_hop * static_cast<int64_t>(links) + t_d_;
  fcn_interval_ = cfg.fcn_interval > Delta::zero() ? cfg.fcn_interval : rtt;
  delay_expiry_ = cfg.path_delay_expiry > Delta::zero() ? cfg.path_delay_expiry : rtt * 2;
}

// ---------------------------------------------------------------- source ToR

std::vector<Lbodsn::PathState>& Lbodsn::path_states(uint32_t dst_edge) {
  const Routing& r = sw_.routing();
  std::vector<PathState>& v = paths_[r.edge_index(dst_edge)];
  if (v.empty()) v.resize(std::min<uint64_t>(r.path_count(self_, dst_edge), kMaxPaths));
  return v;
}

double Lbodsn::uplink_utilization(PortId port) {
  uint64_t& x =
      uplinks_[port.index()].dre.bytes_at(sw_.now(), Time::zero(), dre_period_, kDreAlpha);
  return DiscountingRateEstimator::utilization(x, sw_.port(port).rate_bps(), dre_period_,
                                               kDreAlpha);
}

// §3.3 "Allocation of new flows": a random uncongested path, else a random undetermined
// one, else a random path among those on the `fallback_candidates` least-loaded uplinks.
uint32_t Lbodsn::choose_new_path(uint32_t dst_edge, uint32_t paths,
                                 std::span<const PortId> candidates, bool new_flow) {
  std::vector<PathState>& st = path_states(dst_edge);
  const Time now = sw_.now();
  const uint32_t n0 = static_cast<uint32_t>(candidates.size());
  scratch_.clear();
  for (uint32_t k = 0; k < paths; ++k) {
    PathState& s = st[k];
    if (s.tag1 && now - s.changed > cfg_.path_state_timeout) {  // liveness (rocelab's)
      s.tag1 = false;
      s.congested.clear();
    }
    if (classify(s.tag1, 0, cfg_.high_utilization) == PathClass::kUncongested)
      scratch_.push_back(k);
  }
  if (!scratch_.empty()) {
    stats_.new_uncongested += new_flow;
    return scratch_[rng_.below(scratch_.size())];
  }
  for (uint32_t k = 0; k < paths; ++k)
    if (classify(true, uplink_utilization(candidates[k % n0]), cfg_.high_utilization) ==
        PathClass::kUndetermined)
      scratch_.push_back(k);
  if (!scratch_.empty()) {
    stats_.new_undetermined += new_flow;
    return scratch_[rng_.below(scratch_.size())];
  }
  stats_.new_fallback += new_flow;
  scratch_load_.clear();
  for (uint32_t i = 0; i < n0; ++i)
    scratch_load_.emplace_back(sw_.port(candidates[i]).data_queue_bytes(), i);
  const size_t keep = std::min<size_t>(cfg_.fallback_candidates, n0);
  std::partial_sort(scratch_load_.begin(), scratch_load_.begin() + static_cast<ptrdiff_t>(keep),
                    scratch_load_.end());
  const uint32_t first = scratch_load_[rng_.below(keep)].second;
  const uint32_t per_uplink = std::max<uint32_t>(1, paths / n0);
  return first + n0 * static_cast<uint32_t>(rng_.below(per_uplink));
}

// Per data packet from a local host to another ToR.
PortId Lbodsn::choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  const Routing& r = sw.routing();
  if (r.src_edge(p) != self_) return candidates[sw.ecmp_index(p, candidates)];
  const uint32_t dst_edge = r.dst_edge(p);
  const Time now = sw.now();
  age(now);
  // Routing::path_count works the count out (and allocates): the table sized once holds it.
  const uint32_t paths = static_cast<uint32_t>(path_states(dst_edge).size());
  auto [it, fresh] = tx_.try_emplace(p.flow.index());
  TxFlow& f = it->second;
  if (fresh || now - f.active > cfg_.flow_idle) {  // a new flow (§3.3)
    f.path = choose_new_path(dst_edge, paths, candidates);
    ++f.epoch;
    f.phase = 0;
    f.tail_time = Time::zero();
    f.pending_path = kNone;
    f.awaiting_clear = f.stabilized = f.notify_next = f.stale = false;
  } else if (f.stabilized) {  // the CLEAR came back: a new epoch on the current path
    f.stabilized = false;
    ++f.epoch;
    f.phase = 0;
    f.tail_time = Time::zero();
  }
  f.active = now;

  LbodsnTag& tag = sw.field(tag_, p);
  uint32_t packet_path = f.path;
  uint8_t packet_phase = f.phase;
  tag.flag = kData;
  if (f.pending_path == kSourcePicks)
    f.pending_path = resolve_source_pick(f, dst_edge, paths, candidates);
  if (f.pending_path != kNone) {
    // The packet after an FCN closes the old path (the TAIL); the flow moves (§3.3).
    tag.flag = kTail;
    ++stats_.tails;
    packet_phase = 0;
    f.tail_time = now;
    f.path = f.pending_path;
    f.pending_path = kNone;
    f.phase = 1;
    f.awaiting_clear = true;
    f.notify_next = true;
    f.nbit ^= 1;  // a late reply to an earlier reroute cannot end this window
    f.stale = true;
    f.w = 0;
  } else if (f.notify_next && f.phase == 1) {
    tag.notify = 1;  // the first packet on the new path carries the notification
    tag.nbit = f.nbit;
    f.notify_next = false;
  }
  tag.path = packet_path;
  tag.epoch = f.epoch;
  tag.phase = packet_phase;
  tag.tx_time_ps = now.ps;
  tag.tail_time_ps = f.tail_time.ps;
  return pin_path_at_edge(p, packet_path, paths, candidates);
}

// §3.3 "Management of FCNs".
void Lbodsn::on_fcn(const Packet& p, const LbodsnControl& c) {
  const Time now = sw_.now();
  ++stats_.fcns_received;
  const int64_t delay = (now - Time{c.sent_ps}).ps;
  stats_.fcn_delay_sum_ps += delay;
  stats_.fcn_delay_max_ps = std::max(stats_.fcn_delay_max_ps, delay);
  const uint32_t dst_edge = c.dst_edge;
  std::vector<PathState>& st = path_states(dst_edge);
  if (c.tag == 0) {  // the flow's congestion cleared; the path with its last flow
    if (c.path >= st.size()) return;
    PathState& s = st[c.path];
    std::erase(s.congested, p.flow.index());
    if (s.congested.empty()) s.tag1 = false;
    return;
  }
  // Table 1 learns of the congested path whether or not the flow moves: the watching
  // switch counts the flow as reported there and will clear it with a tag-0 FCN.
  if (c.old_path < st.size()) {
    PathState& old = st[c.old_path];
    old.tag1 = true;
    old.changed = now;
    if (std::find(old.congested.begin(), old.congested.end(), p.flow.index()) ==
        old.congested.end())
      old.congested.push_back(p.flow.index());
    ++stats_.paths_tagged;
  }
  auto it = tx_.find(p.flow.index());
  if (it == tx_.end()) {
    ++stats_.fcn_unknown_flow;
    return;
  }
  TxFlow& f = it->second;
  if (f.pending_path != kNone || f.awaiting_clear) {  // one reroute at a time
    ++stats_.fcn_in_flight;
    return;
  }
  if (c.old_path != f.path) {  // named on a path it has left (a reroute crossed it)
    ++stats_.fcn_stale;
    return;
  }
  if (c.path != kSourcePicks && (c.path == f.path || c.path >= st.size())) {
    ++stats_.fcn_same_path;
    return;
  }
  f.pending_path = c.path;  // a spine's FCN: chosen by Table 1 at the flow's next packet
  ++stats_.reroutes;
}

// A spine named the path only: the source ToR places the flow as a new one (§3.3's
// Table 1, with the named path now tagged); a draw of the same path leaves it there.
uint32_t Lbodsn::resolve_source_pick(TxFlow& f, uint32_t dst_edge, uint32_t paths,
                                     std::span<const PortId> candidates) {
  ++stats_.source_picks;
  const uint32_t path = choose_new_path(dst_edge, paths, candidates, false);
  if (path != f.path) return path;
  ++stats_.fcn_same_path;
  --stats_.reroutes;
  return kNone;
}

// §3.3 "Handling of CNPs": inside a reroute's window the flow's CNPs are stale and dropped
// with Eq. 7's probability. True when a CNP frame was consumed.
bool Lbodsn::filter_cnp(Packet& p) {
  const bool carries = p.type == PacketType::kCnp ||
                       ((p.type == PacketType::kAck || p.type == PacketType::kNak) && p.cnp_flag);
  if (!carries) return false;
  auto it = tx_.find(p.flow.index());
  if (it == tx_.end() || !it->second.stale) return false;
  TxFlow& f = it->second;
  ++stats_.stale_cnps;
  ++f.w;
  const CnpDecision d =
      stale_cnp(f.avg_cnp, f.w, cfg_.w_q, cfg_.max_p, cfg_.cnp_threshold, threshold_on_average_);
  f.avg_cnp = d.avg_cnp;
  bool discard = false;
  if (cnp_mode_ == 2)
    discard = true;
  else if (cnp_mode_ == 0)
    discard = d.p >= 1.0 || rng_.uniform() < d.p;
  if (!discard) return false;
  ++stats_.stale_cnps_discarded;
  return sw_.suppress_cnp(p);
}

bool Lbodsn::on_receive(const SwitchView& sw, Packet& p, PortId in_port) {
  const Routing& r = sw.routing();
  if (p.type == PacketType::kControl) {
    if (p.control_kind != control_kind_ || p.dst.index() != self_) return false;
    const LbodsnControl c = sw.field(control_, p);
    auto it = tx_.find(p.flow.index());
    if (c.kind == kFcn) {
      on_fcn(p, c);
    } else if (it != tx_.end() && c.kind == kNotifyReply) {
      if (reply_closes_window(c.nbit, it->second.nbit)) it->second.stale = false;
    } else if (it != tx_.end() && c.kind == kClear && c.path == it->second.epoch) {
      TxFlow& f = it->second;
      f.awaiting_clear = false;
      f.stabilized = true;
      if (f.notify_next) f.stale = false;  // nothing went on the new path to protect
    }
    sw.free_packet(p.self);
    return true;
  }
  if (p.type != PacketType::kData) {
    if (r.dst_edge(p) != self_) return false;
    return filter_cnp(p);
  }
  if (r.dst_edge(p) != self_) return false;
  if (sw.port(in_port).peer()->kind() != NodeKind::kSwitch) return false;  // same ToR
  return on_data_from_fabric(p, in_port);
}

void Lbodsn::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kFlushEvent) reorder_.on_flush_event(arg);
}

// Flow state idle for flow_idle is dropped, in sweeps every flow_idle.
void Lbodsn::age(Time now) {
  if (next_aging == Time::zero()) next_aging = now + cfg_.flow_idle;
  if (now < next_aging) return;
  next_aging = now + cfg_.flow_idle;
  for (auto it = tx_.begin(); it != tx_.end();)
    it = now - it->second.active > cfg_.flow_idle ? tx_.erase(it) : it + 1;
  reorder_.drop_idle(now, cfg_.flow_idle);
}

void Lbodsn::add_stats(std::vector<Stat>& out) const {
  const Counters& c = stats_;
  auto sum = [&out](const char* name, double v) { out.push_back({name, v}); };
  sum("lbodsn_prediction_episodes", static_cast<double>(c.episodes));
  sum("lbodsn_prediction_tries", static_cast<double>(c.prediction_tries));
  sum("lbodsn_rate_limited", static_cast<double>(c.rate_limited));
  sum("lbodsn_no_congested_flow", static_cast<double>(c.no_congested_flow));
  sum("lbodsn_fcns_sent", static_cast<double>(c.fcns_sent));
  sum("lbodsn_spine_fcns_sent", static_cast<double>(c.spine_fcns_sent));
  sum("lbodsn_clear_fcns_sent", static_cast<double>(c.clear_fcns_sent));
  sum("lbodsn_fcns_before_pause", static_cast<double>(c.fcns_before_pause));
  sum("lbodsn_t_pfc_nonzero", static_cast<double>(c.t_pfc_nonzero));
  sum("lbodsn_no_target", static_cast<double>(c.no_target));
  sum("lbodsn_notify_replies", static_cast<double>(c.notify_replies));
  sum("lbodsn_clears", static_cast<double>(c.clears_sent));
  sum("lbodsn_reroutes", static_cast<double>(c.reroutes));
  sum("lbodsn_tails", static_cast<double>(c.tails));
  sum("lbodsn_fcn_stale", static_cast<double>(c.fcn_stale));
  sum("lbodsn_fcn_in_flight", static_cast<double>(c.fcn_in_flight));
  sum("lbodsn_fcn_unknown_flow", static_cast<double>(c.fcn_unknown_flow));
  sum("lbodsn_fcn_same_path", static_cast<double>(c.fcn_same_path));
  sum("lbodsn_paths_tagged", static_cast<double>(c.paths_tagged));
  sum("lbodsn_source_picks", static_cast<double>(c.source_picks));
  sum("lbodsn_new_flows_uncongested", static_cast<double>(c.new_uncongested));
  sum("lbodsn_new_flows_undetermined", static_cast<double>(c.new_undetermined));
  sum("lbodsn_new_flows_fallback", static_cast<double>(c.new_fallback));
  sum("lbodsn_stale_cnps", static_cast<double>(c.stale_cnps));
  sum("lbodsn_stale_cnps_discarded", static_cast<double>(c.stale_cnps_discarded));
  sum("lbodsn_fcns_received", static_cast<double>(c.fcns_received));
  sum("lbodsn_fcn_delay_sum_ns", static_cast<double>(c.fcn_delay_sum_ps) / 1e3);
  out.push_back({"lbodsn_fcn_delay_max_ns", static_cast<double>(c.fcn_delay_max_ps) / 1e3, true});
  out.push_back({"lbodsn_max_qth_ratio", c.max_qth_ratio, true});
  for (size_t i = 0; i < c.qth_ratio_arrivals.size(); ++i)
    out.push_back(
        {"lbodsn_qth_ratio_arrivals_" + std::string(i < 10 ? "0" : "") + std::to_string(i),
         static_cast<double>(c.qth_ratio_arrivals[i])});
  out.push_back({"lbodsn_t_d_ns", static_cast<double>(t_d_.ps) / 1e3, true});
  out.push_back({"lbodsn_fcn_interval_ns", static_cast<double>(fcn_interval_.ps) / 1e3, true});
  reorder_.add_stats("lbodsn", out);
}

}  // namespace rocelab
