// Small networks and run helpers shared by the scenario tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "net/switch_node.h"
#include "scenario/build/experiment.h"

namespace rocelab::test {

// host0 - sw0 - sw1 - ... - sw(n-1) - host1, link i with rates[i] (n+1 links).
inline TopologySpec chain(const std::vector<BitsPerSec>& rates, Delta delay) {
  TopologySpec t;
  t.add_node(NodeKind::kHost, Layer::kHost, "a");
  t.add_node(NodeKind::kHost, Layer::kHost, "b");
  const uint32_t switches = static_cast<uint32_t>(rates.size()) - 1;
  for (uint32_t s = 0; s < switches; ++s)
    t.add_node(NodeKind::kSwitch, s == 0 || s + 1 == switches ? Layer::kEdge : Layer::kAggregation,
               "sw" + std::to_string(s));
  t.add_link(0, 2, rates[0], delay);
  for (uint32_t s = 0; s + 1 < switches; ++s) t.add_link(2 + s, 3 + s, rates[s + 1], delay);
  t.add_link(2 + switches - 1, 1, rates.back(), delay);
  return t;
}

// A leaf-spine with default rates (100 Gb/s) and 1 us links.
inline TopologySpec small_leaf_spine(uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf) {
  LeafSpineParams ls;
  ls.leaves = leaves;
  ls.spines = spines;
  ls.hosts_per_leaf = hosts_per_leaf;
  return leaf_spine(ls);
}

inline FlowSpec flow(uint32_t src, uint32_t dst, uint64_t size, Time start = Time::zero(),
                     std::string tag = "test") {
  return FlowSpec{src, dst, size, start, std::move(tag), {}, {}, {}, {}, {}, {}, {}};
}

// Runs to completion, drains, and asserts the model's invariants.
// Link `link` fails in one direction (from its end a, or b) from `at` to `until`; routing
// sees it after `detect`.
inline FaultEvent link_down(uint32_t link, bool from_a, Delta at, Delta until, Delta detect) {
  FaultEvent e;
  e.kind = FaultEvent::Kind::kLinkDown;
  e.at = Time::zero() + at;
  e.until = Time::zero() + until;
  e.links = {link};
  e.directions = {{link, from_a}};
  e.detection_delay = detect;
  return e;
}

inline RunStats run_checked(Experiment& exp, Time limit = Time{Delta::from_ms(200).ps}) {
  RunStats st = exp.run(limit);
  EXPECT_TRUE(st.all_finished) << "flows left unfinished at " << st.sim_end.us() << " us";
  exp.drain();
  EXPECT_EQ(exp.check_invariants(), "");
  return st;
}

// A load balancer's figure (LoadBalancer::add_stats) summed over every switch.
inline double summed(const std::vector<SchemeStat>& stats, const std::string& name) {
  double v = 0;
  for (const auto& st : stats)
    if (st.name == name) v += st.value;
  return v;
}
inline double lb_stat(Experiment& exp, const std::string& name) {
  std::vector<SchemeStat> stats;
  for (NodeId s : exp.network().switches())
    if (auto* lb = exp.network().switch_at(s).load_balancer()) lb->add_stats(stats);
  return summed(stats, name);
}

// A switch feature's figure (SwitchFeature::add_stats) summed over every switch.
inline double feature_stat(Experiment& exp, const std::string& name) {
  std::vector<SchemeStat> stats;
  for (NodeId s : exp.network().switches())
    for (const auto& f : exp.network().switch_at(s).features()) f->add_stats(stats);
  return summed(stats, name);
}

// A frame of flow 0 between host 0 (a) and host 1 (b) of a chain, handed to its
// destination's transport as if it had just arrived: data of 1000 B at `seq` from a, or an
// ACK or NAK from b (with `sack` as its selective sequence when not 0).
inline void arrive_on_chain(Experiment& exp, PacketType type, uint64_t seq, uint64_t sack = 0) {
  NetContext& ctx = exp.network().context();
  const PacketId id = ctx.alloc_packet();
  Packet& p = ctx.pkt(id);
  const bool data = type == PacketType::kData;
  p.type = type;
  p.src = NodeId(data ? 0 : 1);
  p.dst = NodeId(data ? 1 : 0);
  p.flow = FlowId(0);
  p.seq = seq;
  if (data) {
    p.payload_bytes = 1000;
    p.wire_bytes = 1082;
    p.sent_time = exp.sim().now();
  }
  if (sack != 0) exp.transport().field(exp.transport().sack_seq_field(), p) = sack;
  exp.transport().on_host_receive(p.dst, id);
}

}  // namespace rocelab::test
