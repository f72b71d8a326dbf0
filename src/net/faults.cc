#include "net/faults.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "net/network.h"
#include "sim/random.h"

namespace rocelab {

FaultInjector::FaultInjector(Network& net, const FaultsConfig& cfg)
    : net_(net),
      cfg_(cfg),
      handler_(net.sim().add_handler(this, kGlobalLp)),
      node_handler_(net.sim().add_handler(this, kAnyLp)),
      link_down_(net.topology().links.size(), 0),
      active_(cfg.events.size(), 0),
      ended_(cfg.events.size(), 0),
      converged_down_(cfg.events.size(), 0) {
  Simulator& sim = net_.sim();
  for (uint32_t i = 0; i < cfg_.events.size(); ++i) {
    const FaultEvent& e = cfg_.events[i];
    sim.schedule(e.at, handler_, kStart, i);
    if (e.until != Time::never()) sim.schedule(e.until, handler_, kEnd, i);
  }
  // Port keys: the watchdog's and the detector's state per switch port.
  first_port_key_.assign(net_.node_count() + 1, 0);
  for (uint32_t n = 0; n < net_.node_count(); ++n) {
    Node& node = net_.node(NodeId(n));
    first_port_key_[n + 1] = first_port_key_[n] + node.port_count();
    for (size_t p = 0; p < node.port_count(); ++p)
      key_port_.emplace_back(NodeId(n), PortId(static_cast<uint16_t>(p)));
  }
  // Sized once: a parallel run's partitions touch their own ports' entries at once.
  if (cfg_.watchdog.enabled) watches_.resize(key_port_.size() * 32);
  if (!cfg_.watchdog.enabled && cfg_.deadlock.check_interval <= Delta::zero()) return;
  for (NodeId s : net_.switches()) {
    Switch& sw = net_.switch_at(s);
    for (size_t p = 0; p < sw.port_count(); ++p)
      sw.port(PortId(static_cast<uint16_t>(p))).set_pause_observer(this);
  }
}

FaultInjector::~FaultInjector() = default;

void FaultInjector::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kStart:
      start(static_cast<uint32_t>(arg));
      break;
    case kEnd:
      end(static_cast<uint32_t>(arg));
      break;
    case kConverge:
      converge(static_cast<uint32_t>(arg >> 1), (arg & 1) != 0);
      break;
    case kFailover:
      failover(static_cast<uint32_t>(arg >> 1), (arg & 1) != 0);
      break;
    case kStormPause:
      if (active_[arg]) storm_pause(static_cast<uint32_t>(arg), true);
      break;
    case kWatchdog:
      watchdog_fire(arg >> 32, static_cast<uint32_t>(arg));
      break;
    case kRestore:
      restore_fire(arg);
      break;
    case kCheck:
      deadlock_checks_.push_back(net_.sim().now());
      check_pending_ = false;
      check_deadlock();
      break;
    case kPauseLapse: {
      // A direction failed alone: the PAUSEs the other way, whose XON or refresh it would
      // have carried, run out (802.1Qbb: a PAUSE holds for its time) unless it is back.
      const uint32_t link = static_cast<uint32_t>(arg >> 1);
      const bool from_a = (arg & 1) != 0;
      if (!net_.link_port(link, from_a).link_down()) break;
      EgressPort& reverse = net_.link_port(link, !from_a);
      net_.sim().run_as(reverse.owner_id().index(), [&] {
        for (uint32_t p = 0; p < 8; ++p)
          reverse.set_priority_paused(static_cast<Priority>(p), false);
      });
      break;
    }
  }
}

// What the active events make of one direction of a link, recomputed whenever one starts
// or ends, so that overlapping faults compose: down while any failure holds it, the lowest
// rate of those that slow it, losses as independent draws (1 - prod(1 - p)).
void FaultInjector::refresh_direction(uint32_t link, bool from_a) {
  bool down = false;
  BitsPerSec rate = 0;
  double pass = 1;
  uint64_t loss_seed = 0;
  for (uint32_t j = 0; j < cfg_.events.size(); ++j) {
    if (!active_[j]) continue;
    const FaultEvent& e = cfg_.events[j];
    if (std::find(e.directions.begin(), e.directions.end(), std::make_pair(link, from_a)) ==
        e.directions.end())
      continue;
    if (e.kind == FaultEvent::Kind::kLinkDown) down = true;
    if (e.kind == FaultEvent::Kind::kLinkRate && (rate == 0 || e.rate_bps < rate))
      rate = e.rate_bps;
    if (e.kind == FaultEvent::Kind::kLinkLoss) {
      pass *= 1 - e.loss_rate;
      loss_seed = loss_seed * 31 + j + 1;
    }
  }
  EgressPort& port = net_.link_port(link, from_a);
  // What the port does now (a frame it starts) is ordered as its node's own events, so
  // that it orders alike on any rank of a run over several (sim/ranks.h). Every rank
  // changes its copy of the port: the peer's rank reads it to lose what was on the wire.
  net_.sim().run_as(port.owner_id().index(), [&] {
    port.set_link_down(down);
    const BitsPerSec want = rate != 0 ? rate : port.nominal_rate_bps();
    if (port.rate_bps() != want) port.set_rate(want);
    // Its own stream per direction and set of active loss events.
    const uint64_t seed = mix64(net_.context().seed ^ hash_name("fault-loss") ^
                                (uint64_t{link} << 33) ^ (uint64_t{from_a} << 32) ^ loss_seed);
    port.set_loss(1 - pass, seed);
  });
}

bool FaultInjector::host_stalled(uint32_t host) const {
  for (uint32_t j = 0; j < cfg_.events.size(); ++j)
    if (active_[j] && cfg_.events[j].kind == FaultEvent::Kind::kNicStall &&
        cfg_.events[j].host == host)
      return true;
  return false;
}

void FaultInjector::start(uint32_t i) {
  const FaultEvent& e = cfg_.events[i];
  active_[i] = 1;
  for (const auto& [link, from_a] : e.directions) refresh_direction(link, from_a);
  switch (e.kind) {
    case FaultEvent::Kind::kLinkDown: {
      net_.sim().schedule_in(e.detection_delay, handler_, kConverge, uint64_t{i} << 1);
      schedule_failovers(i, true);
      const PfcPauseTiming& t = net_.context().pfc_pause;
      for (const auto& [link, from_a] : e.directions) {
        const EgressPort& reverse = net_.link_port(link, !from_a);
        if (reverse.link_down()) continue;  // its own failure ended its pauses
        net_.sim().schedule_in(t.pause_for(reverse.rate_bps()), handler_, kPauseLapse,
                               (uint64_t{link} << 1) | (from_a ? 1 : 0));
      }
      break;
    }
    case FaultEvent::Kind::kNicStall:
      set_nic_stalled(e.host, true);
      storm_pause(i, true);
      break;
    default:
      break;
  }
}

// Every port of the NIC stops (or resumes) draining: a NIC of several ports stalls whole.
// The flows queued toward it are marked at both ends of the stall (mark_queued_flows).
void FaultInjector::set_nic_stalled(uint32_t host_id, bool stalled) {
  Node& host = net_.node(NodeId(host_id));
  for (size_t k = 0; k < host.port_count(); ++k) {
    EgressPort& nic = host.port(PortId(static_cast<uint16_t>(k)));
    EgressPort& to_nic = nic.peer()->port(nic.peer_port());
    if (!stalled) mark_queued_flows(to_nic);
    net_.sim().run_as(to_nic.owner_id().index(), [&] { to_nic.set_peer_stalled(stalled); });
    if (stalled) mark_queued_flows(to_nic);
  }
}

// The flows waiting at the switch for a stalled NIC crossed its fault, though none of their
// packets may have left: the PAUSE holds them (what the watchdog drops or the NIC loses is
// marked as it goes). Called at the stall's start and end, when that queue holds every such
// flow's packets that have not been dropped.
void FaultInjector::mark_queued_flows(const EgressPort& port) {
  NetCounters& c = net_.context().counters();
  for (size_t q = 0; q < port.num_queues(); ++q)
    for (size_t k = 0; k < port.queue_packets(q); ++k)
      c.mark_fault_flow(net_.pool()[port.queued_packet(q, k).index()], 1);
}

void FaultInjector::end(uint32_t i) {
  const FaultEvent& e = cfg_.events[i];
  active_[i] = 0;
  for (const auto& [link, from_a] : e.directions) refresh_direction(link, from_a);
  switch (e.kind) {
    case FaultEvent::Kind::kLinkDown:
      ended_[i] = 1;
      net_.sim().schedule_in(e.detection_delay, handler_, kConverge, (uint64_t{i} << 1) | 1);
      schedule_failovers(i, false);
      break;
    case FaultEvent::Kind::kNicStall:
      if (host_stalled(e.host)) break;  // another stall of this NIC goes on
      set_nic_stalled(e.host, false);
      storm_pause(i, false);
      break;
    default:
      break;
  }
}

// Only a host link whose NIC has another port: single-port runs schedule nothing new.
void FaultInjector::schedule_failovers(uint32_t i, bool down) {
  const FaultEvent& e = cfg_.events[i];
  const Routing& r = net_.context().routing;
  if (!r.multi_port()) return;
  const TopologySpec& topo = net_.topology();
  for (const uint32_t link : e.links) {
    const LinkSpec& l = topo.links[link];
    const bool a_host = topo.nodes[l.a].kind == NodeKind::kHost;
    const uint32_t host = a_host ? l.a : l.b;
    if (topo.nodes[host].kind != NodeKind::kHost || r.port_count(host) < 2) continue;
    net_.sim().schedule_in(e.failover_delay, handler_, kFailover,
                           (uint64_t{link} << 1) | (down ? 1 : 0));
  }
}

void FaultInjector::failover(uint32_t link, bool down) {
  const LinkSpec& l = net_.topology().links[link];
  const bool a_host = net_.topology().nodes[l.a].kind == NodeKind::kHost;
  const NodeId host(a_host ? l.a : l.b);
  // The NIC's port on this link: its index among the host's ports.
  const EgressPort& port = net_.link_port(link, a_host);
  const uint32_t k = port.index().index();
  // The link may be down for another event too, or up again already: the NIC acts on what
  // its port sees now.
  if (down != port.link_down()) return;
  const uint64_t moved = on_nic_port_ ? on_nic_port_(host, k, down) : 0;
  nic_failovers_.push_back(NicFailover{net_.sim().now(), host, k, down, moved});
}

void FaultInjector::converge(uint32_t i, bool links_up) {
  // A failure repaired before routing noticed it is never seen (a flap shorter than the
  // detection delay), nor is its repair.
  if (!links_up && ended_[i]) return;
  if (links_up && !converged_down_[i]) return;
  converged_down_[i] = !links_up;
  // Overlapping failures of one link: it carries routes again when the last is repaired.
  for (uint32_t link : cfg_.events[i].links) link_down_[link] += links_up ? -1 : 1;
  std::vector<uint8_t> down(link_down_.size(), 0);
  for (size_t l = 0; l < down.size(); ++l) down[l] = link_down_[l] != 0;
  net_.reroute(down);
  routing_changes_.push_back(RoutingChange{net_.sim().now(), i, links_up});
}

// The stalled NIC's PAUSE frames: XOFF at the start and again before each runs out, as a
// MAC refreshes a pause that holds (PfcPauseTiming), XON at the end.
void FaultInjector::storm_pause(uint32_t i, bool xoff) {
  const FaultEvent& e = cfg_.events[i];
  NetContext& ctx = net_.context();
  Host& host = net_.host(NodeId(e.host));
  EgressPort& port = host.port(PortId(0));  // the ports share a rate: port 0 times the refresh
  // The frames, one per port of the NIC, at the NIC's rank only (as the NIC's own event:
  // sim/ranks.h).
  for (size_t k = 0; k < host.port_count(); ++k) {
    const PortId at(static_cast<uint16_t>(k));
    if (xoff) ++storm_pause_frames_;
    if (!net_.owns(host.id())) continue;
    net_.sim().run_as(host.id().index(), [&] {
      const PacketId id = ctx.alloc_packet();
      Packet& f = ctx.pkt(id);
      f.type = PacketType::kPause;
      f.pfc_priority = e.priority;
      f.pfc_xoff = xoff;
      f.ecn_capable = false;
      f.wire_bytes = ctx.wire.control_wire_bytes(PacketType::kPause);
      f.src = host.id();
      EgressPort& out = host.port(at);
      out.count_pfc_frame_sent(xoff);
      if (xoff) ++ctx.counters().pause_frames_by_node[e.host];
      out.enqueue(id);
      if (ctx.on_pfc) ctx.on_pfc(PfcEvent{ctx.sim.now(), host.id(), at, e.priority, xoff});
    });
  }
  if (xoff) {
    const PfcPauseTiming& t = ctx.pfc_pause;
    const Delta refresh = t.style == PfcPauseStyle::kStandard ? t.refresh_for(port.rate_bps())
                                                              : t.pause_for(port.rate_bps()) / 2;
    net_.sim().schedule_in(std::max(refresh, Delta::from_ns(1)), handler_, kStormPause, i);
  }
}

// ---------------------------------------------------------------- the PFC watchdog

size_t FaultInjector::port_key(const EgressPort& port) const {
  return first_port_key_[port.owner_id().index()] + port.index().index();
}

FaultInjector::Watch& FaultInjector::watch(const EgressPort& port, size_t queue) {
  const size_t key = port_key(port) * 32 + queue;
  if (key >= watches_.size()) watches_.resize(key + 1);
  return watches_[key];
}

void FaultInjector::on_pause_change(EgressPort& port, size_t queue, bool paused) {
  if (paused && cfg_.deadlock.check_interval > Delta::zero() && !check_pending_ &&
      deadlock_.cycle.empty() && port.peer()->kind() == NodeKind::kSwitch) {
    Simulator& sim = net_.sim();
    const Time at = sim.now() + std::max(cfg_.deadlock.persist, cfg_.deadlock.check_interval);
    if (!sim.parallel()) {
      check_pending_ = true;
      sim.schedule(at, handler_, kCheck);
    } else {  // the check this pause would schedule, if it is the window's first
      EventKey& asked = check_asked_.local();
      asked = std::min(asked, make_event_key(at.ps, sim.reserve_seq()));
    }
  }
  if (!cfg_.watchdog.enabled || queue >= 32) return;
  Watch& w = watch(port, queue);
  ++w.generation;  // a pause that ends cancels its detection
  if (paused) {
    const uint64_t key = port_key(port) * 32 + queue;
    net_.sim().schedule_in(cfg_.watchdog.detection_time, node_handler_, kWatchdog,
                           (key << 32) | w.generation);
  }
}

// The watchdog's timers are its switch's own events (they act on its port alone): in a
// parallel run each partition logs what its switches' watchdogs did, with the key of the
// event that did it, and fold_lanes merges the logs into a serial run's order.
void FaultInjector::log_watchdog(const WatchdogAction& a) {
  Simulator& sim = net_.sim();
  if (!sim.parallel()) {  // made in the serial order
    watchdog_log_.push_back(a);
    return;
  }
  watchdog_lanes_.local().push_back(KeyedAction{sim.current_event_key(), a});
}

void FaultInjector::fold_lanes() {
  std::vector<KeyedAction> merged;
  for (uint32_t lane = 0; lane < watchdog_lanes_.lanes(); ++lane) {
    std::vector<KeyedAction>& mine = watchdog_lanes_.lane(lane);
    merged.insert(merged.end(), mine.begin(), mine.end());
    mine.clear();
  }
  std::sort(merged.begin(), merged.end(),
            [](const KeyedAction& a, const KeyedAction& b) { return a.key < b.key; });
  pending_actions_.insert(pending_actions_.end(), merged.begin(), merged.end());
  if (net_.sim().ranks()) return;  // gather_over_ranks merges every rank's
  for (const KeyedAction& k : pending_actions_) watchdog_log_.push_back(k.action);
  pending_actions_.clear();
}

void FaultInjector::gather_over_ranks(RankGroup& ranks) {
  fold_lanes();
  // Every rank logged every failover; each moved the QPs it sends.
  std::vector<uint64_t> moved;
  for (const NicFailover& f : nic_failovers_) moved.push_back(f.qps_moved);
  ranks.sum_u64(moved);
  for (size_t i = 0; i < nic_failovers_.size(); ++i) nic_failovers_[i].qps_moved = moved[i];
  std::vector<KeyedAction> all = gather_values(ranks, pending_actions_);
  pending_actions_.clear();
  std::sort(all.begin(), all.end(),
            [](const KeyedAction& a, const KeyedAction& b) { return a.key < b.key; });
  for (const KeyedAction& k : all) watchdog_log_.push_back(k.action);
}

void FaultInjector::set_lanes(uint32_t partitions) {
  watchdog_lanes_.set_lanes(partitions, {});
  check_asked_.set_lanes(partitions, EventQueue::kNoKey);
  net_.sim().add_window_hook([this] { merge_check_requests(); });
}

void FaultInjector::merge_check_requests() {
  EventKey first = EventQueue::kNoKey;
  for (uint32_t lane = 0; lane < check_asked_.lanes(); ++lane) {
    first = std::min(first, check_asked_.lane(lane));
    check_asked_.lane(lane) = EventQueue::kNoKey;
  }
  // Over several ranks, the earliest any rank's pauses asked for: every rank checks then.
  if (net_.sim().ranks()) first = net_.sim().min_over_ranks(first);
  if (first == EventQueue::kNoKey || check_pending_ || !deadlock_.cycle.empty()) return;
  check_pending_ = true;
  net_.sim().schedule_reserved(Time{event_key_time(first)}, static_cast<uint64_t>(first), handler_,
                               kCheck);
}

void FaultInjector::on_ignored_pause(EgressPort& port, size_t queue) {
  if (queue < 32) watch(port, queue).last_ignored_pause = net_.sim().now();
}

void FaultInjector::watchdog_fire(uint64_t key, uint32_t generation) {
  Watch& w = watches_[key];
  if (w.generation != generation) return;  // the pause ended before the detection time
  const auto [node, port_id] = key_port_[key / 32];
  const size_t queue = key % 32;
  EgressPort& port = net_.node(node).port(port_id);
  if (!port.paused(queue)) return;
  w.storm = true;
  w.last_ignored_pause = net_.sim().now();
  log_watchdog(WatchdogAction{net_.sim().now(), node, port_id, static_cast<uint32_t>(queue), true});
  port.set_queue_watchdog(
      queue, cfg_.watchdog.action == "forward" ? WatchdogMode::kForward : WatchdogMode::kDrop);
  net_.sim().schedule_in(cfg_.watchdog.restoration_time, node_handler_, kRestore, key);
}

void FaultInjector::restore_fire(uint64_t key) {
  Watch& w = watches_[key];
  if (!w.storm) return;
  const Time quiet_until = w.last_ignored_pause + cfg_.watchdog.restoration_time;
  if (net_.sim().now() < quiet_until) {
    net_.sim().schedule(quiet_until, node_handler_, kRestore, key);  // PAUSEs kept coming
    return;
  }
  w.storm = false;
  const auto [node, port_id] = key_port_[key / 32];
  const size_t queue = key % 32;
  log_watchdog(
      WatchdogAction{net_.sim().now(), node, port_id, static_cast<uint32_t>(queue), false});
  net_.node(node).port(port_id).set_queue_watchdog(queue, WatchdogMode::kOff);
}

// ---------------------------------------------------------------- deadlock detection

// A paused queue Q of switch A toward switch B waits for B to resume A, which B does once
// the packets it took in from A leave it. Q waits for a paused queue Q' of B when Q' holds
// a packet that came in from A: the buffer dependency of a PFC deadlock. A cycle of such
// waits, every queue in it paused for `persist` without a break, cannot end by itself.
// The paused queues of the switches this process runs (all, but over several ranks), and
// for each the (ingress port, priority) of the packets it holds: what the cycle search
// needs of a switch, in the order of switches, ports and queues.
std::vector<FaultInjector::Held> FaultInjector::held_queues(Time now, Time& next_due) const {
  std::vector<Held> held;
  for (NodeId s : net_.switches()) {
    if (!net_.owns(s)) continue;
    const Node& sw = net_.node(s);
    for (size_t p = 0; p < sw.port_count(); ++p) {
      const EgressPort& port = sw.port(PortId(static_cast<uint16_t>(p)));
      if (port.peer()->kind() != NodeKind::kSwitch) continue;
      for (size_t q = 0; q < port.num_queues(); ++q) {
        if (!port.paused(q) || port.queue_packets(q) == 0) continue;
        const Time due = port.pause_started(q) + cfg_.deadlock.persist;
        if (due > now) {
          next_due = std::min(next_due, due);
          continue;
        }
        Held h{s,
               PortId(static_cast<uint16_t>(p)),
               static_cast<uint32_t>(q),
               port.pause_started(q),
               {}};
        for (size_t k = 0; k < port.queue_packets(q); ++k) {
          const Packet& pkt = net_.pool()[port.queued_packet(q, k).index()];
          const std::pair<PortId, Priority> from{pkt.ingress_port, pkt.priority};
          if (std::find(h.from.begin(), h.from.end(), from) == h.from.end()) h.from.push_back(from);
        }
        held.push_back(std::move(h));
      }
    }
  }
  return held;
}

// Over several ranks: every rank's held queues, in the order one process finds them.
void FaultInjector::gather_held(std::vector<Held>& held, Time& next_due) const {
  RankGroup& ranks = *net_.sim().ranks();
  Bytes mine;
  ByteWriter out(mine);
  out.put(next_due);
  for (const Held& h : held) {
    out.put(h.node);
    out.put(h.port);
    out.put(h.queue);
    out.put(h.pause_started);
    out.put(static_cast<uint32_t>(h.from.size()));
    out.put_raw(h.from.data(), h.from.size() * sizeof(h.from[0]));
  }
  held.clear();
  for (const Bytes& theirs : ranks.gather_all(std::move(mine))) {
    ByteReader in(theirs);
    next_due = std::min(next_due, in.get<Time>());
    while (!in.done()) {
      Held h;
      h.node = in.get<NodeId>();
      h.port = in.get<PortId>();
      h.queue = in.get<uint32_t>();
      h.pause_started = in.get<Time>();
      h.from.resize(in.get<uint32_t>());
      in.get_raw(h.from.data(), h.from.size() * sizeof(h.from[0]));
      held.push_back(std::move(h));
    }
  }
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) {
    return std::tie(a.node, a.port, a.queue) < std::tie(b.node, b.port, b.queue);
  });
}

void FaultInjector::check_deadlock() {
  const Time now = net_.sim().now();
  Time next_due = Time::never();
  std::vector<Held> held = held_queues(now, next_due);
  if (net_.sim().ranks()) gather_held(held, next_due);
  std::map<uint32_t, std::vector<size_t>> by_node;  // switch -> its entries in held
  for (size_t i = 0; i < held.size(); ++i) by_node[held[i].node.index()].push_back(i);
  // Edges: held[i] (A -> B) waits for held[j] at B holding a packet that came from A, in
  // the class A's queue is paused for.
  const size_t n = held.size();
  std::vector<std::vector<size_t>> waits(n);
  for (size_t i = 0; i < n; ++i) {
    const EgressPort& qa = net_.node(held[i].node).port(held[i].port);
    const NodeId b = qa.peer()->id();
    const PortId b_in = qa.peer_port();
    const auto it = by_node.find(b.index());
    if (it == by_node.end()) continue;
    for (size_t j : it->second) {
      for (const auto& [in_port, priority] : held[j].from) {
        if (in_port == b_in && qa.queue_of_priority(priority) == held[i].queue) {
          waits[i].push_back(j);
          break;
        }
      }
    }
  }
  // A cycle, by depth-first search (colors: 0 new, 1 on the stack, 2 done).
  std::vector<uint8_t> color(n, 0);
  std::vector<size_t> parent(n, SIZE_MAX);
  std::vector<size_t> cycle;
  std::function<bool(size_t)> dfs = [&](size_t u) {
    color[u] = 1;
    for (size_t v : waits[u]) {
      if (color[v] == 1) {
        for (size_t x = u; x != v; x = parent[x]) cycle.push_back(x);
        cycle.push_back(v);
        std::reverse(cycle.begin(), cycle.end());
        return true;
      }
      if (color[v] == 0) {
        parent[v] = u;
        if (dfs(v)) return true;
      }
    }
    color[u] = 2;
    return false;
  };
  for (size_t i = 0; i < n && cycle.empty(); ++i)
    if (color[i] == 0) dfs(i);
  if (!cycle.empty()) {
    deadlock_.detected = now;
    deadlock_.formed = Time::zero();
    for (size_t i : cycle) {
      const EgressPort& port = net_.node(held[i].node).port(held[i].port);
      deadlock_.formed = std::max(deadlock_.formed, held[i].pause_started);
      deadlock_.cycle.push_back(
          Deadlock::Queue{held[i].node, held[i].port, port.peer()->id(), held[i].queue});
    }
    net_.sim().stop();
    return;
  }
  // Still paused queues: look again when the next could count, at most this often.
  if (n > 0 || next_due != Time::never()) {
    const Time again = std::max(n > 0 ? now + cfg_.deadlock.check_interval : next_due,
                                now + cfg_.deadlock.check_interval);
    check_pending_ = true;
    net_.sim().schedule(again, handler_, kCheck);
  }
}

std::string FaultInjector::describe(const Deadlock& d) const {
  std::string s = "PFC deadlock: a cycle of " + std::to_string(d.cycle.size()) +
                  " paused queues, formed at " + std::to_string(d.formed.ps / 1000) +
                  " ns, detected at " + std::to_string(d.detected.ps / 1000) + " ns: ";
  for (size_t i = 0; i < d.cycle.size(); ++i) {
    const Deadlock::Queue& q = d.cycle[i];
    s += net_.node(q.node).name() + " port " + std::to_string(q.port.index()) + " (to " +
         net_.node(q.peer).name() + ") queue " + std::to_string(q.queue) + " -> ";
  }
  return s + "back to the first";
}

}  // namespace rocelab
