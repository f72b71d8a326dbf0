// The `collective` workload type (workload/collective.h): its keys, rank placement and
// the flows of its jobs.
#include "scenario/config/workload_collective.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "scenario/build/scenario_build.h"
#include "scenario/config/yaml_params.h"
#include "workload/collective.h"

namespace rocelab {

namespace {

const std::string kOps[] = {"all_reduce", "reduce_scatter", "all_gather",
                            "all_to_all", "broadcast",      "pipeline"};
const std::string kAlgorithms[] = {
    "default", "ring", "double_binary_tree", "halving_doubling", "direct", "chain", "gpipe"};
const std::string kPlacements[] = {"explicit", "packed", "spread", "random"};

CollectiveAlgorithm algorithm_of(const WorkloadConfig::CollectivePhase& w) {
  static const std::map<std::string, CollectiveAlgorithm> by_name = {
      {"ring", CollectiveAlgorithm::kRing},
      {"double_binary_tree", CollectiveAlgorithm::kDoubleBinaryTree},
      {"halving_doubling", CollectiveAlgorithm::kHalvingDoubling},
      {"direct", CollectiveAlgorithm::kDirect},
      {"chain", CollectiveAlgorithm::kChain},
      {"gpipe", CollectiveAlgorithm::kGpipe}};
  if (w.algorithm != "default") return by_name.at(w.algorithm);
  if (w.op == "all_to_all") return CollectiveAlgorithm::kDirect;
  if (w.op == "broadcast") return CollectiveAlgorithm::kChain;
  if (w.op == "pipeline") return CollectiveAlgorithm::kGpipe;
  return CollectiveAlgorithm::kRing;
}

// The server a host belongs to (its own id when it is not a NIC of a multi-NIC server).
uint64_t server_of(const TopologySpec& topo, uint32_t host) {
  const NodeSpec& n = topo.nodes[host];
  return n.server == NodeSpec::kNoServer ? (uint64_t{1} << 32) + host : n.server;
}

std::vector<uint32_t> place_ranks(const WorkloadConfig& w, const WorkloadContext& ctx) {
  std::vector<uint32_t> pool = resolve_hosts(ctx.topo, w.ranks, ctx.key + ".ranks");
  const size_t n = w.rank_count == 0 ? pool.size() : w.rank_count;
  if (n > pool.size())
    throw ConfigError(ctx.key + ".rank_count: " + std::to_string(n) + " ranks, but ranks names " +
                      std::to_string(pool.size()) + " hosts");
  if (w.placement == "explicit") {
    if (n != pool.size())
      throw ConfigError(ctx.key +
                        ".rank_count: placement explicit takes every host of ranks; "
                        "give a placement (packed, spread, random) to choose " +
                        std::to_string(n) + " of them");
    return pool;
  }
  if (w.placement == "random") {
    for (size_t i = 0; i < n; ++i) std::swap(pool[i], pool[i + ctx.rng.below(pool.size() - i)]);
  } else if (w.placement == "spread") {
    // Round robin over the servers (or edge switches), each in pool order.
    std::vector<std::pair<uint64_t, std::vector<uint32_t>>> bins;
    for (uint32_t h : pool) {
      const bool multi_nic = ctx.topo.nodes[h].server != NodeSpec::kNoServer;
      const uint64_t bin = multi_nic ? server_of(ctx.topo, h) : ctx.rack[h];
      auto it =
          std::find_if(bins.begin(), bins.end(), [&](const auto& b) { return b.first == bin; });
      if (it == bins.end()) {
        bins.emplace_back(bin, std::vector<uint32_t>{});
        it = bins.end() - 1;
      }
      it->second.push_back(h);
    }
    std::vector<uint32_t> order;
    for (size_t round = 0; order.size() < pool.size(); ++round)
      for (const auto& b : bins)
        if (round < b.second.size()) order.push_back(b.second[round]);
    pool = std::move(order);
  }
  pool.resize(n);
  return pool;
}

// per_nic: one group per NIC index, each ordered by server.
std::vector<std::vector<uint32_t>> nic_groups(const std::vector<uint32_t>& ranks,
                                              const WorkloadContext& ctx) {
  std::map<uint16_t, std::vector<uint32_t>> by_nic;
  for (uint32_t h : ranks) {
    if (ctx.topo.nodes[h].server == NodeSpec::kNoServer)
      throw ConfigError(ctx.key + ".per_nic: host " + ctx.topo.nodes[h].name +
                        " is not a NIC of a multi-NIC server (a rail topology has them)");
    by_nic[ctx.topo.nodes[h].nic].push_back(h);
  }
  std::vector<std::vector<uint32_t>> groups;
  for (auto& [nic, hosts] : by_nic) {
    std::stable_sort(hosts.begin(), hosts.end(), [&](uint32_t a, uint32_t b) {
      return ctx.topo.nodes[a].server < ctx.topo.nodes[b].server;
    });
    groups.push_back(std::move(hosts));
  }
  return groups;
}

}  // namespace

namespace {

using Phase = WorkloadConfig::CollectivePhase;

// The keys of one collective: the workload's own (its first) and each of `then`.
void describe_phase(ParamVisitor& v, Phase& c) {
  v.choice("op", c.op, kOps, "the collective (pipeline: pipeline-parallel send/recv)");
  v.choice("algorithm", c.algorithm, kAlgorithms,
           "all_reduce: ring, double_binary_tree (NCCL 2.4) or halving_doubling; all_to_all: "
           "direct; broadcast: chain; pipeline: gpipe; others: ring. default: the first");
  v.bytes("size", c.size_bytes, 1, kNoLimit,
          "bytes per rank as nccl-tests counts them (pipeline: per micro-batch and hop)");
  v.count("channels", c.channels, 1, 64, "parallel QPs per peer (NCCL channels)");
  v.count("chunks", c.chunks, 1, 1 << 20, "pipelined slices of every transfer");
  if (c.op == "broadcast") v.count("root", c.root, 0, 1000000, "the root's rank index");
  if (c.op == "pipeline") {
    v.count("microbatches", c.microbatches, 1, 1 << 16, "micro-batches per iteration");
    v.duration("stage_compute", c.stage_compute, Delta::zero(), Delta::max(),
               "a stage's compute per micro-batch, before it sends on");
  }
}

CollectivePhase phase_of(const Phase& c) {
  CollectivePhase ph;
  ph.op = static_cast<CollectiveOp>(std::find(std::begin(kOps), std::end(kOps), c.op) -
                                    std::begin(kOps));
  ph.algorithm = algorithm_of(c);
  ph.size_bytes = static_cast<uint64_t>(c.size_bytes);
  ph.channels = c.channels;
  ph.chunks = c.chunks;
  ph.root = c.root;
  ph.microbatches = c.microbatches;
  ph.stage_compute = c.stage_compute;
  return ph;
}

}  // namespace

void describe_collective_workload(ParamVisitor& v, WorkloadConfig& w) {
  describe_phase(v, w.collective);
  size_t n = w.then.size();
  v.list(
      "then", n, [&](size_t k) { w.then.resize(k); },
      [&](ParamVisitor& item, size_t i) { describe_phase(item, w.then[i]); },
      "collectives that follow the first in every iteration, in order, each at a rank once "
      "the rank's part of the one before is done (op, algorithm, size, channels, chunks, ...)");
  v.text_list("ranks", w.ranks, "hosts (NICs) the job may run on, in rank order for explicit");
  v.count("rank_count", w.rank_count, 0, 1000000, "ranks to place from them (0: all)");
  v.choice("placement", w.placement, kPlacements,
           "explicit: ranks as listed; packed: the first ones; spread: round robin over "
           "servers (multi-NIC) or edge switches; random: drawn from the run's seed");
  v.flag("per_nic", w.per_nic,
         "multi-NIC servers: one collective per NIC index over the servers, size / NICs each "
         "(NCCL's rail-aligned channels; traffic inside a server is not modelled)");
  v.flag("qp_per_transfer", w.qp_per_transfer,
         "every message on a QP of its own instead of its connection's: each message a new "
         "flow (a new source port, a new congestion control state) to every switch");
  v.count("qps_per_connection", w.qps_per_connection, 1, 64,
          "QPs of every connection (NCCL_IB_QPS_PER_CONNECTION), each its own source port");
  v.flag("split_data_on_qps", w.split_data_on_qps,
         "cut every message into one piece per QP of the connection, equal and rounded up to "
         "128 B (NCCL_IB_SPLIT_DATA_ON_QPS=1); else whole messages take the QPs in turn");
  v.count("iterations", w.iterations, 1, 1 << 20, "times the job runs its collectives");
  v.duration("compute", w.compute, Delta::zero(), Delta::max(),
             "compute gap before every iteration, from when the rank finished the last");
  v.duration("start", w.start, Delta::zero(), Delta::max(), "when the job starts");
}

std::vector<FlowSpec> generate_collective_workload(const WorkloadConfig& w,
                                                   const WorkloadContext& ctx) {
  CollectiveParams p;
  static_cast<CollectivePhase&>(p) = phase_of(w.collective);
  for (const Phase& c : w.then) p.then.push_back(phase_of(c));
  const std::vector<uint32_t> ranks = place_ranks(w, ctx);
  if (w.per_nic) {
    p.groups = nic_groups(ranks, ctx);
  } else {
    p.groups = {ranks};
  }
  p.qp_per_transfer = w.qp_per_transfer;
  if (w.qp_per_transfer && w.qps_per_connection > 1)
    throw ConfigError(ctx.key +
                      ".qps_per_connection: needs the connections' QPs; qp_per_transfer gives "
                      "every message a QP of its own");
  p.qps_per_connection = w.qps_per_connection;
  p.split_data_on_qps = w.split_data_on_qps;
  // Each workload's QPs from its own source ports (a prime stride keeps jobs apart).
  p.first_qp = static_cast<uint32_t>(ctx.index * 4999 % 50000);
  p.iterations = w.iterations;
  p.compute = w.compute;
  p.start = Time::zero() + w.start;
  p.tag = w.name;
  CollectiveFlows out;
  try {
    out = generate_collective(p);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(ctx.key + "." + e.what());
  }
  if (out.flows.size() > 50'000'000)
    throw ConfigError(ctx.key + ".iterations: " + std::to_string(out.flows.size()) +
                      " flows would be generated; more than 50 million is refused");
  for (CollectiveSpec& c : out.collectives) ctx.collectives.push_back(std::move(c));
  return std::move(out.flows);
}

}  // namespace rocelab
