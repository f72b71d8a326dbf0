// The collective generator (workload/collective.h): flows, sizes and dependencies counted by
// hand for small rank counts.
#include "workload/collective.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace rocelab {
namespace {

CollectiveParams params(CollectiveOp op, CollectiveAlgorithm a, uint32_t n, uint64_t size) {
  CollectiveParams p;
  p.op = op;
  p.algorithm = a;
  p.groups = {{}};
  for (uint32_t i = 0; i < n; ++i) p.groups[0].push_back(100 + i);  // host ids 100..
  p.size_bytes = size;
  return p;
}

TEST(Collective, RingAllReduceStepsSizesAndDependencies) {
  // 4 ranks, 4000 B: 2(n-1) = 6 steps of one 1000 B block per rank.
  const CollectiveFlows c =
      generate_collective(params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 4000));
  ASSERT_EQ(c.flows.size(), 24u);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].flow_count, 24u);
  std::map<uint32_t, uint64_t> sent;
  for (uint32_t s = 0; s < 6; ++s)
    for (uint32_t i = 0; i < 4; ++i) {
      const FlowSpec& f = c.flows[s * 4 + i];
      EXPECT_EQ(f.src_host, 100 + i);
      EXPECT_EQ(f.dst_host, 100 + (i + 1) % 4);
      EXPECT_EQ(f.size_bytes, 1000u);
      EXPECT_EQ(c.collectives[0].step[s * 4 + i], s);
      sent[f.src_host] += f.size_bytes;
      if (s == 0) {
        EXPECT_TRUE(f.after.empty());
        EXPECT_FALSE(f.behind.has_value());
      } else {
        // Rank i's step s waits for the block rank i-1 sent it in step s-1, and follows its
        // own step s-1 on their QP.
        ASSERT_EQ(f.after.size(), 1u);
        EXPECT_EQ(f.after[0], (s - 1) * 4 + (i + 3) % 4);
        EXPECT_EQ(f.behind, (s - 1) * 4 + i);
      }
    }
  for (const auto& [host, bytes] : sent) EXPECT_EQ(bytes, 2u * 3 * 4000 / 4);  // 2(n-1)/n x S
}

TEST(Collective, ReduceScatterAndAllGatherAreHalfARing) {
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    const CollectiveFlows c = generate_collective(params(op, CollectiveAlgorithm::kRing, 5, 5000));
    EXPECT_EQ(c.flows.size(), 4u * 5);  // n - 1 steps
    uint64_t bytes = 0;
    for (const FlowSpec& f : c.flows) bytes += f.size_bytes;
    EXPECT_EQ(bytes, 4u * 5000);  // (n-1)/n x S from each of n ranks
  }
}

TEST(Collective, AllToAllHandCount) {
  // 5 ranks, 5000 B: every ordered pair once, 1000 B each, all at once; split over 2
  // channels x 3 chunks every pair's 1000 B make 6 flows of 167/167/166 or 166 B.
  CollectiveParams p = params(CollectiveOp::kAllToAll, CollectiveAlgorithm::kDirect, 5, 5000);
  CollectiveFlows c = generate_collective(p);
  ASSERT_EQ(c.flows.size(), 20u);
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const FlowSpec& f : c.flows) {
    EXPECT_NE(f.src_host, f.dst_host);
    EXPECT_EQ(f.size_bytes, 1000u);
    EXPECT_TRUE(f.after.empty());
    pairs.emplace(f.src_host, f.dst_host);
  }
  EXPECT_EQ(pairs.size(), 20u);
  p.channels = 2;
  p.chunks = 3;
  c = generate_collective(p);
  ASSERT_EQ(c.flows.size(), 120u);
  uint64_t bytes = 0;
  std::set<uint16_t> ports;
  for (const FlowSpec& f : c.flows) {
    bytes += f.size_bytes;
    EXPECT_TRUE(f.size_bytes == 166 || f.size_bytes == 167) << f.size_bytes;
    ports.insert(*f.sport);
  }
  EXPECT_EQ(bytes, 20u * 1000);
  EXPECT_EQ(ports.size(), 40u);  // one QP (source port) per pair and channel
  // The chunks of one QP follow one another; the first of each does not wait.
  EXPECT_FALSE(c.flows[0].behind.has_value());
  EXPECT_EQ(c.flows[1].behind, 0u);
  EXPECT_EQ(c.flows[2].behind, 1u);
  EXPECT_FALSE(c.flows[3].behind.has_value());  // channel 1's first chunk
}

TEST(Collective, HalvingDoublingSizesAndPartners) {
  const CollectiveFlows c = generate_collective(
      params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 8000));
  ASSERT_EQ(c.flows.size(), 6u * 8);  // log2(8) halving + log2(8) doubling steps
  const uint64_t sizes[] = {4000, 2000, 1000, 1000, 2000, 4000};
  const uint32_t distance[] = {4, 2, 1, 1, 2, 4};
  for (uint32_t s = 0; s < 6; ++s)
    for (uint32_t i = 0; i < 8; ++i) {
      const FlowSpec& f = c.flows[s * 8 + i];
      EXPECT_EQ(f.size_bytes, sizes[s]);
      EXPECT_EQ(f.dst_host - 100, i ^ distance[s]);
      // It waits for what arrived at rank i in every step before, from each partner.
      std::vector<uint32_t> before;
      for (uint32_t t = 0; t < s; ++t) before.push_back(t * 8 + (i ^ distance[t]));
      EXPECT_EQ(f.after, before);
    }
  EXPECT_THROW(generate_collective(params(CollectiveOp::kAllReduce,
                                          CollectiveAlgorithm::kHalvingDoubling, 6, 6000)),
               std::invalid_argument);
}

TEST(Collective, DoubleBinaryTreeRanksAreInteriorInOneTreeOnly) {
  for (uint32_t n : {8u, 7u, 16u}) {
    const CollectiveFlows c = generate_collective(
        params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree, n, 2000 * n));
    // Each tree: n - 1 edges, once up and once down.
    ASSERT_EQ(c.flows.size(), 2u * 2 * (n - 1));
    // Down flows carry the reduced half back: count children per tree (flows out of a rank
    // that waited for a flow into it from its parent or, at the root, from its children).
    std::map<uint32_t, int> up_sent[2], children[2];
    const size_t per_tree = 2 * (n - 1);
    for (size_t t = 0; t < 2; ++t)
      for (size_t k = 0; k < per_tree; ++k) {
        const FlowSpec& f = c.flows[t * per_tree + k];
        EXPECT_EQ(f.size_bytes, 1000u * n);  // half of 2000n
        if (k < n - 1) {
          ++up_sent[t][f.src_host];
        } else {
          ++children[t][f.src_host];
        }
      }
    for (size_t t = 0; t < 2; ++t) {
      EXPECT_EQ(up_sent[t].size(), n - 1) << "every rank but the root sends up once";
      for (const auto& [r, k] : children[t]) EXPECT_LE(k, 2) << "a binary tree";
    }
    // The trees run on QPs of their own: no source port serves both.
    std::set<uint16_t> ports[2];
    for (size_t t = 0; t < 2; ++t)
      for (size_t k = 0; k < per_tree; ++k) ports[t].insert(*c.flows[t * per_tree + k].sport);
    for (uint16_t port : ports[0]) EXPECT_EQ(ports[1].count(port), 0u) << port;
    if (n % 2 == 0) {
      // NCCL 2.4: mirrored trees, so no rank has two children in both trees.
      for (const auto& [r, k] : children[0])
        if (k == 2) {
          EXPECT_EQ(children[1].count(r), 0u) << "rank " << r << " of " << n;
        }
    }
  }
}

TEST(Collective, BroadcastChainAndPipeline) {
  CollectiveParams b = params(CollectiveOp::kBroadcast, CollectiveAlgorithm::kChain, 4, 3000);
  b.root = 2;
  b.chunks = 3;
  const CollectiveFlows c = generate_collective(b);
  ASSERT_EQ(c.flows.size(), 9u);  // 3 hops x 3 chunks
  EXPECT_EQ(c.flows[0].src_host, 102u);
  EXPECT_EQ(c.flows[8].dst_host, 101u);
  EXPECT_EQ(c.flows[4].after, std::vector<uint32_t>{1});  // hop 1 chunk 1 after hop 0 chunk 1

  CollectiveParams p = params(CollectiveOp::kPipeline, CollectiveAlgorithm::kGpipe, 3, 500);
  p.microbatches = 2;
  p.stage_compute = Delta::from_us(5);
  const CollectiveFlows q = generate_collective(p);
  ASSERT_EQ(q.flows.size(), 8u);  // (forward + backward) x 2 hops x 2 micro-batches
  // Micro-batch 1's first backward hop waits for its own forward and micro-batch 0's backward.
  EXPECT_EQ(q.flows[4].src_host, 102u);
  EXPECT_EQ(q.flows[4].after, std::vector<uint32_t>{3});  // the last forward
  EXPECT_EQ(q.flows[6].after, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(q.flows[6].after_delay, Delta::from_us(5));
}

TEST(Collective, IterationsWaitForTheRanksLastStepAndTheComputeGap) {
  CollectiveParams p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 3, 3000);
  p.iterations = 2;
  p.compute = Delta::from_us(50);
  p.start = Time::zero() + Delta::from_us(10);
  const CollectiveFlows c = generate_collective(p);
  ASSERT_EQ(c.collectives.size(), 2u);
  EXPECT_EQ(c.collectives[1].first_flow, 12u);
  // Iteration 0 starts after the first compute gap.
  EXPECT_EQ(c.flows[0].start, Time::zero() + Delta::from_us(60));
  // Iteration 1's rank 0 waits for its last step's flows (out to rank 1, in from rank 2).
  const FlowSpec& next = c.flows[12];
  EXPECT_EQ(next.after, (std::vector<uint32_t>{9, 11}));
  EXPECT_EQ(next.after_delay, Delta::from_us(50));
  EXPECT_EQ(next.behind, 9u);  // and rank 0 -> 1 is the same QP
}

TEST(Collective, PhasesFollowEachOtherAtEachRankAndShareTheQps) {
  // FSDP-like: every iteration an all-gather, then a reduce-scatter; 3 ranks, 2 steps each.
  CollectiveParams p = params(CollectiveOp::kAllGather, CollectiveAlgorithm::kRing, 3, 3000);
  CollectivePhase rs;
  rs.op = CollectiveOp::kReduceScatter;
  rs.size_bytes = 6000;
  p.then = {rs};
  p.iterations = 2;
  p.compute = Delta::from_us(20);
  const CollectiveFlows c = generate_collective(p);
  ASSERT_EQ(c.collectives.size(), 4u);
  EXPECT_EQ(c.collectives[1].phase, 1u);
  EXPECT_EQ(c.collectives[1].op, CollectiveOp::kReduceScatter);
  EXPECT_EQ(c.collectives[2].iteration, 1u);
  EXPECT_EQ(c.collectives[2].phase, 0u);
  // The reduce-scatter's first flow from rank 0 (flow 6) waits for rank 0's last all-gather
  // step (out to rank 1: flow 3; in from rank 2: flow 5), with no compute gap, and follows
  // flow 3 on their shared QP; its block is 6000 / 3.
  const FlowSpec& f = c.flows[6];
  EXPECT_EQ(f.src_host, 100u);
  EXPECT_EQ(f.size_bytes, 2000u);
  EXPECT_EQ(f.after, (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(f.after_delay, Delta::zero());
  EXPECT_EQ(f.behind, 3u);
  EXPECT_EQ(f.sport, c.flows[0].sport);
  // The next iteration's all-gather waits for the reduce-scatter, after the compute gap.
  const FlowSpec& g = c.flows[12];
  EXPECT_EQ(g.after, (std::vector<uint32_t>{9, 11}));
  EXPECT_EQ(g.after_delay, Delta::from_us(20));
  // A phase that cannot run is named by its place.
  CollectivePhase bad;
  bad.op = CollectiveOp::kAllToAll;  // with the ring algorithm
  p.then = {rs, bad};
  try {
    generate_collective(p);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("then.1.algorithm: ring does not run all_to_all", 0), 0u)
        << e.what();
  }
}

TEST(Collective, ADoubleTreesNextIterationWaitsForBothTrees) {
  // 8 ranks: rank 4 is interior in the first tree and a leaf in the second; its next
  // iteration must wait for both trees' last flows into or out of it.
  CollectiveParams p =
      params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree, 8, 16000);
  p.iterations = 2;
  const CollectiveFlows c = generate_collective(p);
  const uint32_t per_iteration = c.collectives[0].flow_count;
  const size_t per_tree = per_iteration / 2;
  for (uint32_t f = per_iteration; f < c.flows.size(); ++f) {
    if (c.flows[f].src_host != 104 || c.flows[f].after.empty()) continue;
    if (c.flows[f].after.front() >= per_iteration) continue;  // waits inside its iteration
    bool tree[2] = {false, false};
    for (uint32_t a : c.flows[f].after) tree[a / per_tree] = true;
    EXPECT_TRUE(tree[0] && tree[1]) << "flow " << f;
  }
}

TEST(Collective, PerNicGroupsMustBeAlike) {
  CollectiveParams p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 4000);
  p.groups.push_back({200, 201});
  EXPECT_THROW(generate_collective(p), std::invalid_argument);
}

TEST(Collective, QpPerTransferMakesEveryMessageANewFlow) {
  CollectiveParams p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 4000);
  p.qp_per_transfer = true;
  const CollectiveFlows c = generate_collective(p);
  std::set<uint16_t> ports;
  for (const FlowSpec& f : c.flows) {
    ports.insert(*f.sport);
    EXPECT_FALSE(f.behind.has_value());
  }
  EXPECT_EQ(ports.size(), c.flows.size());
}

TEST(Collective, RefusesWhatCannotRun) {
  auto p = params(CollectiveOp::kAllToAll, CollectiveAlgorithm::kRing, 4, 4000);
  EXPECT_THROW(generate_collective(p), std::invalid_argument);  // all_to_all is direct
  p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 1, 4000);
  EXPECT_THROW(generate_collective(p), std::invalid_argument);  // one rank
  p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 3);
  EXPECT_THROW(generate_collective(p), std::invalid_argument);  // an empty block
  p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 4000);
  p.groups[0][1] = p.groups[0][0];
  EXPECT_THROW(generate_collective(p), std::invalid_argument);  // a host twice
}

TEST(Collective, BusBandwidthFactorsAsNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::kAllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::kBroadcast, 8), 1.0);
}

// NCCL_IB_QPS_PER_CONNECTION = 2, messages whole (NCCL_IB_SPLIT_DATA_ON_QPS = 0): a
// connection's messages take its two QPs in turn. 2 ranks, 4000 B, 2 chunks: rank 0 sends
// flows 0, 1 (step 0) and 4, 5 (step 1), 1000 B each, on QPs 0, 1, 0, 1.
TEST(Collective, AConnectionsMessagesTakeItsQpsInTurn) {
  CollectiveParams p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 2, 4000);
  p.chunks = 2;
  p.qps_per_connection = 2;
  const CollectiveFlows c = generate_collective(p);
  ASSERT_EQ(c.flows.size(), 8u);
  const auto& f = c.flows;
  for (uint32_t i : {0u, 1u, 4u, 5u}) {
    EXPECT_EQ(f[i].src_host, 100u);
    EXPECT_EQ(f[i].size_bytes, 1000u);
  }
  EXPECT_NE(f[0].sport, f[1].sport) << "two QPs, two source ports";
  EXPECT_EQ(f[4].sport, f[0].sport);
  EXPECT_EQ(f[5].sport, f[1].sport);
  EXPECT_FALSE(f[0].qp.has_value());
  EXPECT_FALSE(f[1].qp.has_value()) << "the first message of the second QP";
  EXPECT_EQ(f[4].qp, 0u);
  EXPECT_EQ(f[5].qp, 1u);
  EXPECT_FALSE(f[1].behind.has_value()) << "on a QP of its own: beside flow 0, not behind it";
  EXPECT_EQ(f[4].behind, 0u);
  EXPECT_EQ(f[5].behind, 1u);
}

// NCCL_IB_SPLIT_DATA_ON_QPS = 1: each message in one piece per QP, equal and rounded up to
// 128 B. 2 ranks, 4000 B: a step's 2000 B become ceil(2000 / 2) = 1000 -> 1024 B and 976 B,
// and each piece of step 1 waits for both pieces of step 0.
TEST(Collective, SplitDataOnQpsCutsEveryMessageIntoAPiecePerQp) {
  CollectiveParams p = params(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 2, 4000);
  p.qps_per_connection = 2;
  p.split_data_on_qps = true;
  const CollectiveFlows c = generate_collective(p);
  ASSERT_EQ(c.flows.size(), 8u);
  const auto& f = c.flows;
  EXPECT_EQ(f[0].size_bytes, 1024u);
  EXPECT_EQ(f[1].size_bytes, 976u);
  EXPECT_NE(f[0].sport, f[1].sport);
  // Flows 4, 5: rank 0's step 1, after rank 1's step 0 (flows 2, 3) is delivered.
  EXPECT_EQ(f[4].src_host, 100u);
  EXPECT_EQ(f[4].after, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(f[5].after, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(f[4].qp, 0u);
  EXPECT_EQ(f[5].qp, 1u);
  EXPECT_EQ(c.collectives[0].step[4], 1u);
  uint64_t bytes = 0;
  for (const FlowSpec& x : f) bytes += x.size_bytes;
  EXPECT_EQ(bytes, 2u * 2 * 2000) << "2 ranks x 2 steps x 2000 B, no byte lost to rounding";
}

}  // namespace
}  // namespace rocelab
