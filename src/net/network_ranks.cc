// The network's results after a run over several ranks (issue 52, sim/ranks.h): each rank
// counted what its own nodes did; every rank ends with every rank's counts.
#include <algorithm>
#include <cstring>
#include <string>

#include "net/network.h"

namespace rocelab {

namespace {

template <class T>
void write_vector(ByteWriter& out, const std::vector<T>& v) {
  out.put(static_cast<uint64_t>(v.size()));
  out.put_raw(v.data(), v.size() * sizeof(T));
}
template <class T>
void read_vector(ByteReader& in, std::vector<T>& v) {
  v.resize(in.get<uint64_t>());
  in.get_raw(v.data(), v.size() * sizeof(T));
}

}  // namespace

void NetCounters::write(ByteWriter& out) const {
  for (const uint64_t v : {drops, ack_drops, drop_bytes, pause_frames, resume_frames, ecn_marks,
                           cnps_suppressed, stale_lb_choices})
    out.put(v);
  out.put(lapse_drops);
  out.put(egress_threshold_drops);
  write_vector(out, pause_frames_by_node);
  write_vector(out, hol_blocked_flows);
  write_vector(out, fault_flows);
  out.put(fault_losses);
  out.put(last_fault_loss);
}

void NetCounters::read(ByteReader& in) {
  for (uint64_t* v : {&drops, &ack_drops, &drop_bytes, &pause_frames, &resume_frames, &ecn_marks,
                      &cnps_suppressed, &stale_lb_choices})
    *v = in.get<uint64_t>();
  lapse_drops = in.get<LossByLayer>();
  egress_threshold_drops = in.get<LossByLayer>();
  read_vector(in, pause_frames_by_node);
  read_vector(in, hol_blocked_flows);
  read_vector(in, fault_flows);
  fault_losses = in.get<FaultLosses>();
  last_fault_loss = in.get<Time>();
}

void Network::gather_over_ranks(RankGroup& group, Time now) {
  fold_counters();
  // What this rank counted: the network's counters, then its nodes' ports and switches.
  Bytes mine;
  ByteWriter out(mine);
  counters().write(out);
  for (const auto& node : nodes_) {
    if (!owns(node->id())) continue;
    for (size_t p = 0; p < node->port_count(); ++p) {
      const EgressPort& port = node->port(PortId(static_cast<uint16_t>(p)));
      PortCounters c = port.counters();
      c.paused_time = port.paused_time(now);
      out.put(c);
    }
    if (node->kind() != NodeKind::kSwitch) continue;
    std::array<std::vector<SchemeStat>, 3> stats;
    add_switch_stats(node->id(), stats[0], stats[1], stats[2]);
    for (const auto& list : stats) write_stats(out, list);
  }
  const std::vector<Bytes> all = group.gather_all(std::move(mine));
  remote_switch_stats_.assign(nodes_.size(), {});
  NetCounters& merged = ctx_->counter_lanes.merged();
  for (uint32_t r = 0; r < all.size(); ++r) {
    if (r == group.rank()) continue;
    ByteReader in(all[r]);
    NetCounters theirs;
    theirs.read(in);
    merged.add(theirs);
    for (const auto& node : nodes_) {
      if (sim_.rank_of_lp(node->id().index()) != r) continue;
      for (size_t p = 0; p < node->port_count(); ++p)
        node->port(PortId(static_cast<uint16_t>(p))).adopt_counters(in.get<PortCounters>());
      if (node->kind() != NodeKind::kSwitch) continue;
      for (auto& list : remote_switch_stats_[node->id().index()]) list = read_stats(in);
    }
    if (!in.done())
      throw std::runtime_error("rank " + std::to_string(r) +
                               " sent more network results than read");
  }
}

void Network::gather_hol_blocked_over_ranks(RankGroup& group) {
  fold_counters();
  std::vector<uint8_t>& marks = ctx_->counter_lanes.merged().hol_blocked_flows;
  Bytes mine(marks.size());
  if (!marks.empty()) std::memcpy(mine.data(), marks.data(), marks.size());
  for (const Bytes& theirs : group.gather_all(std::move(mine))) {
    if (theirs.size() > marks.size()) marks.resize(theirs.size(), 0);
    for (size_t f = 0; f < theirs.size(); ++f)
      marks[f] = std::max(marks[f], static_cast<uint8_t>(theirs[f]));
  }
}

void Network::add_switch_stats(NodeId s, std::vector<SchemeStat>& lb, std::vector<SchemeStat>& fc,
                               std::vector<SchemeStat>& features) const {
  if (!owns(s)) {
    const auto& theirs = remote_switch_stats_.at(s.index());
    lb.insert(lb.end(), theirs[0].begin(), theirs[0].end());
    fc.insert(fc.end(), theirs[1].begin(), theirs[1].end());
    features.insert(features.end(), theirs[2].begin(), theirs[2].end());
    return;
  }
  Switch& sw = const_cast<Network*>(this)->switch_at(s);
  if (LoadBalancer* b = sw.load_balancer()) b->add_stats(lb);
  sw.flow_control().add_stats(fc);
  for (const auto& f : sw.features()) f->add_stats(features);
}

}  // namespace rocelab
