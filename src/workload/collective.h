// Collective communication as flows with dependencies (AI training traffic). A collective
// over a group of ranks (hosts, or the NICs of multi-NIC servers) expands into the
// point-to-point transfers of its algorithm, each waiting for the transfer that brings its
// input (a ring's step k+1 at rank i waits for step k's chunk into rank i). Every transfer
// is split over `channels` parallel QPs (NCCL's channels: each its own source port, so its
// own ECMP hash) and into `chunks` pipelined slices (chunk j of a step waits for chunk j of
// the step before). A job repeats the collective for `iterations`, each after a compute
// gap that starts when the rank has finished the previous iteration.
//
// Sizes follow nccl-tests (its PERFORMANCE.md): `size_bytes` is the per-rank buffer, so a
// ring all-reduce moves 2(n-1)/n x size out of every rank, an all-gather or reduce-scatter
// (n-1)/n x size, an all-to-all size/n to each peer, a broadcast size down a chain.
// What is not modelled: the GPUs' reduction time, and traffic inside a server (NVLink):
// with per_nic, each NIC index of the servers runs its own ring (tree, ...) over the
// servers with size / NICs of the data, as NCCL's rail-aligned channels do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"
#include "workload/flow_spec.h"

namespace rocelab {

enum class CollectiveOp : uint8_t {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kPipeline,  // pipeline-parallel activations forward and gradients back between stages
};
enum class CollectiveAlgorithm : uint8_t {
  kRing,
  kDoubleBinaryTree,  // NCCL 2.4: two complementary binary trees, half the data each
  kHalvingDoubling,   // Rabenseifner: recursive halving then doubling; ranks a power of 2
  kDirect,            // all-to-all: every pair at once
  kChain,             // broadcast: a pipelined chain from the root (NCCL's ring broadcast)
  kGpipe,             // pipeline: all micro-batches forward, then all backward (GPipe)
};
const char* collective_op_name(CollectiveOp op);
const char* collective_algorithm_name(CollectiveAlgorithm a);

// NCCL's bus-bandwidth factor (nccl-tests PERFORMANCE.md): busbw = algbw x factor.
double busbw_factor(CollectiveOp op, size_t ranks);

// One collective of a job's iteration: what it is, and how its transfers are cut.
struct CollectivePhase {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  uint64_t size_bytes = 0;    // per rank, as nccl-tests counts it
  uint32_t channels = 1;      // parallel QPs per peer
  uint32_t chunks = 1;        // pipeline slices per transfer
  uint32_t root = 0;          // broadcast: the root's rank index
  uint32_t microbatches = 1;  // pipeline
  Delta stage_compute;        // pipeline: per micro-batch and stage, before it is sent on
};

// A job: every iteration runs its first collective (these fields), then each of `then`,
// each at a rank once that rank's part of the one before is done.
struct CollectiveParams : CollectivePhase {
  std::vector<CollectivePhase> then;
  // Groups that run the collective side by side on a share of the data each (one group
  // unless per_nic); each lists host node ids in rank order.
  std::vector<std::vector<uint32_t>> groups;
  // Every message on a QP of its own (a source port each), not the connection's QP: each
  // message is then a new flow to every switch, as a library that opened a QP per message
  // would make it. Without it, a connection's messages are messages of one QP (one flow to
  // the switches, one PSN stream: RdmaTransport::add_flow's `qp`).
  bool qp_per_transfer = false;
  // QPs per connection (NCCL_IB_QPS_PER_CONNECTION, >= 1; 1 under qp_per_transfer). Each
  // message goes whole on the connection's QPs in turn, or, with split_data_on_qps
  // (NCCL_IB_SPLIT_DATA_ON_QPS=1), is cut into one piece per QP of equal size rounded up to
  // 128 B; a step's piece then waits for every piece of the chunk before it.
  uint32_t qps_per_connection = 1;
  bool split_data_on_qps = false;
  // Source ports are 10000 + (first_qp + the job's QP number) mod 50000: jobs sharing hosts
  // give theirs different first_qp, or their QPs would hash alike.
  uint32_t first_qp = 0;
  uint32_t iterations = 1;
  Delta compute;  // before every iteration, from when the rank finished the previous one
  Time start;
  std::string tag = "collective";
};

// One collective of a run (one phase of one iteration of a job): its flows are [first_flow,
// first_flow + flow_count) of the run's flow list, and step[i] is flow first_flow + i's depth in
// the collective's dependency graph (0: waits for nothing inside it).
struct CollectiveSpec {
  std::string job;  // the workload's name
  Time job_start;   // when the job started (its first compute gap began)
  uint32_t iteration = 0;
  uint32_t phase = 0;  // its place in the iteration (0: the first collective)
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  uint32_t ranks = 0;   // over all groups
  uint32_t groups = 1;  // collectives run side by side on a share each (per_nic)
  uint64_t size_bytes = 0;
  uint32_t first_flow = 0;
  uint32_t flow_count = 0;
  std::vector<uint32_t> step;
};

struct CollectiveFlows {
  std::vector<FlowSpec> flows;  // `after` indexes this list
  std::vector<CollectiveSpec> collectives;
};

// Throws std::invalid_argument naming the parameter (ranks too few, halving-doubling on
// a rank count that is not a power of two, a size that leaves a transfer empty, ...).
CollectiveFlows generate_collective(const CollectiveParams& p);

}  // namespace rocelab
