// FLB flow isolation (§3.2): the destination edge switch watches its host-facing egress
// queues and sends CNMs; the source edge switch keeps the congested flows on a minimal set
// of isolation paths and keeps the other flows off them.
#include <algorithm>
#include <cmath>

#include "lb/flb.h"
#include "net/cnm.h"
#include "net/flow_control.h"

namespace rocelab {

void Flb::check_isolation(const Packet& p, PortId in_port) {
  const PortId out = sw_.routing().dst_port_at_edge(p);
  DsPort& dp = ds_ports_[out.index()];
  const Time now = sw_.now();
  const uint32_t key = table_.key_of(p);
  auto it = dp.flows.empty() ? dp.flows.end() : dp.flows.find(key);
  if (it != dp.flows.end()) it->second.last_seen = now;
  const EgressPort& port = sw_.port(out);
  const int64_t q = port.queue_bytes(sw_.flow_control().classify(port, p)) + p.wire_bytes;
  if (q <= dp.k) return;
  // The queue passes K: a CNM with the congestion flag, the flow and n (§3.2).
  dp.congested = true;
  if (it == dp.flows.end()) {
    // A newly congested flow. The others learn the new n from their next refresh or from
    // the release CNM, which carries the final n (FLB+RC resumes at C/n with it).
    it = dp.flows
             .emplace(key,
                      DsPort::Flow{p.flow, p.src, in_port, p.sport, p.nic_port, now, now, false})
             .first;
    send_flow_cnm(dp, key, it->second, true, rc_n(dp, now), recent_flows(dp, now), now);
  } else if (!it->second.in_congestion || now - it->second.last_cnm >= cfg_.cnm_refresh) {
    it->second.in_port = in_port;
    send_flow_cnm(dp, key, it->second, true, rc_n(dp, now), recent_flows(dp, now), now);
  }
  if (!ds_timer_.armed())
    sw_.sim().arm(ds_timer_, now + cfg_.isolation_recompute, handler_, kCongestedFlowTimerKind);
}

void Flb::on_dequeue(const SwitchView&, Packet& p, PortId port_id, size_t queue) {
  if (sw_.field(stamp_, p).state == kStampPending) stamp_departure(p);
  if (guard_ == Guard::kDeparted)
    dequeued_bytes(port_id, queue) += static_cast<uint64_t>(p.wire_bytes);
  DsPort& dp = ds_ports_[port_id.index()];
  if (!dp.congested) return;
  if (sw_.port(port_id).queue_bytes(queue) >= dp.k) return;
  release_port(dp, sw_.now());
}

// Below K again: a CNM without the congestion flag to every flow reported congested here,
// with n = how many there are (FLB+RC resumes them at C/n, §3.3).
void Flb::release_port(DsPort& dp, Time now) {
  dp.congested = false;
  const uint32_t n = rc_n(dp, now), recent = recent_flows(dp, now);
  for (auto& [key, f] : dp.flows) send_flow_cnm(dp, key, f, false, n, recent, now);
  dp.n_notified = n;
}

// Periodic check at the destination edge: congested-flow entries idle for the flow
// timeout go (each gets a last release CNM, in case an earlier one was lost); while the
// port is not congested, the flows left are told the new n when it changed.
void Flb::sweep_congested_flows(Time now) {
  bool any = false;
  for (DsPort& dp : ds_ports_) {
    if (dp.flows.empty()) continue;
    any = true;
    if (dp.congested) continue;  // paused flows send nothing; keep them until released
    for (auto it = dp.flows.begin(); it != dp.flows.end();) {
      if (now - it->second.last_seen > cfg_.flow_timeout) {
        // Its last CNM carries the n of the flows left (itself no longer counted).
        DsPort::Flow gone = it->second;
        const uint32_t key = it->first;
        it = dp.flows.erase(it);
        send_flow_cnm(dp, key, gone, false, std::max<uint32_t>(rc_n(dp, now), 1),
                      recent_flows(dp, now), now);
      } else {
        ++it;
      }
    }
    if (!dp.flows.empty() && rc_n(dp, now) != dp.n_notified) release_port(dp, now);
  }
  if (any)
    sw_.sim().arm(ds_timer_, now + cfg_.isolation_recompute, handler_, kCongestedFlowTimerKind);
}

// The port's entries hit within rc_n_window, or held by its congestion CNM (RC paused
// them: they cannot send): the flows still sending into it.
uint32_t Flb::recent_flows(const DsPort& dp, Time now) const {
  uint32_t n = 0;
  for (const auto& [key, f] : dp.flows) n += f.in_congestion || now - f.last_seen <= rc_n_window_;
  return n;
}

// RC's n for a CNM from this port (lb.rc_n); at least 1 while the port has an entry.
uint32_t Flb::rc_n(const DsPort& dp, Time now) const {
  if (!rc_n_recent_) return static_cast<uint32_t>(dp.flows.size());
  return std::max<uint32_t>(recent_flows(dp, now), dp.flows.empty() ? 0 : 1);
}

void Flb::send_flow_cnm(const DsPort& dp, uint32_t key, DsPort::Flow& f, bool congested, uint32_t n,
                        uint32_t recent, Time now) {
  rc_n_sum_ += n;
  rc_n_recent_sum_ += recent;
  send_cnm(f, Cnm{congested, n, key, dp.congestion_point});
  f.in_congestion = congested;
  f.last_cnm = now;
}

void Flb::send_cnm(const DsPort::Flow& f, const Cnm& cnm) {
  const uint32_t key = cnm.flow_key;
  Packet& c = sw_.new_control(0, f.src_host, f.flow, static_cast<uint32_t>(mix64(key ^ 0xc4d)));
  cnm_.write(sw_, c, cnm);  // its control kind and fields
  c.sport = f.sport;
  c.nic_port = f.nic_port;
  const PortId out = f.in_port;
  ++cnms_sent_;
  // Back through the flow's previous hop (§3.2 "CNM construction"); from there it is
  // routed to the sender's edge switch.
  sw_.send_control(c.self, out);
}

void Flb::on_cnm(const Packet& p) {
  const Routing& r = sw_.routing();
  if (!r.is_edge(p.src.index()) || p.src == sw_.id()) return;  // local flows: no paths
  const Cnm cnm = cnm_.read(sw_, p);
  const uint32_t dst_idx = r.edge_index(p.src.index());
  const Time now = sw_.now();
  Pair& pr = pair(dst_idx);
  if (cnm.congested) {
    auto [it, inserted] = iso_.try_emplace(cnm.flow_key);
    Isolation& iso = it->second;
    if (inserted) {
      ++isolations_;
      iso.path = UINT16_MAX;
    }
    iso.dst_edge = dst_idx;
    iso.congestion_point = cnm.congestion_point;
    iso.refreshed = now;
    // n counts every flow congested at that port: the latest report holds for all of them,
    // not the n each one was first told (which would sum 1 + 1/2 + ... + 1/n paths).
    const uint32_t n = std::max<uint32_t>(1, cnm.congested_flows);
    for (auto& [other_key, other] : iso_)
      if (other.dst_edge == dst_idx && other.congestion_point == cnm.congestion_point) other.n = n;
    // The first congested flow toward a destination sets up its isolation paths; later
    // ones join them. The count is revised by the periodic check (§3.2).
    if (pr.iso_paths.empty()) resize_isolation(dst_idx);
    assign_isolation_path(cnm.flow_key, iso, pr);
    if (!iso_timer_.armed())
      sw_.sim().arm(iso_timer_, now + cfg_.isolation_recompute, handler_, kIsolationTimerKind);
  } else if (iso_.erase(cnm.flow_key)) {
    // Once no congested flow toward this destination is left, its paths are released.
    bool any = false;
    for (const auto& [key, iso] : iso_) any |= iso.dst_edge == dst_idx;
    if (!any) pr.iso_paths.clear();
  }
}

void Flb::assign_isolation_path(uint32_t key, Isolation& iso, const Pair& pr) {
  if (pr.iso_paths.empty()) return;
  auto in_set = [&](uint16_t path) {
    return std::find(pr.iso_paths.begin(), pr.iso_paths.end(), path) != pr.iso_paths.end();
  };
  if (in_set(iso.path)) return;  // a congested flow stays where it is
  // Its own path if that is an isolation path (no reordering), else a random one (§3.2).
  const FlbFlowEntry* e = table_.find_key(key, sw_.now());
  iso.path = e && in_set(e->path) ? e->path : pr.iso_paths[rng_.below(pr.iso_paths.size())];
}

void Flb::resize_isolation(uint32_t dst_idx) {
  Pair& pr = pair(dst_idx);
  // Isolation paths = total converged rate of the congested flows (C/n each) over the link
  // rate, rounded up (§3.2); uniform rates make that ceil(sum of 1/n).
  double total = 0;
  size_t flows = 0;
  for (const auto& [key, iso] : iso_) {
    if (iso.dst_edge != dst_idx) continue;
    total += 1.0 / iso.n;
    ++flows;
  }
  size_t need = flows ? std::max<size_t>(1, static_cast<size_t>(std::ceil(total - 1e-9))) : 0;
  need = std::min<size_t>(need, pr.paths > 1 ? pr.paths - 1 : 0);  // leave a path free
  while (pr.iso_paths.size() > need) pr.iso_paths.pop_back();
  const Time now = sw_.now();
  auto in_set = [&](uint16_t path) {
    return std::find(pr.iso_paths.begin(), pr.iso_paths.end(), path) != pr.iso_paths.end();
  };
  while (pr.iso_paths.size() < need) {
    // Start from a path where a congested flow's last packet is pending (§3.2).
    uint16_t pick = UINT16_MAX;
    for (const auto& [key, iso] : iso_) {
      if (iso.dst_edge != dst_idx) continue;
      const FlbFlowEntry* e = table_.find_key(key, now);
      if (e && e->path < pr.paths && !in_set(e->path)) {
        pick = e->path;
        break;
      }
    }
    if (pick == UINT16_MAX) {
      std::vector<uint16_t>& free_paths = scratch_free_paths_;
      free_paths.clear();
      for (uint16_t i = 0; i < pr.paths; ++i)
        if (!in_set(i)) free_paths.push_back(i);
      pick = free_paths[rng_.below(free_paths.size())];
    }
    pr.iso_paths.push_back(pick);
  }
  for (auto& [key, iso] : iso_)
    if (iso.dst_edge == dst_idx) assign_isolation_path(key, iso, pr);
}

void Flb::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kCongestedFlowTimerKind) {
    if (sw_.sim().timer_fired(ds_timer_, arg, handler_, kind)) sweep_congested_flows(sw_.now());
    return;
  }
  if (!sw_.sim().timer_fired(iso_timer_, arg, handler_, kind)) return;
  // Periodic check (§3.2): entries whose release CNM was lost time out; paths follow.
  const Time now = sw_.now();
  std::vector<uint32_t>& touched = scratch_touched_;
  touched.clear();
  for (auto it = iso_.begin(); it != iso_.end();) {
    if (now - it->second.refreshed > cfg_.isolation_timeout) {
      touched.push_back(it->second.dst_edge);
      it = iso_.erase(it);
      ++isolation_timeouts_;
    } else {
      ++it;
    }
  }
  // Revise every destination's isolation path count.
  for (auto& [key, iso] : iso_) touched.push_back(iso.dst_edge);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (uint32_t d : touched) resize_isolation(d);
  if (!iso_.empty()) sw_.sim().arm(iso_timer_, now + cfg_.isolation_recompute, handler_, kind);
}

void Flb::add_stats(std::vector<Stat>& out) const {
  const Time now = sw_.now();
  uint32_t max_paths = 1;
  for (const auto& p : pairs_)
    if (p) max_paths = std::max<uint32_t>(max_paths, p->paths);
  int64_t k = 0;
  for (const DsPort& dp : ds_ports_) k = std::max(k, dp.k);
  out.push_back({"flb_reroutes", static_cast<double>(reroutes_)});
  out.push_back({"flb_forced_moves", static_cast<double>(forced_moves_)});
  out.push_back({"flb_held_stale_current", static_cast<double>(held_stale_current_)});
  out.push_back({"flb_held_not_departed", static_cast<double>(held_not_departed_)});
  out.push_back({"flb_held_uplink_busy", static_cast<double>(held_uplink_busy_)});
  out.push_back({"flb_cnms_sent", static_cast<double>(cnms_sent_)});
  static const char* const kGap[] = {"lt_100ns", "100ns_1us", "1us_10us", "ge_10us"};
  for (size_t i = 0; i < moves_by_gap_.size(); ++i) {
    out.push_back({std::string("flb_moves_gap_") + kGap[i], static_cast<double>(moves_by_gap_[i])});
    out.push_back({std::string("flb_moves_overtaken_gap_") + kGap[i],
                   static_cast<double>(overtaken_by_gap_[i])});
    out.push_back(
        {std::string("flb_moves_slack_") + kGap[i], static_cast<double>(moves_by_slack_[i])});
    out.push_back({std::string("flb_moves_overtaken_slack_") + kGap[i],
                   static_cast<double>(overtaken_by_slack_[i])});
    out.push_back(
        {std::string("flb_sample_change_") + kGap[i], static_cast<double>(sample_change_[i])});
    out.push_back({std::string("flb_overtaken_previous_late_") + kGap[i],
                   static_cast<double>(overtaken_previous_late_[i])});
    out.push_back({std::string("flb_overtaken_moved_early_") + kGap[i],
                   static_cast<double>(overtaken_moved_early_[i])});
    out.push_back({std::string("flb_overtaken_previous_fabric_late_") + kGap[i],
                   static_cast<double>(overtaken_previous_fabric_late_[i])});
    out.push_back(
        {std::string("flb_feedback_wait_") + kGap[i], static_cast<double>(feedback_wait_[i])});
  }
  for (size_t i = 0; i < moves_by_sample_age_.size(); ++i) {
    const std::string q = "q" + std::to_string(i + 1);
    out.push_back({"flb_moves_sample_age_" + q, static_cast<double>(moves_by_sample_age_[i])});
    out.push_back(
        {"flb_moves_overtaken_sample_age_" + q, static_cast<double>(overtaken_by_sample_age_[i])});
  }
  out.push_back({"flb_overtaken_mainly_previous", static_cast<double>(overtaken_mainly_previous_)});
  out.push_back({"flb_overtaken_mainly_moved", static_cast<double>(overtaken_mainly_moved_)});
  out.push_back({"flb_cnm_n_sum", static_cast<double>(rc_n_sum_)});
  out.push_back({"flb_cnm_recent_flows_sum", static_cast<double>(rc_n_recent_sum_)});
  out.push_back({"flb_isolations", static_cast<double>(isolations_)});
  out.push_back({"flb_isolation_timeouts", static_cast<double>(isolation_timeouts_)});
  out.push_back({"flb_probes", static_cast<double>(probes_)});
  out.push_back({"flb_delay_feedback_sent", static_cast<double>(feedback_sent_)});
  out.push_back({"flb_delay_feedback_received", static_cast<double>(feedback_received_)});
  out.push_back({"flb_flow_table_bytes_per_switch",
                 static_cast<double>(table_.memory_bytes(max_paths)), true});
  out.push_back(
      {"flb_flow_table_live_entries_max", static_cast<double>(table_.live_entries(now)), true});
  out.push_back({"flb_isolation_threshold_bytes", static_cast<double>(k), true});
  out.push_back({"flb_k_range_low_bytes", static_cast<double>(range_low_), true});
  out.push_back({"flb_k_range_high_bytes", static_cast<double>(range_high_), true});
}

}  // namespace rocelab
