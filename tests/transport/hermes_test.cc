// Hermes (transport/hermes.h): senders move flows off a path whose RTT says it is
// congested, and at once off a path that keeps timing out, and leave good paths alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "test_util.h"
#include "transport/hermes.h"

namespace rocelab {
namespace {

struct Outcome {
  HermesPath::Counters counters;
  double slow_share = 0;  // of leaf 0's data bytes, toward spine 0
  Time last_finish;
  bool all_finished = false;
  uint64_t moves_off_fast = 0;  // flows placed on spine 1's path that later left it
  uint32_t placed_on_fast = 0;  // flows whose first path was spine 1's
};

// Two leaves, two spines, four hosts each; spine 0's link to leaf 1 runs at `slow_rate`.
// Hosts 0 .. flows - 1 each send `size` bytes to hosts 4 .. 3 + flows from time 0.
Outcome run(const std::string& policy, BitsPerSec slow_rate, uint64_t size,
            const std::string& fc = "pfc", int64_t buffer_bytes = 0,
            const std::string& cc = "dcqcn", uint64_t seed = 1, uint32_t flows = 4) {
  ExperimentSpec spec;
  spec.network.seed = seed;
  spec.topology = test::small_leaf_spine(2, 2, 4);
  EXPECT_EQ(spec.topology.set_link_rate("spine0", "leaf1", slow_rate), 1);
  spec.lb = "ecmp";
  spec.cc = cc;
  spec.fc = fc;
  if (buffer_bytes > 0) spec.network.switch_config.buffer_bytes = buffer_bytes;
  spec.transport.path_policy = policy;
  for (uint32_t i = 0; i < flows; ++i) spec.flows.push_back(test::flow(i, 4 + i, size));
  Experiment exp(spec);
  const Routing& r = exp.network().context().routing;
  const uint32_t leaf0 = r.edge_of_host(0), leaf1 = r.edge_of_host(4);
  const Node& leaf = exp.network().node(NodeId(leaf0));
  auto via_spine = [&](uint32_t path) {
    const PortId port = r.next_hops(leaf0, leaf1)[path];
    return leaf.port(port).peer()->id().index() == spec.topology.find("spine0") ? 0 : 1;
  };
  Outcome o;
  std::vector<int> first_spine(flows, -1);
  const auto* hermes = dynamic_cast<const HermesPath*>(&exp.transport().path_policy());
  RunStats st;
  for (int64_t t = 10'000'000; t <= Delta::from_ms(40).ps; t += 10'000'000) {
    st = exp.run(Time{t});
    if (hermes) {
      for (uint32_t i = 0; i < flows; ++i) {
        const uint32_t path = hermes->flow_path(FlowId(i));
        if (path == HermesPath::kNoPath) continue;
        const int spine = via_spine(path);
        if (first_spine[i] < 0) first_spine[i] = spine;
        if (first_spine[i] == 1 && spine == 0) {
          ++o.moves_off_fast;
          first_spine[i] = 2;  // count once
        }
      }
    }
    if (exp.transport().counters().flows_finished == flows) break;
  }
  o.all_finished = exp.transport().counters().flows_finished == flows;
  for (const int spine : first_spine) o.placed_on_fast += spine >= 1;
  for (const FlowRecord& rec : exp.transport().records())
    o.last_finish = std::max(o.last_finish, rec.finish);
  if (hermes) o.counters = hermes->counters();
  double bytes[2] = {0, 0};
  for (size_t p = 0; p < leaf.port_count(); ++p) {
    const EgressPort& port = leaf.port(PortId(static_cast<uint16_t>(p)));
    if (port.peer()->kind() != NodeKind::kSwitch) continue;
    bytes[port.peer()->id().index() == spec.topology.find("spine0") ? 0 : 1] +=
        static_cast<double>(port.counters().tx_data_bytes);
  }
  o.slow_share = bytes[0] / (bytes[0] + bytes[1]);
  return o;
}

// Over eight seeds (ECMP's hashes and Hermes' ties differ with each): where ECMP puts none to
// all four flows' bytes on the 10 Gb/s spine, Hermes keeps a small share there on every seed
// and moves flows off it on every seed, so its worst seed finishes well before ECMP's worst.
// It places new flows on unknown (gray) paths evenly, so a seed where ECMP hashes every flow
// onto the fast spine finishes sooner under ECMP. Flows that move to the fast spine can make
// it bad in turn (more flows on it), and one may then move to the slow spine, which looks
// better: Hermes' RTT test allows that, so it is printed, not asserted (next test).
TEST(Hermes, MovesFlowsOffACongestedPath) {
  constexpr uint64_t kSeeds = 8;
  double fixed_max_share = 0, hermes_max_share = 0;
  Time fixed_worst, hermes_worst;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const Outcome ecmp = run("fixed", gbps(10), 4'000'000, "pfc", 0, "dcqcn", seed);
    const Outcome hermes = run("hermes", gbps(10), 4'000'000, "pfc", 0, "dcqcn", seed);
    std::printf(
        "seed %llu: bytes via the 10G spine: fixed %.2f, hermes %.2f; last finish %.0f vs %.0f "
        "us; hermes placed %u of 4 flows on the fast path, reroutes %llu, moves off it %llu\n",
        static_cast<unsigned long long>(seed), ecmp.slow_share, hermes.slow_share,
        ecmp.last_finish.us(), hermes.last_finish.us(), hermes.placed_on_fast,
        static_cast<unsigned long long>(hermes.counters.reroutes_congestion),
        static_cast<unsigned long long>(hermes.moves_off_fast));
    ASSERT_TRUE(ecmp.all_finished && hermes.all_finished) << seed;
    EXPECT_EQ(hermes.counters.flows_placed, 4u) << seed;
    EXPECT_GT(hermes.counters.reroutes_congestion, 0u) << seed;
    fixed_max_share = std::max(fixed_max_share, ecmp.slow_share);
    hermes_max_share = std::max(hermes_max_share, hermes.slow_share);
    fixed_worst = std::max(fixed_worst, ecmp.last_finish);
    hermes_worst = std::max(hermes_worst, hermes.last_finish);
  }
  std::printf(
      "max share via the 10G spine: fixed %.2f, hermes %.2f; worst last finish %.0f vs "
      "%.0f us\n",
      fixed_max_share, hermes_max_share, fixed_worst.us(), hermes_worst.us());
  EXPECT_GE(fixed_max_share, 0.5) << "some seed hashes half the bytes onto the slow spine";
  EXPECT_LT(hermes_max_share, 0.3) << "10 of 110 Gb/s is 0.09 of the capacity";
  EXPECT_LT(hermes_worst.us() * 1.2, fixed_worst.us());
}

// One flow alone: on the fast spine its path stays good and it never moves; on the slow one
// (100 Gb/s into 10) its RTT makes the path bad and it moves to the fast one.
TEST(Hermes, LeavesAGoodPathAlone) {
  uint32_t placed_fast = 0, placed_slow = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const Outcome one = run("hermes", gbps(10), 4'000'000, "pfc", 0, "dcqcn", seed, 1);
    ASSERT_TRUE(one.all_finished) << seed;
    if (one.placed_on_fast == 1) {
      ++placed_fast;
      EXPECT_EQ(one.moves_off_fast, 0u) << seed;
      EXPECT_EQ(one.counters.reroutes_congestion, 0u) << seed;
      EXPECT_LT(one.slow_share, 0.01) << seed;
    } else {
      ++placed_slow;
      EXPECT_GT(one.counters.reroutes_congestion, 0u) << seed;
      EXPECT_LT(one.slow_share, 0.5) << seed;
    }
  }
  std::printf("one flow: placed on the fast spine on %u seeds, on the slow one on %u\n",
              placed_fast, placed_slow);
  EXPECT_GT(placed_fast, 0u);
  EXPECT_GT(placed_slow, 0u);
}

// R judges the rate the flow really sends at, not its congestion control's rate variable:
// without congestion control (or under a window like Swift's) that variable stays at line
// rate, and no flow would ever be rerouted.
TEST(Hermes, ReroutesWindowLimitedFlowsToo) {
  for (const char* cc : {"none", "swift"}) {
    const Outcome hermes = run("hermes", gbps(10), 4'000'000, "pfc", 0, cc);
    std::printf("%s: reroutes %llu, bytes via the 10G spine %.2f\n", cc,
                static_cast<unsigned long long>(hermes.counters.reroutes_congestion),
                hermes.slow_share);
    EXPECT_TRUE(hermes.all_finished) << cc;
    EXPECT_GT(hermes.counters.reroutes_congestion, 0u) << cc;
  }
}

TEST(Hermes, LeavesAPathThatKeepsTimingOut) {
  // A lossy fabric with 4 MB switch buffers and spine 0's link to leaf 1 at 500 Mb/s,
  // nearly dead: the packets sent that way are dropped or wait far beyond the 1 ms
  // retransmission timeout. Three timeouts mark the path failed and its flows move at
  // once. (A path that is dead both ways cannot be left this way: ACKs follow ECMP, so a
  // flow whose ACKs hash onto it never completes; with PFC the full queue would pause the
  // senders' NICs, every flow of theirs with it.)
  const Outcome hermes = run("hermes", mbps(500), 4'000'000, "none", 4'000'000);
  std::printf("failed path: reroutes off it %llu, last finish %.0f us\n",
              static_cast<unsigned long long>(hermes.counters.reroutes_failure),
              hermes.last_finish.us());
  EXPECT_TRUE(hermes.all_finished);
  EXPECT_GT(hermes.counters.reroutes_failure, 0u);
  const Outcome fixed = run("fixed", mbps(500), 4'000'000, "none", 4'000'000);
  EXPECT_FALSE(fixed.all_finished) << "flows hashed onto the slow path take over 100 ms";
}

}  // namespace
}  // namespace rocelab
