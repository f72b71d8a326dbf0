#include "lb/conga.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "net/node.h"
#include "net/source_route.h"

namespace rocelab {

namespace {
const std::array<std::string, 2> kCongaModels = {"paper", "ns3"};
}

void CongaSchemeConfig::describe(ParamVisitor& v) {
  v.choice("model", cfg.model, kCongaModels,
           "paper: CONGA §3 as written; ns3: ConWeave-ns3's conga-routing.cc (DRE counted at "
           "routing, unsaturated metric, random feedback on data only, best of 4 consecutive "
           "paths, aging in periodic sweeps)");
  v.duration("flowlet_timeout", cfg.flowlet_timeout, Delta::from_ns(1), Delta::max(),
             "gap that starts a new flowlet (500 us: CONGA §5)");
  v.duration("dre_period", cfg.dre_period, Delta::from_ns(1), Delta::max(),
             "T_dre: the DRE decays X by alpha this often (CONGA §3.5)");
  v.real("dre_alpha", cfg.dre_alpha, 1e-6, 1, "alpha: tau = T_dre/alpha (CONGA §3.5)");
  v.count("quantization_bits", cfg.quantization_bits, 1, 7, "Q: metric bits (3, CONGA §5)");
  v.duration("metric_aging", cfg.metric_aging, Delta::from_ns(1), Delta::max(),
             "remote metrics not refreshed for this long count as 0 (CONGA §3.3)");
  int64_t entries = cfg.flowlet_table_entries;
  v.integer("flowlet_table_entries", entries, 1, 1 << 26,
            "flowlet table size, a power of two (64K: CONGA §3.4)");
  v.require((entries & (entries - 1)) == 0, "flowlet_table_entries", "must be a power of two");
  cfg.flowlet_table_entries = static_cast<uint32_t>(entries);
}

std::unique_ptr<LoadBalancer> CongaSchemeConfig::build(const SwitchView& sw) const {
  return std::make_unique<Conga>(sw, cfg);
}

Conga::Conga(const SwitchView& sw, const CongaConfig& cfg)
    : sw_(sw),
      cfg_(cfg),
      ns3_(cfg.model == "ns3"),
      rng_(sw.seed(), "conga", sw.id().index()),
      tag_(sw.packet_layout().declare<CongaTag>("conga.tag")),
      self_(sw.id().index()),
      is_edge_(sw.is_edge()),
      dre_(sw.port_count()) {
  if (is_edge_) remotes_.resize(sw.routing().edge_switches().size());
}

// ---------------------------------------------------------------- DRE (§3.5)

// ConWeave-ns3 starts a switch's DRE and aging timers with its first CONGA packet; the
// paper's timers run free. Either way only their phase matters: start them then.
void Conga::touch(Time now) {
  if (origin_ == Time::never()) origin_ = now;
}

// The shared DRE (lb/dre.h); ConWeave-ns3's uint32 register truncates as it does.
uint64_t& Conga::dre(PortId port, Time now) {
  return dre_[port.index()].bytes_at(now, origin_, cfg_.dre_period, cfg_.dre_alpha);
}

// The metric X / (C tau), in Q bits (§3.5). The paper's field saturates at 2^Q - 1;
// ConWeave-ns3 keeps the unsaturated value.
uint32_t Conga::quantise(PortId port, uint64_t bytes) const {
  const double ratio = DiscountingRateEstimator::utilization(bytes, sw_.port(port).rate_bps(),
                                                             cfg_.dre_period, cfg_.dre_alpha);
  const uint32_t levels = 1u << cfg_.quantization_bits;
  const double q = std::min(ratio * levels, 255.0);
  const uint32_t metric = static_cast<uint32_t>(q);
  return ns3_ ? metric : std::min(metric, levels - 1);
}

uint32_t Conga::local_metric(PortId port) {
  if (origin_ == Time::never()) return 0;
  return quantise(port, dre(port, sw_.now()));
}

// A tagged data packet is counted on each fabric link it takes and raises its CE to that
// link's metric (§3.3). The paper counts bytes sent; ConWeave-ns3 counts a packet when it
// is routed, i.e. enqueued.
void Conga::count_bytes(const SwitchView& sw, Packet& p, PortId port) {
  CongaTag& tag = sw.field(tag_, p);
  if (!(tag.flags & kTagged)) return;
  if (sw.port(port).peer()->kind() != NodeKind::kSwitch) return;  // the host link
  const Time now = sw.now();
  touch(now);
  uint64_t& x = dre(port, now);
  x += p.wire_bytes;
  tag.ce = static_cast<uint8_t>(std::max<uint32_t>(tag.ce, quantise(port, x)));
}

void Conga::on_enqueue(const SwitchView& sw, Packet& p, PortId port) {
  if (ns3_) count_bytes(sw, p, port);
}

void Conga::on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t) {
  if (!ns3_) count_bytes(sw, p, port);
}

// ---------------------------------------------------------------- leaf tables (§3.3)

Conga::Remote& Conga::remote(uint32_t edge_index) {
  std::unique_ptr<Remote>& slot = remotes_[edge_index];
  if (!slot) {
    slot = std::make_unique<Remote>();
    const uint32_t dst = sw_.routing().edge_switches()[edge_index];
    slot->paths = static_cast<uint32_t>(
        std::min<uint64_t>(sw_.routing().path_count(self_, dst), uint64_t{1} << 16));
    slot->metrics.resize(slot->paths);
    slot->feedback.resize(slot->paths);
  }
  return *slot;
}

// Whether a metric last written at `updated` has aged out. The paper resets a metric not
// refreshed within the aging time; ConWeave-ns3 sweeps its tables every aging period and
// clears what is older than one period at the sweep, so a metric lives one to two periods.
bool Conga::aged(Time updated, Time now) const {
  if (updated == Time::never()) return true;
  if (!ns3_) return now - updated > cfg_.metric_aging;
  const int64_t sweeps = (now - origin_).ps / cfg_.metric_aging.ps;
  if (sweeps == 0) return false;
  const Time last_sweep = origin_ + cfg_.metric_aging * sweeps;
  return last_sweep > updated && last_sweep - updated > cfg_.metric_aging;
}

// §3.4: the path minimising max(local metric of its uplink, remote metric). Ties go to the
// flow's current path, else to a random one: a flow moves only to a strictly better path.
// ConWeave-ns3 breaks every tie at random and considers only 4 consecutive path IDs from
// a random start.
uint32_t Conga::best_path(Remote& r, std::span<const PortId> hops, uint32_t current, Time now) {
  uint32_t first = 0;
  uint32_t count = r.paths;
  if (ns3_ && r.paths >= 4) {
    count = 4;
    first = static_cast<uint32_t>(rng_.below(r.paths - count + 1));
  }
  uint32_t best = UINT32_MAX;
  scratch_.clear();
  for (uint32_t path = first; path < first + count; ++path) {
    const PathMetrics& m = r.metrics[path];
    const uint32_t remote_ce = aged(m.to_updated, now) ? 0 : m.to_metric;
    const uint32_t local_ce =
        quantise(hops[path % hops.size()], dre(hops[path % hops.size()], now));
    const uint32_t metric = std::max(local_ce, remote_ce);
    if (metric < best) {
      best = metric;
      scratch_.clear();
    }
    if (metric == best) scratch_.push_back(path);
  }
  if (!ns3_ && std::find(scratch_.begin(), scratch_.end(), current) != scratch_.end())
    return current;
  return scratch_[rng_.below(scratch_.size())];
}

// The paper's flowlet entry has a valid and an age bit: a packet clears the age bit, a
// timer every T_fl sets it or, when already set, invalidates the entry (§3.4). The entry
// therefore expires at the second tick after its last packet, an idle gap of T_fl to
// 2 T_fl. ConWeave-ns3 compares timestamps: a gap above T_fl.
bool Conga::flowlet_expired(const Flowlet& f, Time now) const {
  if (f.last_seen == Time::never()) return true;
  if (ns3_) return now - f.last_seen > cfg_.flowlet_timeout;
  const int64_t tick = cfg_.flowlet_timeout.ps;
  const int64_t expiry_ps = (f.last_seen.ps / tick + 2) * tick;
  return now.ps >= expiry_ps;
}

PortId Conga::choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> candidates) {
  const Routing& r = sw.routing();
  const uint32_t dst_edge = r.dst_edge(p);
  if (!is_edge_ || r.src_edge(p) != self_)  // not our packet to place
    return candidates[sw.ecmp_index(p, candidates)];
  const Time now = sw.now();
  touch(now);
  Remote& rem = remote(r.edge_index(dst_edge));
  if (flowlets_.empty()) flowlets_.resize(cfg_.flowlet_table_entries);
  Flowlet& f = flowlets_[p.flow_hash & (cfg_.flowlet_table_entries - 1)];
  if (flowlet_expired(f, now) || f.path >= rem.paths) {
    const uint32_t current = f.last_seen == Time::never() ? UINT32_MAX : f.path;
    const uint32_t path = best_path(rem, candidates, current, now);
    if (f.last_seen != Time::never() && path != f.path) ++path_changes_;
    f.path = path;
    ++flowlets_started_;
  }
  f.last_seen = now;
  sw.field(tag_, p).path = f.path;  // tagged in on_receive
  return pin_path_at_edge(p, f.path, rem.paths, candidates);
}

// ---------------------------------------------------------------- feedback (§3.3)

// One From-Leaf metric rides on a packet to the leaf it describes. The paper feeds them
// back round-robin, favouring metrics that changed since last sent; ConWeave-ns3 picks
// one of the live entries uniformly.
void Conga::add_feedback(Packet& p, uint32_t dst_edge_index, Time now) {
  Remote& rem = remote(dst_edge_index);
  uint32_t chosen = UINT32_MAX;
  if (ns3_) {
    scratch_.clear();
    for (uint32_t path = 0; path < rem.paths; ++path)
      if (!aged(rem.metrics[path].from_updated, now)) scratch_.push_back(path);
    if (!scratch_.empty()) chosen = scratch_[rng_.below(scratch_.size())];
  } else {
    chosen = rem.feedback.take(
        [&](uint32_t path) { return !aged(rem.metrics[path].from_updated, now); }, true);
  }
  if (chosen == UINT32_MAX) return;
  const PathMetrics& m = rem.metrics[chosen];
  CongaTag& tag = sw_.field(tag_, p);
  tag.flags |= kFeedback;
  tag.fb_path = chosen;
  tag.fb_metric = m.from_metric;
  ++feedback_sent_;
}

void Conga::on_arrival_from_fabric(Packet& p, Time now) {
  CongaTag& tag = sw_.field(tag_, p);
  if (!(tag.flags & (kTagged | kFeedback))) return;
  const Routing& r = sw_.routing();
  Remote& rem = remote(r.edge_index(r.src_edge(p)));
  if ((tag.flags & kFeedback) && tag.fb_path < rem.paths) {  // Congestion-To-Leaf
    PathMetrics& m = rem.metrics[tag.fb_path];
    m.to_metric = tag.fb_metric;
    m.to_updated = now;
  }
  if ((tag.flags & kTagged) && tag.path < rem.paths) {  // Congestion-From-Leaf
    PathMetrics& m = rem.metrics[tag.path];
    if (aged(m.from_updated, now) || m.from_metric != tag.ce) rem.feedback.mark_changed(tag.path);
    m.from_metric = tag.ce;
    m.from_updated = now;
  }
  tag = CongaTag{};  // the overlay header ends at the leaf
}

bool Conga::on_receive(const SwitchView& sw, Packet& p, PortId in_port) {
  if (!is_edge_ || p.type == PacketType::kControl) return false;
  // ConWeave-ns3 tags and feeds back on data packets only; the paper's overlay carries
  // every packet between leaves, ACKs included.
  if (ns3_ && p.type != PacketType::kData) return false;
  const Time now = sw.now();
  if (p.type == PacketType::kData) touch(now);
  const Routing& r = sw.routing();
  const uint32_t src_edge = r.src_edge(p);
  const uint32_t dst_edge = r.dst_edge(p);
  if (src_edge == dst_edge) return false;
  if (dst_edge == self_) {
    on_arrival_from_fabric(p, now);
  } else if (src_edge == self_ && sw.port(in_port).peer()->kind() == NodeKind::kHost) {
    // Every data packet entering the fabric is tagged, also where a single path leaves
    // this leaf and no choice is made (path 0): its links are measured all the same.
    if (p.type == PacketType::kData) {
      CongaTag& tag = sw.field(tag_, p);
      tag.flags |= kTagged;
      tag.path = 0;
      tag.ce = 0;
    }
    add_feedback(p, r.edge_index(dst_edge), now);
  }
  return false;
}

void Conga::add_stats(std::vector<Stat>& out) const {
  out.push_back({"conga_flowlets", static_cast<double>(flowlets_started_)});
  out.push_back({"conga_path_changes", static_cast<double>(path_changes_)});
  out.push_back({"conga_feedback_carried", static_cast<double>(feedback_sent_)});
}

}  // namespace rocelab
