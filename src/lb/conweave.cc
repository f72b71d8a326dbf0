// ConWeave: configuration and the source ToR (path choice, epochs, replies, NOTIFY).
// Line references are to ConWeave-ns3's conweave-routing.cc (RouteInput).
#include "lb/conweave.h"

#include <algorithm>
#include <array>

#include "net/node.h"
#include "net/source_route.h"

namespace rocelab {

namespace {
const std::array<std::string, 2> kReorderBuffers = {"switch", "outside"};
}

void ConWeaveSchemeConfig::describe(ParamVisitor& v) {
  const Delta max = Delta::max();
  v.duration("reply_deadline_extra", cfg.reply_deadline_extra, Delta::zero(), max,
             "RTT_REPLY deadline beyond the base RTT (4 us: ConWeave-ns3 run.py)");
  v.duration("path_busy", cfg.path_busy, Delta::zero(), max,
             "a NOTIFY marks its path busy this long (16 us: run.py)");
  v.duration("inactive", cfg.inactive, Delta::from_ns(1), max,
             "idle gap that starts a flow afresh (300 us: run.py leaf-spine; 1 ms fat-tree)");
  v.duration("flush_extra", cfg.flush_extra, Delta::zero(), max,
             "slack added to the predicted TAIL arrival (16 us: run.py; 64 us fat-tree)");
  v.duration("default_wait", cfg.default_wait, Delta::zero(), max,
             "hold time when no old-path packet was seen (200 us: run.py; 600 us fat-tree)");
  v.duration("aging", cfg.aging, Delta::from_ns(1), max,
             "flow state idle this long is dropped (2 ms: conweave-routing.cc)");
  v.choice("reorder_buffer", cfg.reorder_buffer, kReorderBuffers,
           "held packets in the switch buffer, charged to their ingress port (switch; the "
           "paper's paused queues), or outside it until released (outside; ConWeave-ns3)");
}

std::unique_ptr<LoadBalancer> ConWeaveSchemeConfig::build(const SwitchView& sw) const {
  if (!sw.is_edge()) return nullptr;  // spines follow the source route
  return std::make_unique<ConWeave>(sw, cfg);
}

ConWeave::ConWeave(const SwitchView& sw, const ConWeaveConfig& cfg)
    : sw_(sw),
      cfg_(cfg),
      rng_(sw.seed(), "conweave", sw.id().index()),
      tag_(sw.packet_layout().declare<ConWeaveTag>("conweave.tag")),
      control_(sw.packet_layout().declare<ConWeaveControl>("conweave.control")),
      control_kind_(sw.packet_layout().control_kind("conweave")),
      handler_(sw.sim().add_handler(this, sw.id().index())),
      self_(sw.id().index()),
      reorder_(
          sw,
          InNetworkReorderConfig{cfg.flush_extra, cfg.default_wait, cfg.reorder_buffer == "switch"},
          handler_, kFlushEvent) {
  const size_t edges = sw.routing().edge_switches().size();
  busy_.resize(edges);
  base_rtt_.resize(edges);
}

// The deadline's base RTT: propagation there and back between the two ToRs, every link
// taken at this ToR's uplink delay (ConWeave-ns3: one fixed one-hop delay x 2 x hops,
// network-load-balance.cc).
Delta ConWeave::base_rtt(uint32_t dst_edge) {
  const Routing& r = sw_.routing();
  Delta& rtt = base_rtt_[r.edge_index(dst_edge)];
  if (rtt == Delta::zero()) {
    const Delta link = sw_.port(r.next_hops(self_, dst_edge)[0]).delay();
    rtt = link * static_cast<int64_t>(2 * r.edge_distance(self_, dst_edge));
  }
  return rtt;
}

// Per destination ToR, per path: until when the path is busy. Sized to the path count on
// first use, which is then its size.
std::vector<Time>& ConWeave::busy_until(uint32_t dst_edge) {
  const Routing& r = sw_.routing();
  std::vector<Time>& b = busy_[r.edge_index(dst_edge)];
  if (b.empty())
    b.resize(std::min<uint64_t>(r.path_count(self_, dst_edge), 1u << 16), Time::zero());
  return b;
}

// Per data packet from a local host to another ToR (RouteInput, TxToR branch).
PortId ConWeave::choose_egress(const SwitchView& sw, Packet& p,
                               std::span<const PortId> candidates) {
  const Routing& r = sw.routing();
  const uint32_t dst_edge = r.dst_edge(p);
  if (r.src_edge(p) != self_) return candidates[sw.ecmp_index(p, candidates)];
  const Time now = sw.now();
  age(now);
  const std::vector<Time>& busy = busy_until(dst_edge);
  const uint32_t paths = static_cast<uint32_t>(busy.size());
  auto [it, fresh] = tx_.try_emplace(p.flow.index());
  TxFlow& f = it->second;

  // Expiry or stability starts a new epoch, probed by an RTT_REQUEST (R.cc:466-507). A
  // new flow counts as expired. The reply deadline is checked lazily, by the next packet.
  const bool expired = fresh || f.active + cfg_.inactive < now;
  const bool stabilized = !expired && f.stabilized;
  f.stabilized = false;
  f.active = now;
  bool timeout = false;
  if (expired || stabilized) {
    f.reply_deadline = now + base_rtt(dst_edge) + cfg_.reply_deadline_extra;
    ++f.epoch;
    f.phase = 0;
  } else if (f.reply_deadline != Time::never() && f.reply_deadline < now) {
    timeout = true;  // at most once per epoch
    f.reply_deadline = Time::never();
  }
  // Two random candidates, the first not busy wins (R.cc:526-571).
  const uint32_t p1 = static_cast<uint32_t>(rng_.below(paths));
  const uint32_t p2 = static_cast<uint32_t>(rng_.below(paths));
  const bool p1_good = busy[p1] <= now;
  const bool found = p1_good || busy[p2] <= now;
  const uint32_t good = p1_good ? p1 : (found ? p2 : p1);

  uint8_t packet_phase = f.phase;
  uint32_t packet_path = f.path;
  if (fresh) {
    f.path = packet_path = good;
  } else if (expired) {
    if (found) f.path = good;
    packet_path = f.path;
    stats_.reroutes += found;  // counted as ConWeave-ns3's m_nReRoute: a good path found
  } else if (timeout) {
    // The TAIL closes the old path in phase 0; the packets after it are REROUTED.
    packet_phase = 0;
    f.phase = 1;
    if (found) f.path = good;
    stats_.reroutes += found;
  }
  if (expired || stabilized) f.tail_time = Time::zero();
  if (timeout) f.tail_time = now;

  ConWeaveTag& tag = sw.field(tag_, p);
  tag.path = packet_path;
  tag.epoch = f.epoch;
  tag.phase = packet_phase;
  tag.tx_time_ps = now.ps;
  tag.tail_time_ps = f.tail_time.ps;
  tag.flag = (expired || stabilized) ? kInit : (timeout ? kTail : kData);

  return pin_path_at_edge(p, packet_path, paths, candidates);
}

// RTT_REPLY, CLEAR and NOTIFY back at the source ToR (R.cc:944-1008).
void ConWeave::on_control(const Packet& p) {
  const ConWeaveControl c = sw_.field(control_, p);
  const Time now = sw_.now();
  if (c.kind == kNotify) {
    const Routing& r = sw_.routing();
    const uint32_t dst_edge = p.src.index();  // the destination ToR sent it
    if (!r.is_edge(dst_edge) || dst_edge == self_) return;
    std::vector<Time>& busy = busy_until(dst_edge);
    if (c.path < busy.size()) busy[c.path] = now + cfg_.path_busy;
    return;
  }
  auto it = tx_.find(p.flow.index());
  if (it == tx_.end()) return;
  TxFlow& f = it->second;
  if (c.epoch != f.epoch || c.phase != f.phase) return;
  if (c.kind == kReplyInit) {
    // Only a reply within the deadline stabilises the epoch; a late one is ignored.
    if (f.reply_deadline == Time::never() || now >= f.reply_deadline) return;
    ++stats_.replies_timely;
  }
  f.stabilized = true;
  f.reply_deadline = Time::never();
}

bool ConWeave::on_receive(const SwitchView& sw, Packet& p, PortId in_port) {
  const Routing& r = sw.routing();
  const uint32_t dst_edge = r.dst_edge(p);
  if (p.type == PacketType::kControl) {
    if (p.control_kind != control_kind_ || dst_edge != self_) return false;
    on_control(p);
    sw.free_packet(p.self);
    return true;
  }
  if (p.type != PacketType::kData || dst_edge != self_) return false;
  if (sw.port(in_port).peer()->kind() != NodeKind::kSwitch) return false;  // same ToR
  return on_data_from_fabric(p, in_port);
}

void ConWeave::add_stats(std::vector<Stat>& out) const {
  const Counters& c = stats_;
  out.push_back({"conweave_reroutes", static_cast<double>(c.reroutes)});
  out.push_back({"conweave_rtt_replies", static_cast<double>(c.replies_sent)});
  out.push_back({"conweave_rtt_replies_timely", static_cast<double>(c.replies_timely)});
  out.push_back({"conweave_clears", static_cast<double>(c.clears_sent)});
  out.push_back({"conweave_notifies", static_cast<double>(c.notifies_sent)});
  reorder_.add_stats("conweave", out);
}

}  // namespace rocelab
