#include "lb/proteus.h"

#include <algorithm>
#include <array>

#include "lb/edge_paths.h"
#include "net/flow_control.h"
#include "net/node.h"
#include "net/source_route.h"

namespace rocelab {

// ---------------------------------------------------------------- configuration

namespace {
const std::array<std::string, 3> kSubRtt = {"better_late", "immediate", "never"};
// Indices: rtt_reroute_ (0 every packet, 1 off a path not non-congested, 2 never, 3 off a
// congested path).
const std::array<std::string, 2> kKickoutScope = {"pair", "port"};
const std::array<std::string, 4> kRttReroute = {"every_packet", "when_not_noncongested", "never",
                                                "when_congested"};
constexpr uint32_t kMaxPaths = 4096;  // 12-bit path IDs (§IV-A)
constexpr int64_t kNoAlternativeDelay = INT64_MAX / 4;
}  // namespace

void ProteusSchemeConfig::describe(ParamVisitor& v) {
  v.real("rtt_low_factor", cfg.rtt_low_factor, 0, 100,
         "x in RTT_low = (1+x) x host-to-host one-way base delay (§III-A-1: 0.2-0.4)");
  v.duration("rtt_low_allowance", cfg.rtt_low_allowance, Delta::zero(), Delta::max(),
             "non-congested while the measured delay exceeds its base by less than this; 0 = "
             "use rtt_low_factor");
  v.real("util_full", cfg.util_full, 0.01, 1,
         "utilisation counted as full (Table II's \"= 1\"; silent in the paper)");
  v.duration("measure_period", cfg.measure_period, Delta::zero(), Delta::max(),
             "destination-edge measurement period; 0 = the base RTT (§IV-C \"e.g., RTT\")");
  v.count("path_expiry_periods", cfg.path_expiry_periods, 1, 1000000,
          "a path report older than this many periods is forgotten: the path counts as idle "
          "(silent in the paper)");
  v.count("alternatives", cfg.alternatives, 0, Proteus::kMaxAlternatives,
          "alternative path IDs in each packet (§III-B-2: 3)");
  v.duration("flow_timeout", cfg.flow_timeout, Delta::from_ns(1), Delta::max(),
             "inactive flow entries expire (silent; 1 ms as FLB)");
  v.flag("hardware_table", cfg.hardware_table,
         "flow table indexed by the CRC16 of the 5-tuple, collisions as on the switch (§IV-A)");
  v.count("hardware_entries", cfg.hardware_entries, 1, 1u << 24, "entries of that table (2^16)");
  v.choice("subrtt", cfg.subrtt, kSubRtt,
           "Alg. 2 at a paused egress: better_late: wait while t_td > t_qd, else reroute "
           "(§III-B-2); immediate: reroute on any pause (the kick-out of §II-D); never: wait");
  v.flag("sojourn_at_every_hop", cfg.sojourn_at_every_hop,
         "t_td loses the sojourn time at every switch (CST, §III-A-2); false: only where the "
         "packet waited through a pause (Alg. 2 lines 5-7)");
  v.choice("rtt_reroute", cfg.rtt_reroute, kRttReroute,
           "when Alg. 1 may move an existing flow: every_packet (the algorithm, and §IV-A), "
           "when_not_noncongested or when_congested (§III-B-1's \"the current path is "
           "congested\", read as any class but Table II's non-congested, or as its congested "
           "class only), or never (an ablation: what RTT-level rerouting is worth)");
  v.choice("kickout_scope", cfg.kickout_scope, kKickoutScope,
           "who a kick-out (Alg. 2 line 10) keeps off the paused uplink until it resumes: the "
           "pair whose packet met the pause (pair), or every pair leaving by that uplink (port)");
}

std::unique_ptr<LoadBalancer> ProteusSchemeConfig::build(const SwitchView& sw) const {
  return std::make_unique<Proteus>(sw, cfg);  // every switch (§IV-C)
}

// ---------------------------------------------------------------- setup

Proteus::Proteus(const SwitchView& sw, const ProteusConfig& cfg)
    : sw_(sw),
      cfg_(cfg),
      rng_(sw.seed(), "proteus", sw.id().index()),
      tag_(sw.packet_layout().declare<Tag>("proteus.tag")),
      feedback_(sw.packet_layout().declare<Feedback>("proteus.feedback")),
      handler_(sw.sim().add_handler(this, sw.id().index())),
      self_(sw.id().index()),
      is_edge_(sw.is_edge()),
      subrtt_(static_cast<uint8_t>(std::find(kSubRtt.begin(), kSubRtt.end(), cfg.subrtt) -
                                   kSubRtt.begin())),
      rtt_reroute_(
          static_cast<uint8_t>(std::find(kRttReroute.begin(), kRttReroute.end(), cfg.rtt_reroute) -
                               kRttReroute.begin())),
      kick_port_scope_(cfg.kickout_scope == "port"),
      // Only edge switches keep flows (§IV-C): elsewhere the table stays at its minimum.
      table_(cfg.hardware_table && sw.is_edge(), cfg.hardware_entries, cfg.flow_timeout) {
  if (!is_edge_) return;
  const Routing& r = sw.routing();
  pairs_.resize(r.edge_switches().size());
  port_bytes_.assign(sw.port_count(), 0);
  port_kicked_.assign(sw.port_count(), 0);
  uplink_move_at_.assign(sw.port_count(), Time::never());
  uplink_move_pair_.assign(sw.port_count(), 0);
  // One measurement period for the switch: the base RTT over its longest edge pair.
  const uint32_t max_links = r.farthest_edge_distance(self_);
  Delta per_link;
  for (size_t i = 0; i < sw.port_count(); ++i) {
    const EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
    per_link = std::max(
        per_link, port.delay() + serialization_delay(sw.wire().mtu_wire_bytes(), port.rate_bps()));
  }
  period_ = cfg.measure_period > Delta::zero()
                ? cfg.measure_period
                : per_link * static_cast<int64_t>(2 * (max_links + 2));
  if (period_ <= Delta::zero()) period_ = Delta::from_us(10);
  expiry_ = period_ * static_cast<int64_t>(cfg.path_expiry_periods);
}

Proteus::Pair& Proteus::pair(uint32_t edge_index) {
  std::unique_ptr<Pair>& slot = pairs_[edge_index];
  if (slot) return *slot;
  slot = std::make_unique<Pair>();
  Pair& pr = *slot;
  pr.edge_index = edge_index;
  const Routing& r = sw_.routing();
  const uint32_t dst_switch = r.edge_switches()[edge_index];
  if (dst_switch != self_) {
    EdgePaths ep = edge_paths(sw_, dst_switch, kMaxPaths);
    pr.paths = ep.paths;
    pr.first_hop = std::move(ep.first_hop);
    // Edge to edge is what the destination measures; RTT_low is stated on the host-to-host
    // delay.
    pr.base_ps = (ep.per_link * ep.switch_links).ps;
    const int64_t host_base_ps = (ep.per_link * (ep.switch_links + 2)).ps;
    const int64_t allowance =
        cfg_.rtt_low_allowance > Delta::zero()
            ? cfg_.rtt_low_allowance.ps
            : static_cast<int64_t>(cfg_.rtt_low_factor * static_cast<double>(host_base_ps));
    pr.rtt_low_ps = pr.base_ps + allowance;
  } else {
    pr.first_hop.push_back(PortId(0));
  }
  const uint32_t n = pr.paths;
  pr.delay_ps.assign(n, 0);
  pr.util_permille.assign(n, 0);
  pr.reported_at.assign(n, Time::never());
  pr.kicked_port.assign(n, PortId(0));
  pr.kicked_queue.assign(n, 0);
  pr.kicked.assign(n, 0);
  pr.sum_ps.assign(n, 0);
  pr.samples.assign(n, 0);
  pr.last_in_port.assign(n, PortId(0));
  pr.fb_delay_ps.assign(n, 0);
  pr.fb_util.assign(n, 0);
  pr.fb.resize(n);
  if (views_.capacity() < n) views_.reserve(n);
  if (allowed_.capacity() < n) allowed_.reserve(n);
  return pr;
}

// ---------------------------------------------------------------- path states (§III-A-1)

PathClass Proteus::classify(int64_t delay_ps, double util, int64_t rtt_low_ps, double util_full) {
  if (delay_ps < rtt_low_ps) return PathClass::kNonCongested;                  // Table II rows 1-2
  return util < util_full ? PathClass::kUndetermined : PathClass::kCongested;  // rows 3-4
}

bool Proteus::fresh(const Pair& pr, uint32_t path, Time now) const {
  return pr.reported_at[path] != Time::never() && now - pr.reported_at[path] <= expiry_;
}

// p_active: a kicked-out path comes back when the queue that kicked it out resumes (§III-B-2
// "until PFC resuming"); read when needed rather than on the XON.
bool Proteus::active(Pair& pr, uint32_t path) {
  if (pr.kicked[path]) {
    if (sw_.port(pr.kicked_port[path]).pfc_paused(pr.kicked_queue[path])) return false;
    pr.kicked[path] = 0;
  }
  if (!kick_port_scope_) return true;
  const PortId hop = pr.first_hop[path];
  uint32_t& kicked = port_kicked_[hop.index()];
  for (uint32_t q = 0; kicked >> q; ++q)
    if ((kicked >> q) & 1u) {
      if (sw_.port(hop).pfc_paused(q)) return false;
      kicked &= ~(1u << q);
    }
  return true;
}

// Reported only: how much an Alg. 1 move gained, whether another pair moved onto the same
// uplink within one period, and whether the uplink was paused.
void Proteus::note_move(const Pair& pr, uint32_t dst_edge, uint32_t path, int64_t gain_ps,
                        Time now) {
  ++move_gain_[gain_ps < 100'000 ? 0 : gain_ps < 1'000'000 ? 1 : gain_ps < 10'000'000 ? 2 : 3];
  const size_t up = pr.first_hop[path].index();
  if (uplink_move_at_[up] != Time::never() && now - uplink_move_at_[up] < period_ &&
      uplink_move_pair_[up] != dst_edge)
    ++moves_same_uplink_other_pair_;
  uplink_move_at_[up] = now;
  uplink_move_pair_[up] = dst_edge;
}

// Unmeasured or forgotten paths count as idle: base delay, no load (an idle path has no
// queue; the paper is silent).
void Proteus::refresh_views(Pair& pr, Time now) {
  views_.resize(pr.paths);
  for (uint32_t i = 0; i < pr.paths; ++i) {
    ProteusPathView& v = views_[i];
    const bool known = fresh(pr, i, now);
    v.delay_ps = known ? pr.delay_ps[i] : pr.base_ps;
    v.util = known ? pr.util_permille[i] / 1000.0 : 0.0;
    v.cls = classify(v.delay_ps, v.util, pr.rtt_low_ps, cfg_.util_full);
    v.active = active(pr, i);
  }
}

uint32_t Proteus::select_path(const std::vector<ProteusPathView>& paths,
                              const std::vector<uint8_t>& allowed, RandomStream& rng) {
  for (int pass = 0; pass < 2; ++pass) {  // pass 1: every allowed path is inactive
    std::array<uint32_t, 3> best = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    std::array<uint32_t, 3> ties = {0, 0, 0};
    for (uint32_t i = 0; i < paths.size(); ++i) {
      const ProteusPathView& v = paths[i];
      if (!allowed[i] || (pass == 0 && !v.active)) continue;
      const size_t c = static_cast<size_t>(v.cls);
      if (best[c] == UINT32_MAX) {
        best[c] = i;
        ties[c] = 1;
        continue;
      }
      const ProteusPathView& b = paths[best[c]];
      // Lines 16 and 20 minimise the delay; line 18 maximises the utilisation.
      const bool better =
          v.cls == PathClass::kUndetermined ? v.util > b.util : v.delay_ps < b.delay_ps;
      const bool equal =
          v.cls == PathClass::kUndetermined ? v.util == b.util : v.delay_ps == b.delay_ps;
      if (better) {
        best[c] = i;
        ties[c] = 1;
      } else if (equal && rng.below(++ties[c]) == 0) {
        best[c] = i;
      }
    }
    for (uint32_t b : best)
      if (b != UINT32_MAX) return b;
  }
  return UINT32_MAX;
}

// The alternatives continue SelectPath's order (silent in the paper): active before
// kicked-out, then non-congested by delay, undetermined by utilisation (descending),
// congested by delay; ties by path ID.
void Proteus::rank_alternatives(const Pair& pr, uint32_t chosen, FlowEntry& e) {
  std::array<uint32_t, kMaxAlternatives> best{};
  uint32_t count = 0;
  const uint32_t want = std::min<uint32_t>(cfg_.alternatives, pr.paths - 1);
  auto before = [&](uint32_t a, uint32_t b) {
    const ProteusPathView &x = views_[a], &y = views_[b];
    if (x.active != y.active) return x.active;
    if (x.cls != y.cls) return x.cls < y.cls;
    if (x.cls == PathClass::kUndetermined) {
      if (x.util != y.util) return x.util > y.util;
    } else if (x.delay_ps != y.delay_ps) {
      return x.delay_ps < y.delay_ps;
    }
    return a < b;
  };
  // Insertion into a short sorted list: at most 7 kept, no allocation.
  for (uint32_t i = 0; i < pr.paths && want > 0; ++i) {
    if (i == chosen) continue;
    if (count == want && !before(i, best[count - 1])) continue;
    uint32_t k = count < want ? count++ : count - 1;
    while (k > 0 && before(i, best[k - 1])) {
      best[k] = best[k - 1];
      --k;
    }
    best[k] = i;
  }
  e.alt_count = static_cast<uint8_t>(count);
  for (uint32_t k = 0; k < count; ++k) e.alt[k] = static_cast<uint16_t>(best[k]);
}

// t_td: "the delay difference between the optimal and suboptimal paths" (§III-B-2), the
// suboptimal one being the first alternative from `from`; never negative (an alternative
// no slower than the path means any pause is worth leaving).
int64_t Proteus::tolerable_delay(const Pair& pr, uint32_t path, const FlowEntry& e,
                                 uint32_t from) const {
  if (from >= e.alt_count) return kNoAlternativeDelay;
  const Time now = sw_.now();
  auto delay = [&](uint32_t i) { return fresh(pr, i, now) ? pr.delay_ps[i] : pr.base_ps; };
  return std::max<int64_t>(0, delay(e.alt[from]) - delay(path));
}

// t_qd: the minimum queueing delay a packet joining `queue` now sees once the port sends
// again: the frame on the wire and the bytes ahead, at line rate (§III-B-2, "predicts the
// minimum queuing delay").
int64_t Proteus::queueing_ps(const EgressPort& port, size_t queue) const {
  return (port.residual_tx() + port.tx_time(port.queue_bytes(queue))).ps;
}

// ---------------------------------------------------------------- Alg. 1 at the source edge

uint32_t Proteus::rtt_level_choice(Pair& pr, FlowEntry& e, bool fresh_flow, Time now) {
  if (fresh_flow || e.path >= pr.paths) {  // line 3: a new flow
    refresh_views(pr, now);
    allowed_.assign(pr.paths, 1);
    const uint32_t path = select_path(views_, allowed_, rng_);
    ++new_flows_;
    ++selected_[static_cast<size_t>(views_[path].cls)];
    // Reported only: a new flow taking the previous new flow's path within one period
    // (1 / paths of them would, at random) is the herd a minimum-delay choice can cause.
    if (pr.last_new_path == path && now - pr.last_new_at < period_) ++same_path_within_period_;
    pr.last_new_path = path;
    pr.last_new_at = now;
    chose_paused_uplink_ += uplink_paused(pr.first_hop[path]);
    rank_alternatives(pr, path, e);
    return path;
  }
  const uint32_t current = e.path;
  if (rtt_reroute_ == 2) return current;
  const bool current_known = fresh(pr, current, now);
  const int64_t current_delay = current_known ? pr.delay_ps[current] : pr.base_ps;
  auto current_class = [&] {
    return classify(current_delay, current_known ? pr.util_permille[current] / 1000.0 : 0,
                    pr.rtt_low_ps, cfg_.util_full);
  };
  if (rtt_reroute_ == 1 && current_class() == PathClass::kNonCongested) return current;
  if (rtt_reroute_ == 3 && current_class() != PathClass::kCongested) return current;
  // Lines 6-7: paths faster than the current one by less than the packet gap. A path
  // without a current report has no known delay and cannot be shown to keep order.
  const Delta gap = now - e.last_seen;
  auto qualifies = [&](uint32_t i) {
    return i != current && fresh(pr, i, now) &&
           faster_within_gap(current_delay, pr.delay_ps[i], gap);
  };
  bool any = false;  // the common case, checked before the views are built
  for (uint32_t i = 0; i < pr.paths && !any; ++i) any = qualifies(i);
  if (!any) return current;  // line 10
  refresh_views(pr, now);
  allowed_.assign(pr.paths, 0);
  bool any_active = false;
  for (uint32_t i = 0; i < pr.paths; ++i) {
    allowed_[i] = qualifies(i) && views_[i].active;
    any_active |= allowed_[i] != 0;
  }
  if (!any_active) return current;
  const uint32_t path = select_path(views_, allowed_, rng_);  // line 8
  ++rtt_reroutes_;
  ++rtt_reroutes_from_[static_cast<size_t>(current_class())];
  if (pr.last_move_path == path && now - pr.last_move_at < period_)
    ++moves_same_path_within_period_;
  pr.last_move_path = path;
  pr.last_move_at = now;
  note_move(pr, pr.edge_index, path, current_delay - pr.delay_ps[path], now);
  chose_paused_uplink_ += uplink_paused(pr.first_hop[path]);
  rank_alternatives(pr, path, e);
  return path;
}

void Proteus::write_header(const Pair& pr, const FlowEntry& e, Tag& tag) const {
  tag.path = e.path;
  tag.alt = e.alt;
  tag.alt_count = e.alt_count;
  tag.tolerable_ps = tolerable_delay(pr, e.path, e, 0);
  tag.state = kRouted;
}

PortId Proteus::choose_egress(const SwitchView&, Packet& p, std::span<const PortId> hops) {
  // Not an edge: only a failure gives a core switch a choice (a valley route); Proteus
  // chooses at the source edge, and this switch hashes.
  if (!is_edge_) return hops[sw_.ecmp_index(p, hops)];
  const Time now = sw_.now();
  const Routing& r = sw_.routing();
  Pair& pr = pair(r.edge_index(r.dst_edge(p)));
  bool fresh_flow = false;
  FlowEntry& e = table_.upsert(p, now, &fresh_flow);
  e.path = static_cast<uint16_t>(rtt_level_choice(pr, e, fresh_flow, now));
  Tag& tag = sw_.field(tag_, p);
  write_header(pr, e, tag);
  const PortId out = sub_rtt_at_source(pr, e, p, tag, hops);
  e.last_seen = now;
  return out;
}

// ---------------------------------------------------------------- Alg. 2

// Alg. 2 at the source edge, on the first hop of the path Alg. 1 chose: the only switch of
// a 2-tier fabric where another path can still be taken.
PortId Proteus::sub_rtt_at_source(Pair& pr, FlowEntry& e, Packet& p, Tag& tag,
                                  std::span<const PortId> hops) {
  const FlowControl& fc = sw_.flow_control();
  const EgressPort& port = sw_.port(pr.first_hop[e.path]);
  const size_t q = fc.classify(port, p);
  if (port.pfc_paused(q)) {
    const bool reroute =
        subrtt_ == 1 ||
        (subrtt_ == 0 && !wait_through_pause(tag.tolerable_ps, queueing_ps(port, q)));
    uint32_t chosen = UINT32_MAX;
    if (reroute) {
      for (uint32_t k = 0; k < e.alt_count && chosen == UINT32_MAX; ++k) {
        const uint32_t a = e.alt[k];
        const EgressPort& alt_port = sw_.port(pr.first_hop[a]);
        // Effective: another egress, not paused, not kicked out.
        if (pr.first_hop[a] == pr.first_hop[e.path] ||
            alt_port.pfc_paused(fc.classify(alt_port, p)) || !active(pr, a))
          continue;
        chosen = a;
      }
    }
    if (!reroute) {
      ++subrtt_waits_;
      tag.state |= kWaited;
    } else if (chosen == UINT32_MAX) {
      ++no_alternative_;  // "the packet will not switch path, which rarely occurs"
      // Reported: none of the alternatives leaves by another uplink (in a fat-tree several
      // paths share each first hop, and the alternatives are ranked by class, not by hop).
      bool other_uplink = false;
      for (uint32_t k = 0; k < e.alt_count; ++k)
        other_uplink |= pr.first_hop[e.alt[k]] != pr.first_hop[e.path];
      if (!other_uplink) ++no_alternative_same_uplink_;
    } else {
      // Line 10: kick out the paused path until its queue resumes; the flow follows the
      // rerouted packet (the 2-bit status marks its initial path invalid, §IV-A).
      pr.kicked[e.path] = 1;
      pr.kicked_port[e.path] = pr.first_hop[e.path];
      pr.kicked_queue[e.path] = static_cast<uint8_t>(q);
      if (kick_port_scope_ && q < 32) port_kicked_[pr.first_hop[e.path].index()] |= 1u << q;
      ++kickouts_;
      ++subrtt_reroutes_;
      e.path = static_cast<uint16_t>(chosen);
      e.rerouted = 1;
      refresh_views(pr, sw_.now());
      rank_alternatives(pr, chosen, e);
      write_header(pr, e, tag);
    }
  }
  tag.radix_before = static_cast<uint32_t>(hops.size());
  return pin_path_at_edge(p, e.path, pr.paths, hops);
}

// Alg. 2 at a switch past the source edge that still has a choice (3-tier fabrics): the
// packet's pinned hop is paused and its tolerable delay is spent, so it takes the first
// alternative that shares the path so far and leaves by another, unpaused, egress. No
// flow table here: t_td stays as it is (silent in the paper).
void Proteus::sub_rtt_downstream(Packet& p, Tag& tag, std::span<const PortId> hops) {
  const uint32_t n = static_cast<uint32_t>(hops.size());
  const FlowControl& fc = sw_.flow_control();
  const uint32_t choice = pinned_choice(p, n);
  const EgressPort& port = sw_.port(hops[choice]);
  const size_t q = fc.classify(port, p);
  if (port.pfc_paused(q) && subrtt_ != 2) {
    if (subrtt_ == 0 && wait_through_pause(tag.tolerable_ps, queueing_ps(port, q))) {
      ++subrtt_waits_;
      tag.state |= kWaited;
    } else {
      const uint32_t radix = tag.radix_before;
      bool moved = false;
      for (uint32_t k = 0; k < tag.alt_count && !moved; ++k) {
        const uint32_t a = tag.alt[k];
        if (a % radix != tag.path % radix) continue;  // another prefix: not reachable here
        const uint32_t alt_choice = (a / radix) % n;
        const EgressPort& alt_port = sw_.port(hops[alt_choice]);
        if (alt_choice == choice || alt_port.pfc_paused(fc.classify(alt_port, p))) continue;
        p.path_digits = a / radix;
        tag.path = static_cast<uint16_t>(a);
        // The alternatives tried here are spent: the rest stay, in order.
        std::copy(tag.alt.begin() + k + 1, tag.alt.begin() + tag.alt_count, tag.alt.begin());
        tag.alt_count = static_cast<uint8_t>(tag.alt_count - k - 1);
        ++downstream_reroutes_;
        moved = true;
      }
      if (!moved) ++no_alternative_;
    }
  }
  tag.radix_before *= n;
}

// ---------------------------------------------------------------- measurement (§IV-C)

bool Proteus::on_receive(const SwitchView&, Packet& p, PortId in_port) {
  if (p.type == PacketType::kControl) return false;
  const Time now = sw_.now();
  const Routing& r = sw_.routing();
  const uint32_t dst_edge = r.dst_edge(p);
  if (is_edge_) {
    const bool from_fabric = sw_.port(in_port).peer()->kind() == NodeKind::kSwitch;
    if (!from_fabric && dst_edge != self_) {  // entering the fabric here
      if (p.type == PacketType::kData) {
        Tag& tag = sw_.field(tag_, p);
        tag = Tag{};
        tag.stamp_ps = now.ps;
        tag.arrival_ps = now.ps;
        tag.state = kMeasured;
        // A flow its host pinned (source routed from the host) is measured, never moved.
        if (p.source_routed) tag.path = static_cast<uint16_t>(p.path_digits % kMaxPaths);
      }
      as_source(p);
    } else if (from_fabric && dst_edge == self_) {
      as_destination(p, in_port, now);
    } else if (p.type == PacketType::kData) {
      sw_.field(tag_, p).arrival_ps = now.ps;
    }
    return false;
  }
  if (p.type != PacketType::kData) return false;
  Tag& tag = sw_.field(tag_, p);
  if ((tag.state & 3) == kNone) return false;
  tag.arrival_ps = now.ps;
  if ((tag.state & 3) == kRouted && p.source_routed) {
    const auto hops = r.next_hops(self_, dst_edge);
    if (hops.size() > 1) sub_rtt_downstream(p, tag, hops);
  }
  return false;
}

// Alg. 2 line 7 (and the CST of §III-A-2): the sojourn in this switch comes off t_td.
void Proteus::on_dequeue(const SwitchView&, Packet& p, PortId, size_t) {
  Tag& tag = sw_.field(tag_, p);
  if ((tag.state & 3) != kRouted) return;
  if (cfg_.sojourn_at_every_hop || (tag.state & kWaited))
    tag.tolerable_ps -= sw_.now().ps - tag.arrival_ps;
  tag.state &= static_cast<uint8_t>(~kWaited);
}

// The destination edge: one delay sample per data packet of the period for its path, the
// data bytes of each fabric ingress port for the utilisation, and the feedback it carries.
void Proteus::as_destination(Packet& p, PortId in_port, Time now) {
  const Routing& r = sw_.routing();
  const uint32_t src_idx = r.edge_index(r.src_edge(p));
  Pair& pr = pair(src_idx);
  if (p.type == PacketType::kData) {
    Tag& tag = sw_.field(tag_, p);
    port_bytes_[in_port.index()] += p.wire_bytes;
    if ((tag.state & 3) != kNone && tag.path < pr.paths) {
      const uint32_t path = tag.path;
      pr.sum_ps[path] += now.ps - tag.stamp_ps;
      pr.last_in_port[path] = in_port;
      if (pr.samples[path]++ == 0) touched_.push_back(src_idx << 12 | path);
      if (!period_timer_.armed())
        sw_.sim().arm(period_timer_, Time{(now.ps / period_.ps + 1) * period_.ps}, handler_, 0);
    }
    tag = Tag{};  // the header ends at the destination edge
  }
  Feedback& fb = sw_.field(feedback_, p);
  if (fb.valid) {
    if (fb.path < pr.paths) {
      pr.delay_ps[fb.path] = fb.delay_ps;
      pr.util_permille[fb.path] = fb.util_permille;
      pr.reported_at[fb.path] = now;
      ++feedback_received_;
    }
    fb = Feedback{};
  }
}

// End of a period: each path sampled reports its mean one-way delay and the utilisation of
// the link its packets arrived on (the path's last link, the one a downstream pause idles).
void Proteus::close_period() {
  const double period_s = period_.seconds();
  for (uint32_t key : touched_) {
    Pair& pr = *pairs_[key >> 12];
    const uint32_t path = key & (kMaxPaths - 1);
    const EgressPort& in = sw_.port(pr.last_in_port[path]);
    const double util = static_cast<double>(port_bytes_[pr.last_in_port[path].index()]) * 8 /
                        (static_cast<double>(in.rate_bps()) * period_s);
    pr.fb_delay_ps[path] = pr.sum_ps[path] / pr.samples[path];
    pr.fb_util[path] = static_cast<uint16_t>(std::min(1000.0, util * 1000 + 0.5));
    pr.fb.mark_changed(path);
    pr.sum_ps[path] = 0;
    pr.samples[path] = 0;
  }
  touched_.clear();
  std::fill(port_bytes_.begin(), port_bytes_.end(), 0);
}

void Proteus::as_source(Packet& p) {
  const Routing& r = sw_.routing();
  Pair& pr = pair(r.edge_index(r.dst_edge(p)));
  const uint32_t path = pr.fb.take_changed();
  if (path == FeedbackRoundRobin::kNone) return;
  sw_.field(feedback_, p) =
      Feedback{1, static_cast<uint16_t>(path), pr.fb_util[path], pr.fb_delay_ps[path]};
  ++feedback_sent_;
}

void Proteus::on_event(uint32_t kind, uint64_t arg) {
  if (sw_.sim().timer_fired(period_timer_, arg, handler_, kind)) close_period();
}

// ---------------------------------------------------------------- reports

std::vector<ProteusPathView> Proteus::path_views(uint32_t dst_edge) {
  Pair& pr = pair(sw_.routing().edge_index(dst_edge));
  refresh_views(pr, sw_.now());
  return views_;
}

int64_t Proteus::rtt_low_ps(uint32_t dst_edge) {
  return pair(sw_.routing().edge_index(dst_edge)).rtt_low_ps;
}

int64_t Proteus::base_delay_ps(uint32_t dst_edge) {
  return pair(sw_.routing().edge_index(dst_edge)).base_ps;
}

void Proteus::inject_report(uint32_t dst_edge, uint32_t path, int64_t delay_ps, double util) {
  Pair& pr = pair(sw_.routing().edge_index(dst_edge));
  pr.delay_ps[path] = delay_ps;
  pr.util_permille[path] = static_cast<uint16_t>(util * 1000 + 0.5);
  pr.reported_at[path] = sw_.now();
}

void Proteus::add_stats(std::vector<Stat>& out) const {
  out.push_back({"proteus_new_flows", static_cast<double>(new_flows_)});
  out.push_back({"proteus_select_noncongested", static_cast<double>(selected_[0])});
  out.push_back({"proteus_select_undetermined", static_cast<double>(selected_[1])});
  out.push_back({"proteus_select_congested", static_cast<double>(selected_[2])});
  out.push_back(
      {"proteus_new_flows_same_path_within_period", static_cast<double>(same_path_within_period_)});
  out.push_back({"proteus_rtt_reroutes_same_path_within_period",
                 static_cast<double>(moves_same_path_within_period_)});
  out.push_back({"proteus_rtt_reroutes", static_cast<double>(rtt_reroutes_)});
  // By the class (Table II) of the path each move left.
  out.push_back(
      {"proteus_rtt_reroutes_from_noncongested", static_cast<double>(rtt_reroutes_from_[0])});
  out.push_back(
      {"proteus_rtt_reroutes_from_undetermined", static_cast<double>(rtt_reroutes_from_[1])});
  out.push_back(
      {"proteus_rtt_reroutes_from_congested", static_cast<double>(rtt_reroutes_from_[2])});
  out.push_back({"proteus_rtt_reroutes_same_uplink_other_pair_within_period",
                 static_cast<double>(moves_same_uplink_other_pair_)});
  static const char* const kGain[] = {"lt_100ns", "100ns_1us", "1us_10us", "ge_10us"};
  for (size_t i = 0; i < move_gain_.size(); ++i)
    out.push_back(
        {std::string("proteus_rtt_reroute_gain_") + kGain[i], static_cast<double>(move_gain_[i])});
  out.push_back({"proteus_chose_paused_uplink", static_cast<double>(chose_paused_uplink_)});
  out.push_back({"proteus_subrtt_reroutes", static_cast<double>(subrtt_reroutes_)});
  out.push_back({"proteus_downstream_reroutes", static_cast<double>(downstream_reroutes_)});
  out.push_back({"proteus_subrtt_waits", static_cast<double>(subrtt_waits_)});
  out.push_back({"proteus_kickouts", static_cast<double>(kickouts_)});
  out.push_back({"proteus_no_alternative", static_cast<double>(no_alternative_)});
  out.push_back(
      {"proteus_no_alternative_same_uplink", static_cast<double>(no_alternative_same_uplink_)});
  out.push_back({"proteus_feedback_sent", static_cast<double>(feedback_sent_)});
  out.push_back({"proteus_feedback_received", static_cast<double>(feedback_received_)});
  if (!is_edge_) return;
  // §IV-A: 16-bit flow ID, 24-bit timestamp, 12-bit path, 12 bits per alternative, 2-bit
  // status, per entry (counted as FLB's Table 1 counts its flow table).
  const uint64_t bits = 16 + 24 + 12 + 12 * uint64_t{cfg_.alternatives} + 2;
  out.push_back({"proteus_flow_table_bytes_per_switch",
                 static_cast<double>((table_.entries_held() * bits + 7) / 8), true});
  out.push_back({"proteus_flow_table_live_entries_max",
                 static_cast<double>(table_.live_entries(sw_.now())), true});
}

}  // namespace rocelab
