// LBoDSN: the destination ToR (§3.2: pause prediction, congested flow, target path, FCN;
// the notification reply; reordering like ConWeave).
#include <algorithm>
#include <cmath>
#include <limits>

#include "lb/lbodsn.h"
#include "net/mmu.h"
#include "net/node.h"
#include "sim/random.h"

namespace rocelab {

// lambda_t - mu_t over the last closed window (§3.2's "rate of increase").
void Lbodsn::sample_window(Ingress& g, Time now) {
  const Delta dt = now - g.window_start;
  if (dt < cfg_.rate_window) return;
  g.growth = static_cast<double>(g.in_bytes - g.out_bytes) / dt.seconds();
  g.in_bytes = g.out_bytes = 0;
  g.window_start = now;
}

double Lbodsn::q_th_of(PortId in, const Ingress& g) const {
  const double t_d_s = t_d_.seconds();
  const double floor =
      cfg_.qth_floor ? t_d_s * static_cast<double>(sw_.port(in).rate_bps()) / 8 : 0.0;
  return q_th(static_cast<double>(mmu_->xoff_threshold(in)), g.growth, t_d_s, cfg_.epsilon, floor);
}

// A data packet admitted from the fabric: its bytes join its ingress and its flow.
void Lbodsn::on_enqueue(const SwitchView& sw, Packet& p, PortId /*port*/) {
  const PortId in = p.ingress_port;
  Ingress& g = ingress_[in.index()];
  if (!g.monitored || !cfg_.fcn || !watch_ingress_) return;
  const Time now = sw.now();
  g.in_bytes += p.wire_bytes;
  g.prio = p.priority;
  QueuedFlow& qf = g.flows.try_emplace(p.flow.index()).first->second;
  qf.bytes += p.wire_bytes;
  qf.src_edge = sw.routing().src_edge(p);
  qf.dst_edge = sw.routing().dst_edge(p);
  qf.path = sw.field(tag_, p).path;
  qf.flow_hash = p.flow_hash;
  sample_window(g, now);
  check_prediction(p, in, g);
}

void Lbodsn::on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t) {
  const Time now = sw.now();
  if (ingress_[port.index()].monitored)  // an uplink: Table 1's utilisation
    uplinks_[port.index()].dre.bytes_at(now, Time::zero(), dre_period_, kDreAlpha) += p.wire_bytes;
  const PortId in = p.ingress_port;
  Ingress& g = ingress_[in.index()];
  if (!g.monitored || !cfg_.fcn || !watch_ingress_) return;
  g.out_bytes += p.wire_bytes;
  auto it = g.flows.find(p.flow.index());
  if (it != g.flows.end() && (it->second.bytes -= p.wire_bytes) <= 0) g.flows.erase(it);
  sample_window(g, now);
  check_clear(in, g);
}

// §3.2: predict the PAUSE (Eq. 1), name the congested flow (Eq. 3), choose its path (Eq.
// 4-5; a spine leaves it to the source ToR), notify its source ToR; at most one FCN per
// ingress port per fcn_interval. An episode runs from the first arrival predicting the
// pause to the next arrival below Q_th; each arrival in it with an FCN allowed is a try.
void Lbodsn::check_prediction(const Packet& p, PortId in, Ingress& g) {
  const int64_t q = mmu_->pfc_counter(in, p.priority);
  const double ratio = static_cast<double>(q) / q_th_of(in, g);
  ++stats_.qth_ratio_arrivals[std::min<size_t>(10, static_cast<size_t>(ratio * 10))];
  stats_.max_qth_ratio = std::max(stats_.max_qth_ratio, ratio);
  if (ratio < 1) g.in_episode = false;
  if (g.growth <= 0 || ratio < 1) return;
  if (!g.in_episode) {
    g.in_episode = true;
    ++stats_.episodes;
  }
  const Time now = sw_.now();
  if (!fcn_allowed(g.last_fcn, now, fcn_interval_)) {
    ++stats_.rate_limited;
    return;
  }
  ++stats_.prediction_tries;
  const int64_t share = f_cc(q, static_cast<uint32_t>(g.flows.size()));
  const uint32_t flow = pick_flow(p, g, share);
  if (flow == kNone) {
    ++stats_.no_congested_flow;
    return;
  }
  const QueuedFlow qf = g.flows.find(flow)->second;
  const uint32_t target = spine_ ? kSourcePicks : choose_target(qf.src_edge, in, p.priority);
  if (target == kNone) return;  // every path enters through this ingress
  send(qf.src_edge, FlowId{flow}, qf.flow_hash, in,
       LbodsnControl{now.ps, target, qf.path, kFcn, 1, 0, qf.dst_edge});
  g.reported.emplace(flow, Reported{qf.src_edge, qf.dst_edge, qf.path, qf.flow_hash});
  g.last_fcn = now;
  ++stats_.fcns_sent;
  stats_.spine_fcns_sent += spine_;
  const bool paused = mmu_->pause_sent(in, p.priority);
  if (!paused) ++stats_.fcns_before_pause;
  if (fcn_log_.size() < kFcnLogSize)
    fcn_log_.push_back(FcnRecord{now, in, flow, qf.bytes, share, q, paused});
}

// A flow holding at least F_cc of the ingress and not yet reported on it: the arriving
// packet's (it still uses this path), or the one with the most bytes.
uint32_t Lbodsn::pick_flow(const Packet& p, const Ingress& g, int64_t f_cc) const {
  if (arriving_pick_) {
    auto it = g.flows.find(p.flow.index());
    if (it == g.flows.end() || it->second.bytes < f_cc) return kNone;
    return g.reported.contains(p.flow.index()) ? kNone : p.flow.index();
  }
  uint32_t best = kNone;
  int64_t most = f_cc - 1;
  for (const auto& [flow, qf] : g.flows)
    if (qf.bytes > most && !g.reported.contains(flow)) {
      most = qf.bytes;
      best = flow;
    }
  return best;
}

// Eq. 4-5 with the power of two choices among the paths that do not enter this ToR
// through the congested ingress `in` (in a leaf-spine: every path but the current one; in
// a fat-tree, paths through another core can share the last hop, and moving a flow onto
// one would leave its bytes in the same ingress queue).
uint32_t Lbodsn::choose_target(uint32_t src_edge, PortId in, Priority prio) {
  const std::vector<PortId>& ingress = path_ingresses(src_edge);
  scratch_.clear();
  for (uint32_t k = 0; k < ingress.size(); ++k)
    if (ingress[k] != in) scratch_.push_back(k);
  const uint64_t n = scratch_.size();
  if (n == 0) {
    ++stats_.no_target;
    return kNone;
  }
  if (n == 1) return scratch_[0];
  const uint64_t a = rng_.below(n);
  uint64_t b = rng_.below(n - 1);
  if (b >= a) ++b;
  const uint32_t pa = scratch_[a], pb = scratch_[b];
  const auto ta = t_d_of_path(src_edge, pa, prio), tb = t_d_of_path(src_edge, pb, prio);
  if (ta != tb) return ta < tb ? pa : pb;
  return rng_.below(2) ? pb : pa;
}

std::pair<double, int64_t> Lbodsn::t_d_of_path(uint32_t src_edge, uint32_t path, Priority prio) {
  const PortId j = path_ingresses(src_edge)[path];
  double t_pfc = 0;
  int64_t backlog = 0;
  if (mmu_->pause_sent(j, prio)) {  // Eq. 5; 0 for a path not paused
    ++stats_.t_pfc_nonzero;
    const int64_t q = mmu_->pfc_counter(j, prio);
    backlog = q - mmu_->resume_threshold(j);
    t_pfc =
        t_pfc_s(q, mmu_->resume_threshold(j), ingress_[j.index()].growth, t_re_flight_.seconds());
  }
  return {t_path(src_edge, path).seconds() + t_pfc, backlog};
}

// "the original path delay monitored by the destination switch": the latest one-way delay
// on (source ToR, path); stale, the freshest on the same last hop; else the path's minimum;
// else the FCN delay as a propagation estimate.
Delta Lbodsn::t_path(uint32_t src_edge, uint32_t path) {
  const Time now = sw_.now();
  const PathDelay& d = path_delay(src_edge, path);
  if (d.at != Time::never() && now - d.at <= delay_expiry_) return d.owd;
  const PathDelay& hop = ingress_delay_[path_ingresses(src_edge)[path].index()];
  if (hop.at != Time::never() && now - hop.at <= delay_expiry_) return hop.owd;
  return d.min_owd != Delta::max() ? d.min_owd : t_d_;
}

Lbodsn::PathDelay& Lbodsn::path_delay(uint32_t src_edge, uint32_t path) {
  const Routing& r = sw_.routing();
  std::vector<PathDelay>& v = delays_[r.edge_index(src_edge)];
  if (v.empty()) v.resize(std::min<uint64_t>(r.path_count(src_edge, self_), kMaxPaths));
  return v[path];
}

// Per path from `src_edge`, this ToR's port facing the path's penultimate switch.
const std::vector<PortId>& Lbodsn::path_ingresses(uint32_t src_edge) {
  const Routing& r = sw_.routing();
  std::vector<PortId>& v = path_ingress_[r.edge_index(src_edge)];
  if (!v.empty()) return v;
  v.resize(std::min<uint64_t>(r.path_count(src_edge, self_), kMaxPaths));
  for (uint32_t k = 0; k < v.size(); ++k) {
    const std::vector<uint32_t> nodes = r.path_nodes(src_edge, self_, k);
    const uint32_t before = nodes[nodes.size() - 2];
    for (size_t i = 0; i < sw_.port_count(); ++i) {
      const PortId port{static_cast<uint16_t>(i)};
      if (r.peer(self_, port).node == before) {
        v[k] = port;
        break;
      }
    }
  }
  return v;
}

// §3.2 "If the ingress queue length drops below the Q_th threshold and the queue growth
// gradient is small": a tag-0 FCN for each flow reported on this ingress, naming the path
// it was on.
void Lbodsn::check_clear(PortId in, Ingress& g) {
  if (g.reported.empty()) return;
  if (g.growth > cfg_.clear_gradient_gbps * 1e9 / 8) return;
  if (static_cast<double>(mmu_->pfc_counter(in, g.prio)) >= q_th_of(in, g)) return;
  const Time now = sw_.now();
  for (const auto& [flow, rep] : g.reported) {
    send(rep.src_edge, FlowId{flow}, rep.flow_hash, in,
         LbodsnControl{now.ps, rep.path, rep.path, kFcn, 0, 0, rep.dst_edge});
    ++stats_.clear_fcns_sent;
  }
  g.reported.clear();
}

// A control message to another ToR, routed by ECMP in the control queue.
void Lbodsn::send(uint32_t to_edge, FlowId flow, uint32_t flow_hash, PortId in_port,
                  const LbodsnControl& c) {
  Packet& m = sw_.new_control(control_kind_, NodeId(to_edge), flow, flow_hash ^ 0x1b0du);
  sw_.field(control_, m) = c;
  sw_.forward(m.self, in_port);
}

// A balanced data packet from the fabric for a local host: T_path, the notification
// reply (ingress mirroring, before any hold), then reordering like ConWeave.
bool Lbodsn::on_data_from_fabric(Packet& p, PortId in_port) {
  const LbodsnTag tag = sw_.field(tag_, p);
  if (tag.flag == 0) return false;  // not balanced (one path)
  const Time now = sw_.now();
  age(now);
  const uint32_t src_edge = sw_.routing().src_edge(p);
  const Delta owd = now - Time{tag.tx_time_ps};
  PathDelay& d = path_delay(src_edge, tag.path);
  d.owd = owd;
  d.at = now;
  d.min_owd = std::min(d.min_owd, owd);
  ingress_delay_[in_port.index()] = PathDelay{owd, now, Delta::max()};
  if (tag.notify) {
    send(src_edge, p.flow, p.flow_hash, in_port,
         LbodsnControl{now.ps, 0, 0, kNotifyReply, 0, tag.nbit, self_});
    ++stats_.notify_replies;
  }
  const InNetworkReorder::Verdict verdict =
      reorder_.arrive(ReorderTag{Time{tag.tx_time_ps}, Time{tag.tail_time_ps}, tag.epoch, tag.phase,
                                 tag.flag == kTail},
                      p);
  if (verdict == InNetworkReorder::Verdict::kOldEpoch) return false;
  if (tag.flag == kTail) {
    send(src_edge, p.flow, p.flow_hash, in_port,
         LbodsnControl{now.ps, tag.epoch, 0, kClear, 0, 0, self_});
    ++stats_.clears_sent;
  }
  if (verdict != InNetworkReorder::Verdict::kHold) return false;
  reorder_.hold(p, in_port);
  return true;
}

}  // namespace rocelab
