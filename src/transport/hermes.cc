#include "transport/hermes.h"

#include <algorithm>
#include <cmath>

#include "net/source_route.h"
#include "transport/rdma_transport.h"

namespace rocelab {

void describe(ParamVisitor& v, HermesConfig& c) {
  const Delta max = Delta::max();
  v.duration("rtt_low", c.rtt_low, Delta::zero(), max,
             "T_RTT_low above the base RTT: good below (20 us at 10G in Hermes' code; /10)");
  v.duration("rtt_high", c.rtt_high, Delta::zero(), max,
             "T_RTT_high above the base RTT: bad from here (140 us at 10G; /10)");
  v.require(c.rtt_low <= c.rtt_high, "rtt_high", "must not be below rtt_low");
  v.real("ecn_threshold", c.ecn_threshold, 0, 1,
         "T_ECN: good needs fewer, bad needs as many ECN-echoing ACKs; 1 = RTT alone (as "
         "Hermes' simulations)");
  v.duration("delta_rtt", c.delta_rtt, Delta::zero(), max,
             "a gray or bad path must beat the current by this (100 us at 10G; /10)");
  int64_t s = static_cast<int64_t>(c.min_bytes_before_reroute);
  v.bytes("min_bytes_before_reroute", s, 0, kNoLimit,
          "S: bytes acked on the current path before a reroute (600 KB: Hermes' code)");
  c.min_bytes_before_reroute = static_cast<uint64_t>(s);
  v.real("max_rate_fraction", c.max_rate_fraction, 0, 1,
         "R: reroute only flows sending at most this share of line rate (0.5: Hermes' code)");
  v.duration("reroute_gap", c.reroute_gap, Delta::zero(), max,
             "between two reroute attempts of a flow (100 us: Hermes' code)");
  v.real("reroute_probability", c.reroute_probability, 0, 1,
         "an attempt goes ahead with this probability, against herding (0.5)");
  v.duration("sample_window", c.sample_window, Delta::from_ns(1), max,
             "T1: ECN counting window; an RTT older than this decays toward gray (60 us)");
  v.count("ecn_min_packets", c.ecn_min_packets, 1, 1u << 20,
          "ECN fraction only from windows of at least this many ACKs (14 KB in the code)");
  v.count("timeouts_to_fail", c.timeouts_to_fail, 1, 1u << 20,
          "retransmission timeouts on a path that mark it failed (3)");
  v.duration("failure_hold", c.failure_hold, Delta::from_ns(1), max,
             "how long a timed-out (bad) or failed path stays so (100 ms)");
}

std::unique_ptr<HostPathPolicy> HermesPathConfig::build() const {
  return std::make_unique<HermesPath>(cfg);
}

void HermesPath::attach(RdmaTransport& transport) {
  HostPathPolicy::attach(transport);
  streams_.init(transport, "hermes");
  path_field_ = transport.packet_layout().declare<uint16_t>("hermes.path", Echo::kToReply);
  const Routing& r = transport.network().context().routing;
  edges_ = r.edge_switches().size();
  table_index_.assign(transport.network().node_count() * edges_, kNoPath);
  tables_.assign(transport.network().node_count(), {});
}

void HermesPath::set_lanes(uint32_t partitions) {
  if (flows_.size() < transport_->qp_count()) flows_.resize(transport_->qp_count());
  scratch_.set_lanes(partitions, {});
  counters_.set_lanes(partitions, {});
}

void HermesPath::fold_lanes() {
  counters_.fold(
      [](Counters& into, const Counters& from) {
        into.flows_placed += from.flows_placed;
        into.reroutes_congestion += from.reroutes_congestion;
        into.reroutes_failure += from.reroutes_failure;
      },
      {});
}

uint32_t HermesPath::table_for(uint32_t host, uint32_t src_edge, uint32_t dst_edge) {
  const Routing& r = transport_->network().context().routing;
  uint32_t& index = table_index_[static_cast<size_t>(host) * edges_ + r.edge_index(dst_edge)];
  if (index == kNoPath) {
    index = static_cast<uint32_t>(tables_[host].size());
    const uint64_t paths = r.path_count(src_edge, dst_edge);
    tables_[host].emplace_back(std::min<uint64_t>(paths, 0xfffe));  // path + 1 fits 16 bits
  }
  return index;
}

uint32_t HermesPath::flow_path(FlowId f) const {
  return f.index() < flows_.size() ? flows_[f.index()].path : kNoPath;
}

// A path not sampled for T1 drifts toward 1.5 T_RTT_low (gray) by 1% every 25 us (the
// aging of Hermes' code), so old news neither condemns nor recommends it for long.
Delta HermesPath::effective_srtt(const PathInfo& p, Time now) const {
  if (p.last_sample == Time::never()) return cfg_.rtt_low;  // unknown: gray
  const Delta idle = now - p.last_sample;
  if (idle <= cfg_.sample_window) return p.srtt;
  const double steps = static_cast<double>((idle - cfg_.sample_window).ps) / 25e6;
  const double target = 1.5 * static_cast<double>(cfg_.rtt_low.ps);
  const double srtt = target + (static_cast<double>(p.srtt.ps) - target) * std::pow(0.99, steps);
  return Delta{static_cast<int64_t>(srtt)};
}

HermesPath::PathClass HermesPath::classify(const PathInfo& p, Time now) const {
  if (p.failed_until > now) return PathClass::kFailed;
  const Delta srtt = effective_srtt(p, now);
  const bool use_ecn = cfg_.ecn_threshold < 1 && p.ecn_known;
  const bool ecn_low = !use_ecn || p.ecn_fraction < cfg_.ecn_threshold;
  const bool ecn_high = !use_ecn || p.ecn_fraction >= cfg_.ecn_threshold;
  if (p.bad_until > now || (srtt >= cfg_.rtt_high && ecn_high)) return PathClass::kBad;
  if (srtt < cfg_.rtt_low && ecn_low) return PathClass::kGood;
  return PathClass::kGray;
}

// The path a flow should take (kNoPath: none worth it). Any good path, the one carrying
// fewest of this host's flows; else a gray, then a bad path at least Δ_RTT faster than the
// current one (than any, for a new flow), in RTT steps of Δ_RTT/10, then fewest flows.
// Ties at random.
uint32_t HermesPath::pick(std::vector<PathInfo>& paths, uint32_t current, Time now,
                          RandomStream& rng) {
  std::vector<uint32_t>& scratch = scratch_.local();
  // No path, or a failed one, is infinitely slow: anything not failed beats it.
  const bool has_current =
      current != kNoPath && classify(paths[current], now) != PathClass::kFailed;
  const Delta current_srtt =
      has_current ? effective_srtt(paths[current], now) : Delta{INT64_MAX / 4};
  const int64_t step = std::max<int64_t>(1, cfg_.delta_rtt.ps / 10);
  for (PathClass wanted : {PathClass::kGood, PathClass::kGray, PathClass::kBad}) {
    scratch.clear();
    int64_t best_level = INT64_MAX;
    uint32_t best_flows = UINT32_MAX;
    for (uint32_t i = 0; i < paths.size(); ++i) {
      if (classify(paths[i], now) != wanted) continue;
      const Delta srtt = effective_srtt(paths[i], now);
      if (wanted != PathClass::kGood && !(srtt + cfg_.delta_rtt <= current_srtt)) continue;
      const int64_t level =
          wanted == PathClass::kGood ? 0 : std::min<int64_t>(4, (srtt - cfg_.rtt_low).ps / step);
      const uint32_t flows = paths[i].local_flows;
      if (level < best_level || (level == best_level && flows < best_flows)) {
        best_level = level;
        best_flows = flows;
        scratch.clear();
      }
      if (level == best_level && flows == best_flows) scratch.push_back(i);
    }
    if (!scratch.empty()) return scratch[rng.below(scratch.size())];
  }
  return kNoPath;
}

// The flow's own sending rate, from a discounting register of the bytes it sent (TLB's
// DRE: x0.8 every 30 us, tau = 150 us), whatever its congestion control paces by: a
// window-limited flow (Swift, none) keeps its rate variable at line rate.
double HermesPath::sending_rate_bps(FlowState& fs, Time now, uint32_t sent_now) {
  constexpr double kPeriodPs = 30e6, kKeep = 0.8;
  const double periods = static_cast<double>((now - fs.dre_time).ps) / kPeriodPs;
  fs.sent_bytes_dre = fs.sent_bytes_dre * std::pow(kKeep, periods) + sent_now;
  fs.dre_time = now;
  const double tau_s = kPeriodPs * 1e-12 / (1 - kKeep);
  return fs.sent_bytes_dre * 8 / tau_s;
}

// pick(), else any path that has not failed (every path failed: any path).
uint32_t HermesPath::pick_or_any(std::vector<PathInfo>& paths, uint32_t current, Time now,
                                 RandomStream& rng) {
  const uint32_t path = pick(paths, current, now, rng);
  if (path != kNoPath) return path;
  std::vector<uint32_t>& scratch = scratch_.local();
  scratch.clear();
  for (uint32_t i = 0; i < paths.size(); ++i)
    if (classify(paths[i], now) != PathClass::kFailed) scratch.push_back(i);
  if (!scratch.empty()) return scratch[rng.below(scratch.size())];
  return current != kNoPath ? current : static_cast<uint32_t>(rng.below(paths.size()));
}

void HermesPath::move(FlowState& fs, uint32_t path) {
  std::vector<PathInfo>& paths = paths_of(fs);
  if (fs.path != kNoPath) --paths[fs.path].local_flows;
  ++paths[path].local_flows;
  fs.path = path;
  fs.acked_at_move = fs.acked;
  fs.moved_at = transport_->sim().now();
}

void HermesPath::on_send(FlowId f, Packet& p) {
  if (flows_.size() <= f.index()) flows_.resize(f.index() + 1);
  FlowState& fs = flows_[f.index()];
  const Routing& r = transport_->network().context().routing;
  if (fs.table == kNoPath) {
    const uint32_t src_edge = r.src_edge(p), dst_edge = r.dst_edge(p);
    if (dst_edge == src_edge) return;  // one leaf: no path to choose
    fs.host = p.src.index();
    // The destination edge names the plane (or ToR) too: a host's ports get tables apart.
    fs.table = table_for(fs.host, src_edge, dst_edge);
  }
  std::vector<PathInfo>& paths = paths_of(fs);
  RandomStream& rng = streams_.of(p.src);
  Counters& counters = counters_.local();
  const Time now = transport_->sim().now();
  const double rate_bps = sending_rate_bps(fs, now, p.wire_bytes);
  // A pinned flow stays on its path: Hermes senses that path through it, never moves it.
  // (Its table holds the first 65,534 paths: one pinned beyond is left to the transport.)
  const std::optional<uint32_t> pin = transport_->pinned_path(f);
  const bool pinned = pin && *pin < paths.size();
  if (fs.path == kNoPath) {  // a new flow
    move(fs, pinned ? *pin : pick_or_any(paths, kNoPath, now, rng));
    ++counters.flows_placed;
  } else if (!pinned) {
    const PathClass cls = classify(paths[fs.path], now);
    if (cls == PathClass::kFailed) {
      const uint32_t path = pick_or_any(paths, fs.path, now, rng);
      if (path != fs.path) {
        move(fs, path);
        ++counters.reroutes_failure;
      }
    } else if (cls == PathClass::kBad &&
               fs.acked - fs.acked_at_move >= cfg_.min_bytes_before_reroute &&
               rate_bps <=
                   cfg_.max_rate_fraction * static_cast<double>(transport_->line_rate_bps(f)) &&
               (fs.last_attempt == Time::never() || now - fs.last_attempt >= cfg_.reroute_gap)) {
      fs.last_attempt = now;
      if (rng.uniform() < cfg_.reroute_probability) {
        const uint32_t path = pick(paths, fs.path, now, rng);
        if (path != kNoPath && path != fs.path) {
          move(fs, path);
          ++counters.reroutes_congestion;
        }
      }
    }
  }
  pin_path_from_host(p, fs.path);
  transport_->field(path_field_, p) = static_cast<uint16_t>(fs.path + 1);
}

// Sensing from the flow's own ACKs and NAKs: the RTT of the data packet answered (its
// send time is echoed) above the flow's base RTT, smoothed 1/2 (Hermes' code), and
// whether it was ECN-marked.
void HermesPath::on_feedback(FlowId f, const Packet& p) {
  if (p.type != PacketType::kAck && p.type != PacketType::kNak) return;
  if (f.index() >= flows_.size()) return;
  FlowState& fs = flows_[f.index()];
  if (p.type == PacketType::kAck) fs.acked = std::max(fs.acked, p.seq);
  const uint16_t tagged = transport_->field(path_field_, p);
  if (fs.table == kNoPath || tagged == 0) return;
  std::vector<PathInfo>& paths = paths_of(fs);
  if (tagged > paths.size()) return;
  PathInfo& path = paths[tagged - 1];
  const Time now = transport_->sim().now();
  const Delta sample = std::max(Delta::zero(), (now - p.sent_time) - transport_->base_rtt(f));
  path.srtt = path.last_sample == Time::never() ? sample : Delta{(path.srtt.ps + sample.ps) / 2};
  path.last_sample = now;
  if (now - path.window_start > cfg_.sample_window) {
    if (path.window_acks >= cfg_.ecn_min_packets) {
      path.ecn_fraction = static_cast<float>(path.window_marks) / path.window_acks;
      path.ecn_known = true;
    }
    path.window_start = now;
    path.window_acks = path.window_marks = 0;
  }
  ++path.window_acks;
  if (p.ecn_ce) ++path.window_marks;
}

// A retransmission timeout makes the flow's path bad; repeated ones make it failed.
void HermesPath::on_timeout(FlowId f) {
  if (f.index() >= flows_.size()) return;
  FlowState& fs = flows_[f.index()];
  if (fs.path == kNoPath) return;
  // A timeout within one RTO of a move is ignored: it is most likely the old path's
  // packets' (Hermes' code ignores retransmissions for 1 ms after a switch).
  const Time now = transport_->sim().now();
  if (now - fs.moved_at < transport_->config().rto) return;
  PathInfo& path = paths_of(fs)[fs.path];
  if (path.bad_until <= now) path.timeouts = 0;  // a new episode
  ++path.timeouts;
  path.bad_until = now + cfg_.failure_hold;
  if (path.timeouts >= cfg_.timeouts_to_fail) path.failed_until = now + cfg_.failure_hold;
}

void HermesPath::on_finish(FlowId f) {
  if (f.index() >= flows_.size()) return;
  FlowState& fs = flows_[f.index()];
  if (fs.path != kNoPath) --paths_of(fs)[fs.path].local_flows;
  fs.path = kNoPath;
}

// Its paths are now between other edge switches: it is placed afresh at its next packet.
void HermesPath::on_port_moved(FlowId f) {
  on_finish(f);
  if (f.index() < flows_.size()) flows_[f.index()].table = kNoPath;
}

void HermesPath::add_stats(std::vector<SchemeStat>& out) const {
  out.push_back({"hermes_flows_placed", static_cast<double>(counters_.merged().flows_placed)});
  out.push_back(
      {"hermes_reroutes_congestion", static_cast<double>(counters_.merged().reroutes_congestion)});
  out.push_back(
      {"hermes_reroutes_failure", static_cast<double>(counters_.merged().reroutes_failure)});
}

}  // namespace rocelab
