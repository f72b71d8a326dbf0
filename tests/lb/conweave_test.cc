// ConWeave (lb/conweave.h): flows are rerouted when their RTT probe misses its deadline,
// and the destination ToR holds the rerouted packets that overtake the old path's TAIL,
// so the receiver sees every packet in order.
#include <gtest/gtest.h>

#include <cstdio>

#include "lb/conweave.h"
#include "test_util.h"

namespace rocelab {
namespace {

struct LeafSums {
  uint64_t reroutes = 0, held_packets = 0, flushes = 0, flushes_by_tail = 0;
  uint64_t replies_sent = 0, replies_timely = 0;
};
struct Outcome {
  LeafSums leaves;  // summed over both ToRs
  uint64_t out_of_order = 0;
  uint64_t naks = 0;
};

// Two leaves, two spines, four hosts each: a 5 MB flow h0 -> h4 at 0, three 1 MB flows
// from the other hosts of leaf 0 at 20 us, which queue behind it on shared uplinks and
// delay its RTT probes beyond base RTT + 4 us.
Outcome run(uint64_t seed) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 4);
  spec.network.seed = seed;
  spec.lb = "conweave";
  spec.cc = "dcqcn";
  spec.flows.push_back(test::flow(0, 4, 5'000'000));
  for (uint32_t i = 1; i < 4; ++i)
    spec.flows.push_back(test::flow(i, 4 + i, 1'000'000, Time{Delta::from_us(20).ps}));
  Experiment exp(spec);
  test::run_checked(exp);
  Outcome o;
  for (const char* leaf : {"leaf0", "leaf1"}) {
    const NodeId id(spec.topology.find(leaf));
    const auto& cw = static_cast<ConWeave&>(*exp.network().switch_at(id).load_balancer());
    const ConWeave::Counters& c = cw.counters();
    const InNetworkReorder::Counters& q = cw.reorder_counters();
    o.leaves.reroutes += c.reroutes;
    o.leaves.held_packets += q.held_packets;
    o.leaves.flushes += q.flushes;
    o.leaves.flushes_by_tail += q.flushes_by_tail;
    o.leaves.replies_sent += c.replies_sent;
    o.leaves.replies_timely += c.replies_timely;
  }
  o.out_of_order = exp.transport().counters().out_of_order_packets;
  o.naks = exp.transport().counters().naks_sent;
  return o;
}

TEST(ConWeave, ReroutesAndDeliversInOrder) {
  for (uint64_t seed : {1, 2, 3}) {
    const Outcome o = run(seed);
    std::printf(
        "seed %llu: reroutes %llu, held %llu, flushes %llu (%llu by TAIL), probes %llu "
        "(%llu timely), out-of-order at the NIC %llu\n",
        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(o.leaves.reroutes),
        static_cast<unsigned long long>(o.leaves.held_packets),
        static_cast<unsigned long long>(o.leaves.flushes),
        static_cast<unsigned long long>(o.leaves.flushes_by_tail),
        static_cast<unsigned long long>(o.leaves.replies_sent),
        static_cast<unsigned long long>(o.leaves.replies_timely),
        static_cast<unsigned long long>(o.out_of_order));
    EXPECT_GT(o.leaves.reroutes, 0u) << "late RTT replies move flows";
    EXPECT_GT(o.leaves.held_packets, 0u) << "rerouted packets overtook their TAIL";
    EXPECT_EQ(o.leaves.flushes, o.leaves.flushes_by_tail) << "every TAIL arrived in time";
    EXPECT_GT(o.leaves.replies_timely, o.leaves.replies_sent / 2) << "a probe per epoch";
    EXPECT_EQ(o.out_of_order, 0u) << "the reorder queues hid every reordering";
    EXPECT_EQ(o.naks, 0u);
  }
}

}  // namespace
}  // namespace rocelab
