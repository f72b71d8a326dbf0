#include "lb/flb.h"

#include "lb/edge_paths.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "net/flow_control.h"
#include "net/mmu.h"
#include "net/node.h"
#include "net/source_route.h"

namespace rocelab {

// ---------------------------------------------------------------- configuration

namespace {
// In the order of Flb::Guard.
const std::array<std::string, 4> kGuards = {"literal", "departed", "idle", "never"};
const std::array<std::string, 2> kRcN = {"recent", "entries"};

// The buckets of the reported delays (a move's gap and slack, a sample's change): < 100 ns,
// < 1 us, < 10 us, more.
size_t delay_bucket(Delta d) {
  return d < Delta::from_ns(100) ? 0 : d < Delta::from_us(1) ? 1 : d < Delta::from_us(10) ? 2 : 3;
}

Flb::Guard guard_named(const std::string& name) {
  const auto it = std::find(kGuards.begin(), kGuards.end(), name);
  if (it == kGuards.end()) throw std::invalid_argument("flb: unknown reroute_guard " + name);
  return static_cast<Flb::Guard>(it - kGuards.begin());
}
}  // namespace

void FlbSchemeConfig::describe(ParamVisitor& v) {
  v.duration("probe_interval", cfg.probe_interval, Delta::zero(), Delta::max(),
             "delay stamp per path at most this often; 0 = 2 base RTTs (FLB §3.1)");
  v.duration("delay_expiry", cfg.delay_expiry, Delta::zero(), Delta::max(),
             "forget a path's delay sample after this; 0 = one probe interval (FLB §3.1: sampled "
             "every 2 base RTTs, monitored continuously)");
  v.duration("flow_timeout", cfg.flow_timeout, Delta::from_ns(1), Delta::max(),
             "inactive flow entries expire (1 ms: FLB §3.1)");
  v.flag("hardware_table", cfg.hardware_table,
         "flow table indexed by CRC16 of the 5-tuple, collisions as on the switch (FLB §3.4)");
  v.count("hardware_entries", cfg.hardware_entries, 1, 1u << 24, "entries of that table (2^16)");
  v.bytes("isolation_threshold", cfg.isolation_threshold_bytes, 0, kNoLimit,
          "K on destination-edge egress queues; 0 = Appendix A, low end 2dC");
  v.real("isolation_threshold_buffer_fraction", cfg.isolation_threshold_buffer_fraction, 0, 1,
         "K as a fraction of the switch buffer when > 0 (FLB Fig. 12: 0.2, 0.3)");
  v.count("isolation_n", cfg.isolation_n, 1, 100000,
          "n of Appendix A's upper bound Q_PFC/n - 2dC(n-1), for the reported range");
  v.duration("isolation_timeout", cfg.isolation_timeout, Delta::from_ns(1), Delta::max(),
             "release isolation entries not refreshed by a CNM (§3.2; 1 ms)");
  v.duration("cnm_refresh", cfg.cnm_refresh, Delta::from_ns(1), Delta::max(),
             "repeat a congested flow's CNM this often while the port stays congested");
  v.duration("isolation_recompute", cfg.isolation_recompute, Delta::from_ns(1), Delta::max(),
             "period of the isolation-path recomputation (§3.2)");
  v.duration("clock_offset_max", cfg.clock_offset_max, Delta::zero(), Delta::max(),
             "switch clocks offset by up to this (FLB needs no synchronisation)");
  v.choice("reroute_guard", cfg.reroute_guard, kGuards,
           "besides Alg. 1's test, an existing flow moves only when: literal: nothing more (the "
           "previous packet's local wait estimated at line rate, a stale current path at its "
           "base delay); departed: its previous packet has left this switch (dequeue counter, "
           "§3.4) and the current path has a fresh sample; idle: the current uplink queue is "
           "empty and not paused, and the current path has a fresh sample; never: existing flows "
           "stay (new flows take the fastest path; all leave a path that becomes isolated)");
  v.duration("age_tick", cfg.age_tick, Delta::zero(), Delta::max(),
             "Alg. 1's gap from an 8-bit aging counter with this tick (§3.4), at least "
             "(ticks - 1) x tick; 0 = exact arrival times");
  v.choice("rc_n", cfg.rc_n, kRcN,
           "what the n of a CNM counts (RC's C/n, §3.2 \"the number of congested flows\"): "
           "recent: the port's congested-flow entries hit within rc_n_window or held by a "
           "congestion CNM; entries: all of them, each kept until idle for flow_timeout (§3.1)");
  v.duration("rc_n_window", cfg.rc_n_window, Delta::zero(), Delta::max(),
             "rc_n: recent counts entries hit this recently; 0 = isolation_recompute (§3.2's "
             "periodic check)");
  v.require(cfg.isolation_threshold_bytes == 0 || cfg.isolation_threshold_buffer_fraction == 0,
            "isolation_threshold", "give isolation_threshold or its buffer fraction, not both");
}

std::unique_ptr<LoadBalancer> FlbSchemeConfig::build(const SwitchView& sw) const {
  if (!sw.is_edge()) return nullptr;  // edge switches only (§3.4); the rest follow the path
  return std::make_unique<Flb>(sw, cfg);
}

// ---------------------------------------------------------------- setup

Flb::Flb(const SwitchView& sw, const FlbConfig& cfg)
    : sw_(sw),
      rng_(sw.seed(), "flb", sw.id().index()),
      stamp_(sw.packet_layout().declare<Stamp>("flb.stamp")),
      feedback_(sw.packet_layout().declare<Feedback>("flb.feedback")),
      cnm_(sw.packet_layout()),
      cfg_(cfg),
      handler_(sw.sim().add_handler(this, sw.id().index())),
      self_edge_(sw.routing().edge_index(sw.id().index())),
      table_(cfg.hardware_table, cfg.hardware_entries, cfg.flow_timeout),
      guard_(guard_named(cfg.reroute_guard)),
      rc_n_recent_(cfg.rc_n == "recent"),
      rc_n_window_(cfg.rc_n_window > Delta::zero() ? cfg.rc_n_window : cfg.isolation_recompute),
      move_mark_(sw.packet_layout().declare<uint8_t>("flb.move")),
      move_prediction_(sw.packet_layout().declare<MovePrediction>("flb.move_prediction")) {
  RandomStream clock_rng(sw_.seed(), "flb-clock", sw.id().index());
  clock_offset_ = Delta{
      static_cast<int64_t>(clock_rng.uniform() * static_cast<double>(cfg.clock_offset_max.ps))};
  pairs_.resize(sw_.routing().edge_switches().size());
  ds_ports_.resize(sw.port_count());
  for (size_t i = 0; i < sw.port_count(); ++i)
    queue_stride_ = std::max(queue_stride_, sw.port(PortId(static_cast<uint16_t>(i))).num_queues());
  dequeued_bytes_.assign(sw.port_count() * queue_stride_, 0);
  compute_thresholds();
}

void Flb::compute_thresholds() {
  // Appendix A: K in [2dC, Q_PFC/n - 2dC(n-1)); d = the largest one-way delay from a
  // sender to this switch, C = the egress port's rate.
  const Routing& r = sw_.routing();
  const uint32_t max_hops = r.farthest_edge_distance(sw_.id().index());
  Delta max_link_delay;
  for (size_t i = 0; i < sw_.port_count(); ++i)
    max_link_delay = std::max(max_link_delay, sw_.port(PortId(static_cast<uint16_t>(i))).delay());
  const SwitchConfig& sc = sw_.config();
  const double alpha = sc.pfc.alpha;
  // The shared pool the dynamic threshold divides (the whole buffer without an MMU).
  const Mmu* buffer = sw_.flow_control().buffer();
  const int64_t shared = buffer ? buffer->shared_capacity() : sc.buffer_bytes;
  const int64_t q_pfc =
      sc.pfc.mode == PfcThresholdMode::kStatic
          ? sc.pfc.static_xoff_bytes
          : static_cast<int64_t>(alpha * static_cast<double>(shared) / (1 + alpha));
  for (size_t i = 0; i < sw_.port_count(); ++i) {
    const EgressPort& port = sw_.port(PortId(static_cast<uint16_t>(i)));
    DsPort& dp = ds_ports_[i];
    if (port.peer()->kind() != NodeKind::kHost) continue;
    dp.congestion_point = port.peer()->id().index();
    const BitsPerSec c = port.rate_bps();
    // Sender to this switch: its host link plus the switch-to-switch hops.
    const Delta d = (max_link_delay + serialization_delay(sw_.wire().mtu_wire_bytes(), c)) *
                    static_cast<int64_t>(max_hops + 1);
    const int64_t two_dc = 2 * bytes_in(d, c);
    const int64_t n = cfg_.isolation_n;
    range_low_ = two_dc;
    range_high_ = q_pfc / n - two_dc * (n - 1);
    if (cfg_.isolation_threshold_bytes > 0) {
      dp.k = cfg_.isolation_threshold_bytes;
    } else if (cfg_.isolation_threshold_buffer_fraction > 0) {
      dp.k = static_cast<int64_t>(cfg_.isolation_threshold_buffer_fraction *
                                  static_cast<double>(sc.buffer_bytes));
    } else {
      dp.k = two_dc;
    }
  }
}

Flb::Pair& Flb::pair(uint32_t edge_index) {
  std::unique_ptr<Pair>& slot = pairs_[edge_index];
  if (slot) return *slot;
  slot = std::make_unique<Pair>();
  Pair& p = *slot;
  const Routing& r = sw_.routing();
  p.dst_switch = r.edge_switches()[edge_index];
  const uint32_t self = sw_.id().index();
  if (p.dst_switch != self) {
    EdgePaths ep = edge_paths(sw_, p.dst_switch, 32767);
    p.paths = static_cast<uint16_t>(ep.paths);
    p.first_hop = std::move(ep.first_hop);
    // Isolation sets and their scratch grow to at most the path count: take it now, not
    // at the first congestion that needs it.
    p.iso_paths.reserve(p.paths);
    if (scratch_free_paths_.capacity() < p.paths) scratch_free_paths_.reserve(p.paths);
    if (scratch_touched_.capacity() < pairs_.size()) scratch_touched_.reserve(pairs_.size());
    // Base RTT: host to host over path 0 and back, each link taken as this switch's uplink
    // (delay + one MTU frame); the probe interval is two of them (FLB §3.1).
    const int64_t links = ep.switch_links + 2;
    const Delta base_rtt = ep.per_link * (2 * links);
    p.probe_interval = cfg_.probe_interval > Delta::zero() ? cfg_.probe_interval : base_rtt * 2;
  } else {
    p.first_hop.push_back(PortId(0));
    p.probe_interval =
        cfg_.probe_interval > Delta::zero() ? cfg_.probe_interval : Delta::from_us(10);
  }
  // FLB §3.1 monitors each path "continuously", sampling it every two base RTTs: the current
  // sample is the one of the latest sampling period, and an older one no longer describes
  // the path (docs/reproduction/flb.md shows the sensitivity).
  p.expiry = cfg_.delay_expiry > Delta::zero() ? cfg_.delay_expiry : p.probe_interval;
  p.owd.assign(p.paths, 0);
  p.measured_at.assign(p.paths, Time::never());
  p.min_owd.assign(p.paths, INT64_MAX);
  p.last_stamp.assign(p.paths, Time::never());
  p.fb_owd.assign(p.paths, 0);
  p.fb_measured_at.assign(p.paths, Time{});
  p.fb.resize(p.paths);
  return p;
}

// ---------------------------------------------------------------- delays and Alg. 1

// The source edge's own share of a path's delay: the queue at the path's first hop, which
// it knows exactly (the per-port queue counters of FLB §3.4). Departure stamps measure the
// rest of the path.
int64_t Flb::local_queue_ps(const Pair& p, uint16_t path) const {
  const EgressPort& port = sw_.port(p.first_hop[path]);
  // A packet queued now waits for the frame on the wire and for the bytes ahead of it.
  return (port.residual_tx() + serialization_delay(port.data_queue_bytes(), port.rate_bps())).ps;
}

bool Flb::fresh_measurement(const Pair& p, uint16_t path, Time now) const {
  return p.measured_at[path] != Time::never() && now - p.measured_at[path] <= p.expiry;
}

// The sampled part of a path's delay, beyond the source edge's own queue.
int64_t Flb::remote_delay(const Pair& p, uint16_t path, Time now) const {
  if (fresh_measurement(p, path, now)) return p.owd[path];
  // Unmeasured or stale: assume the fabric part idle, at its base delay (or the pair's).
  if (p.min_owd[path] != INT64_MAX) return p.min_owd[path];
  int64_t base = INT64_MAX;
  for (int64_t m : p.min_owd) base = std::min(base, m);
  return base == INT64_MAX ? 0 : base;
}

int64_t Flb::delay_of(const Pair& p, uint16_t path, Time now) const {
  return local_queue_ps(p, path) + remote_delay(p, path, now);
}

// Uncongested flows may not use the isolation paths toward their destination (§3.2).
void Flb::allowed_paths(const Pair& p, std::vector<uint8_t>& out) const {
  out.assign(p.paths, 1);
  for (uint16_t path : p.iso_paths) out[path] = 0;
}

uint16_t Flb::pick_min(const Pair& p, const std::vector<uint8_t>& allowed, Time now) {
  // Alg. 1 lines 3-5: the minimum-delay allowed path; ties broken uniformly at random.
  int64_t best = INT64_MAX;
  uint32_t ties = 0;
  uint16_t choice = 0;
  for (uint16_t i = 0; i < p.paths; ++i) {
    if (!allowed[i]) continue;
    const int64_t d = delay_of(p, i, now);
    if (d < best) {
      best = d;
      ties = 1;
      choice = i;
    } else if (d == best && rng_.below(++ties) == 0) {
      choice = i;
    }
  }
  return choice;
}

uint16_t Flb::reroute(const std::vector<int64_t>& delay, const std::vector<uint8_t>& allowed,
                      uint16_t current, Delta gap) {
  // Alg. 1 lines 8-14: the fastest path p' with 0 < delay(p) - delay(p') < gap, else stay.
  uint16_t best = current;
  for (uint16_t i = 0; i < delay.size(); ++i) {
    if (!allowed[i]) continue;
    const int64_t diff = delay[current] - delay[i];
    if (diff > 0 && diff < gap.ps && delay[i] < delay[best]) best = i;
  }
  return best;
}

// Alg. 1's Δt. §3.4 measures it with an aging counter that a timer increments every tick
// and each packet resets: k ticks since the previous packet mean a gap above (k - 1) ticks.
Delta Flb::packet_gap(Time prev, Time now) const {
  if (cfg_.age_tick <= Delta::zero()) return now - prev;
  const int64_t tick = cfg_.age_tick.ps;
  const int64_t ticks = std::min<int64_t>(
      255, (now + clock_offset_).ps / tick - (prev + clock_offset_).ps / tick);  // 8 bits
  return Delta{std::max<int64_t>(0, ticks - 1) * tick};
}

// Alg. 1 moves a flow only when its next packet cannot overtake the previous one (§3.1).
// Its delay test cannot show that alone: the previous packet's wait in this switch's
// uplink queue is known only while the uplink drains at line rate (a PFC PAUSE stops it),
// and a current path without a current sample has no known delay (as a candidate without
// one has none). False when what the switch reads leaves a move unsafe: the flow stays,
// and Alg. 1's per-path test is not even computed.
bool Flb::may_move(const Pair& pr, const FlbFlowEntry& e, Time now) {
  if (guard_ == Guard::kLiteral) return true;
  if (guard_ == Guard::kNever) return false;
  if (!fresh_measurement(pr, e.path, now)) {
    ++held_stale_current_;
    return false;
  }
  const PortId up_id = pr.first_hop[e.path];
  const EgressPort& up = sw_.port(up_id);
  const size_t q = e.prev_queue;  // the queue the flow's previous packet joined
  if (guard_ == Guard::kIdle) {
    if (up.queue_bytes(q) == 0 && !up.pfc_paused(q)) return true;
    ++held_uplink_busy_;
    return false;
  }
  // Departed: the queue has sent past the previous packet's end (an empty queue holds it
  // no longer either: that covers a packet the buffer dropped).
  if (dequeued_bytes(up_id, q) >= e.prev_end_position || up.queue_bytes(q) == 0) return true;
  ++held_not_departed_;
  return false;
}

bool Flb::is_isolation_path(const Pair& pr, uint16_t path) {
  return std::find(pr.iso_paths.begin(), pr.iso_paths.end(), path) != pr.iso_paths.end();
}

PortId Flb::choose_egress(const SwitchView&, Packet& p, std::span<const PortId> hops) {
  const Time now = sw_.now();
  const Routing& r = sw_.routing();
  const uint32_t dst_idx = r.edge_index(r.dst_edge(p));
  Pair& pr = pair(dst_idx);
  bool fresh = false;
  FlbFlowEntry& e = table_.upsert(p, now, &fresh);
  uint16_t path;
  const auto iso = iso_.empty() ? iso_.end() : iso_.find(table_.key_of(p));
  if (iso != iso_.end() && iso->second.dst_edge == dst_idx && !pr.iso_paths.empty()) {
    path = iso->second.path;  // congested flow: stays on its isolation path (§3.2)
  } else if (fresh || e.path >= pr.paths) {
    allowed_paths(pr, scratch_allowed_);
    path = pick_min(pr, scratch_allowed_, now);
  } else if (is_isolation_path(pr, e.path)) {
    // Its path became isolated: it leaves at once (§3.2). Waiting for its previous packet
    // to leave the uplink would spare some reordering, but a flow sending back to back
    // never lets it leave and stays with the congested flows (docs/reproduction/flb.md).
    allowed_paths(pr, scratch_allowed_);
    path = pick_min(pr, scratch_allowed_, now);
    ++forced_moves_;
  } else if (!may_move(pr, e, now)) {
    path = e.path;
  } else {
    allowed_paths(pr, scratch_allowed_);
    // Alg. 1 needs p'.t_OWD: a path without a current measurement cannot be shown safe,
    // so it is no candidate for moving an existing flow (new flows may still take it).
    scratch_delay_.resize(pr.paths);
    for (uint16_t i = 0; i < pr.paths; ++i) {
      scratch_delay_[i] = delay_of(pr, i, now);
      if (i != e.path && !fresh_measurement(pr, i, now)) scratch_allowed_[i] = 0;
    }
    // The current path's delay is the one the previous packet meets (Alg. 1 compares
    // it with the gap): its local queue then, not now. The queue may have drained by
    // up to the gap since, and the packet behind a drained queue is no later.
    scratch_delay_[e.path] = e.last_local_ps + remote_delay(pr, e.path, now);
    const Delta gap = packet_gap(e.last_seen, now);
    path = reroute(scratch_delay_, scratch_allowed_, e.path, gap);
    if (!fresh && path != e.path) {
      const int64_t clock = local_clock().ps;
      // Under the departed and idle guards the previous packet has left the uplink by now:
      // whatever it arrives later than now plus its path's sample, the fabric added.
      const bool left = guard_ == Guard::kDeparted || guard_ == Guard::kIdle;
      const MovePrediction predicted{
          clock - (now - e.last_seen).ps + scratch_delay_[e.path], clock + scratch_delay_[path],
          left ? clock + remote_delay(pr, e.path, now) : MovePrediction::kNotKnown};
      note_move(p, now - e.last_seen, gap - Delta{scratch_delay_[e.path] - scratch_delay_[path]},
                sample_age_quarter(pr, e.path, now), predicted);
    }
  }
  if (!fresh && path != e.path) ++reroutes_;
  e.path = path;
  e.last_seen = now;
  e.last_local_ps = local_queue_ps(pr, path);
  if (wants_enqueue()) {
    routed_entry_ = &e;  // on_enqueue notes where the packet sits
  }

  if (pr.last_stamp[path] == Time::never() || now - pr.last_stamp[path] >= pr.probe_interval) {
    // FLB §3.1: a sampled packet carries its departure time; on_dequeue writes it.
    sw_.field(stamp_, p) = Stamp{kStampPending, path, 0};
    pr.last_stamp[path] = now;
    ++probes_;
  }
  return pin_path_at_edge(p, path, pr.paths, hops);  // multi-tier: pinned end to end (§3.4)
}

// ---------------------------------------------------------------- measurement

void Flb::on_enqueue(const SwitchView&, Packet& p, PortId port) {
  if (routed_entry_ == nullptr) return;
  FlbFlowEntry& e = *routed_entry_;
  routed_entry_ = nullptr;
  const EgressPort& up = sw_.port(port);
  const size_t q = sw_.flow_control().classify(up, p);  // admitted: its queue is known
  e.prev_queue = static_cast<uint32_t>(q);
  // Where this packet will leave its uplink queue, as the queue's dequeued-byte count.
  // Only data is counted out (on_dequeue); ACKs sharing the queue (switch.ack_queue:
  // data) only make the position later than it is, and the flow stay longer.
  if (guard_ == Guard::kDeparted)
    e.prev_end_position =
        dequeued_bytes(port, q) + static_cast<uint64_t>(up.queue_bytes(q) + p.wire_bytes);
}

bool Flb::on_receive(const SwitchView&, Packet& p, PortId in_port) {
  routed_entry_ = nullptr;  // a packet routed before and dropped never reached on_enqueue
  const Routing& r = sw_.routing();
  const uint32_t self = sw_.id().index();
  if (cnm_.is_cnm(p)) {
    if (r.dst_edge(p) == self) on_cnm(p);
    return false;  // it goes on to the host (FLB §3.3)
  }
  if (p.type == PacketType::kControl) return false;
  const bool from_fabric = sw_.port(in_port).peer()->kind() == NodeKind::kSwitch;
  const bool to_local = r.dst_edge(p) == self;
  if (from_fabric && to_local) {
    as_destination(p, in_port);
  } else if (!from_fabric && !to_local) {
    as_source(p);
  }
  if (to_local && p.type == PacketType::kData) check_isolation(p, in_port);
  return false;
}

void Flb::as_destination(Packet& p, PortId) {
  if (p.type == PacketType::kData) watch_moves(p);
  const Routing& r = sw_.routing();
  Pair& pr = pair(r.edge_index(r.src_edge(p)));
  Stamp& stamp = sw_.field(stamp_, p);
  if (p.type == PacketType::kData && stamp.state == kStamped) {
    const uint16_t path = stamp.path;
    if (path < pr.paths) {
      const int64_t owd = local_clock().ps - stamp.time_ps;
      pr.fb_owd[path] = owd;
      pr.fb_measured_at[path] = sw_.now();
      pr.fb.mark_changed(path);
    }
    stamp = Stamp{};
  }
  Feedback& fb = sw_.field(feedback_, p);
  if (fb.valid) {  // feedback on our own paths toward that edge switch
    const uint16_t path = fb.path;
    if (path < pr.paths) {
      const int64_t owd = fb.owd_ps;
      if (pr.measured_at[path] != Time::never())
        ++sample_change_[delay_bucket(Delta{std::abs(owd - pr.owd[path])})];
      pr.owd[path] = owd;
      ++feedback_received_;
      pr.measured_at[path] = sw_.now();
      pr.min_owd[path] = std::min(pr.min_owd[path], owd);
    }
    fb = Feedback{};
  }
}

// How old the path's sample is, in quarters of its lifetime (0-3; the last also for a
// stale or missing one, which only the literal and never guards let a flow move from).
size_t Flb::sample_age_quarter(const Pair& pr, uint16_t path, Time now) const {
  if (!fresh_measurement(pr, path, now)) return 3;
  const int64_t age = (now - pr.measured_at[path]).ps;
  const int64_t quarter = std::max<int64_t>(pr.expiry.ps / 4, 1);
  return static_cast<size_t>(std::min<int64_t>(age / quarter, 3));
}

void Flb::note_move(Packet& p, Delta gap, Delta slack, size_t age_quarter,
                    const MovePrediction& predicted) {
  const size_t g = delay_bucket(gap), s = delay_bucket(slack);
  ++moves_by_gap_[g];
  ++moves_by_slack_[s];
  ++moves_by_sample_age_[age_quarter];
  sw_.field(move_mark_, p) = static_cast<uint8_t>(1 + g + 4 * s + 16 * age_quarter);
  sw_.field(move_prediction_, p) = predicted;
}

// At the destination edge: a moved packet opens a watch, keyed by its flow and its first
// byte. The move overtook if the packet before it (the bytes just ahead, as first sent:
// sent from the host before the moved one, so not a go-back-N resend) arrives after it.
// Watches older than kMoveWatch go, so the table stays small.
uint64_t Flb::move_watch_key(uint32_t flow, uint64_t seq) {
  return (static_cast<uint64_t>(flow) << 40) | (seq & ((uint64_t{1} << 40) - 1));
}

void Flb::watch_moves(const Packet& p) {
  const Time now = sw_.now();
  const uint8_t mark = sw_.field(move_mark_, p);
  if (mark != 0) {
    if (move_watch_.size() >= 4096)
      move_watch_.erase_if([&](uint64_t, const MoveWatch& w) { return now - w.at > kMoveWatch; });
    const auto buckets = static_cast<uint8_t>(mark - 1);
    move_watch_.try_emplace(move_watch_key(p.flow.index(), p.seq)).first->second =
        MoveWatch{p.sent_time,
                  now,
                  sw_.field(move_prediction_, p),
                  static_cast<uint8_t>(buckets % 4),
                  static_cast<uint8_t>(buckets / 4 % 4),
                  static_cast<uint8_t>(buckets / 16)};
    return;
  }
  if (move_watch_.empty()) return;
  auto it = move_watch_.find(move_watch_key(p.flow.index(), p.seq + p.payload_bytes));
  if (it == move_watch_.end()) return;
  if (p.sent_time <= it->second.sent_time && now - it->second.at <= kMoveWatch)
    count_overtaking(it->second);
  move_watch_.erase(it);
}

// The previous packet (this arrival) came later than Alg. 1 expected it by `late`, the
// moved one earlier by `early`; they overtook where late + early exceeded the slack.
void Flb::count_overtaking(const MoveWatch& w) {
  ++overtaken_by_gap_[w.gap_bucket];
  ++overtaken_by_slack_[w.slack_bucket];
  ++overtaken_by_sample_age_[w.age_bucket];
  const int64_t late = local_clock().ps - w.predicted.previous_arrival_ps;
  const int64_t early = w.predicted.moved_arrival_ps - (w.at + clock_offset_).ps;
  ++overtaken_previous_late_[delay_bucket(Delta{std::max<int64_t>(late, 0)})];
  ++overtaken_moved_early_[delay_bucket(Delta{std::max<int64_t>(early, 0)})];
  ++(late >= early ? overtaken_mainly_previous_ : overtaken_mainly_moved_);
  if (w.predicted.previous_fabric_ps != MovePrediction::kNotKnown) {
    const int64_t fabric_late = local_clock().ps - w.predicted.previous_fabric_ps;
    ++overtaken_previous_fabric_late_[delay_bucket(Delta{std::max<int64_t>(fabric_late, 0)})];
  }
}

void Flb::as_source(Packet& p) {
  // Piggyback one pending delay measurement on traffic toward the edge it describes.
  const Routing& r = sw_.routing();
  Pair& pr = pair(r.edge_index(r.dst_edge(p)));
  const uint32_t path = pr.fb.take_changed();
  if (path == FeedbackRoundRobin::kNone) return;
  sw_.field(feedback_, p) = Feedback{true, static_cast<uint16_t>(path), pr.fb_owd[path]};
  ++feedback_sent_;
  ++feedback_wait_[delay_bucket(sw_.now() - pr.fb_measured_at[path])];
}

void Flb::stamp_departure(Packet& p) const {
  Stamp& stamp = sw_.field(stamp_, p);
  stamp.state = kStamped;
  stamp.time_ps = local_clock().ps;
}

std::vector<int64_t> Flb::path_delays(uint32_t dst_edge) const {
  const Pair* p = pairs_[sw_.routing().edge_index(dst_edge)].get();
  if (!p) return {};
  std::vector<int64_t> out;
  for (uint16_t i = 0; i < p->paths; ++i)
    out.push_back(p->measured_at[i] == Time::never() ? -1 : p->owd[i] - p->min_owd[i]);
  return out;
}

std::vector<uint16_t> Flb::isolated_paths(uint32_t dst_edge) const {
  const Pair* p = pairs_[sw_.routing().edge_index(dst_edge)].get();
  return p ? p->iso_paths : std::vector<uint16_t>{};
}

}  // namespace rocelab
