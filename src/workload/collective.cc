#include "workload/collective.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace rocelab {

namespace {

// One point-to-point transfer of an algorithm, between rank indices of one group; `after`
// indexes the group's transfers.
struct Transfer {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t bytes = 0;
  std::vector<uint32_t> after;
  uint32_t lane = 0;  // transfers of different lanes (a double tree's trees) use their own QPs
};

// Byte b of n equal shares of `total` (the first total % n shares one byte larger).
uint64_t share(uint64_t total, uint64_t n, uint64_t b) {
  return total / n + (b < total % n);
}

// Ring (NCCL): at step s rank i sends block (i - s) mod n to rank i + 1, once the block of
// step s - 1 has arrived from rank i - 1. All-reduce: n - 1 reduce-scatter steps then n - 1
// all-gather steps; reduce-scatter and all-gather: n - 1 steps.
std::vector<Transfer> ring(uint32_t n, uint64_t bytes, uint32_t steps) {
  std::vector<Transfer> t;
  for (uint32_t s = 0; s < steps; ++s)
    for (uint32_t i = 0; i < n; ++i) {
      Transfer x{i, (i + 1) % n, share(bytes, n, (i + n - s % n) % n), {}, 0};
      if (s > 0) x.after.push_back((s - 1) * n + (i + n - 1) % n);
      t.push_back(std::move(x));
    }
  return t;
}

// The parent of every rank in NCCL's in-order binary tree (NCCL 2.4 "double binary
// trees"): rank r with lowest set bit b hangs off r with b cleared and 2b set, or with b
// cleared alone when that is out of range; rank 0 is the root. UINT32_MAX: none.
std::vector<uint32_t> binary_tree_parents(uint32_t n) {
  std::vector<uint32_t> parent(n, UINT32_MAX);
  for (uint32_t r = 1; r < n; ++r) {
    const uint32_t b = r & (~r + 1);
    const uint32_t up = (r ^ b) | (b << 1);
    parent[r] = up < n ? up : r ^ b;
  }
  return parent;
}

// Reduce up the tree, then broadcast down it: a rank sends up once every child's data has
// arrived; the root turns around; a rank sends down once its parent's has arrived.
void tree_transfers(const std::vector<uint32_t>& parent, uint64_t bytes, uint32_t lane,
                    std::vector<Transfer>& t) {
  const uint32_t n = static_cast<uint32_t>(parent.size());
  std::vector<std::vector<uint32_t>> children(n);
  uint32_t root = 0;
  for (uint32_t r = 0; r < n; ++r) {
    if (parent[r] == UINT32_MAX) {
      root = r;
    } else {
      children[parent[r]].push_back(r);
    }
  }
  // Post-order for the reduction (children before parents), pre-order for the broadcast.
  std::vector<uint32_t> up_of(n, UINT32_MAX), order;
  std::vector<uint32_t> stack{root};
  while (!stack.empty()) {
    const uint32_t r = stack.back();
    stack.pop_back();
    order.push_back(r);
    for (uint32_t c : children[r]) stack.push_back(c);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t r = *it;
    if (r == root) continue;
    Transfer x{r, parent[r], bytes, {}, lane};
    for (uint32_t c : children[r]) x.after.push_back(up_of[c]);
    up_of[r] = static_cast<uint32_t>(t.size());
    t.push_back(std::move(x));
  }
  std::vector<uint32_t> down_into(n, UINT32_MAX);
  for (uint32_t r : order)
    for (uint32_t c : children[r]) {
      Transfer x{r, c, bytes, {}, lane};
      if (r == root) {
        for (uint32_t k : children[root]) x.after.push_back(up_of[k]);
      } else {
        x.after.push_back(down_into[r]);
      }
      down_into[c] = static_cast<uint32_t>(t.size());
      t.push_back(std::move(x));
    }
}

// Two trees with half the data each; the second mirrors the first (n even) or shifts it by
// one rank (n odd), so that a rank is a leaf in at least one of them (NCCL 2.4).
std::vector<Transfer> double_binary_tree(uint32_t n, uint64_t bytes) {
  const std::vector<uint32_t> first = binary_tree_parents(n);
  std::vector<uint32_t> second(n, UINT32_MAX);
  for (uint32_t r = 0; r < n; ++r) {
    const uint32_t pos = n % 2 == 0 ? n - 1 - r : (r + n - 1) % n;
    if (first[pos] == UINT32_MAX) continue;
    second[r] = n % 2 == 0 ? n - 1 - first[pos] : (first[pos] + 1) % n;
  }
  std::vector<Transfer> t;
  tree_transfers(first, share(bytes, 2, 0), 0, t);
  tree_transfers(second, share(bytes, 2, 1), 1, t);
  return t;
}

// Rabenseifner: log2 n steps of recursive halving (step j: partner at distance n / 2^(j+1),
// half of what the rank still reduces, size / 2^(j+1)), then the same steps in reverse
// order gathering. What a rank sends holds every earlier step's data: each send waits for
// what arrived at its rank in every step before (from different partners, so no chain
// through one of them stands in for the others).
std::vector<Transfer> halving_doubling(uint32_t n, uint64_t bytes) {
  uint32_t log = 0;
  while ((1u << log) < n) ++log;
  std::vector<uint32_t> distance;
  std::vector<uint64_t> sizes;
  for (uint32_t j = 0; j < log; ++j) {
    distance.push_back(n >> (j + 1));
    sizes.push_back(bytes >> (j + 1));
  }
  for (uint32_t j = log; j-- > 0;) {
    distance.push_back(n >> (j + 1));
    sizes.push_back(bytes >> (j + 1));
  }
  std::vector<Transfer> t;
  for (uint32_t s = 0; s < distance.size(); ++s)
    for (uint32_t i = 0; i < n; ++i) {
      Transfer x{i, i ^ distance[s], sizes[s], {}, 0};
      for (uint32_t before = 0; before < s; ++before)
        x.after.push_back(before * n + (i ^ distance[before]));
      t.push_back(std::move(x));
    }
  return t;
}

// Every rank to every other at once, block j to rank j, peers in NCCL's order (i+1, i+2..).
std::vector<Transfer> all_to_all(uint32_t n, uint64_t bytes) {
  std::vector<Transfer> t;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 1; k < n; ++k)
      t.push_back(Transfer{i, (i + k) % n, share(bytes, n, (i + k) % n), {}, 0});
  return t;
}

// A chain from the root through the ranks in order; chunks pipeline it.
std::vector<Transfer> chain(uint32_t n, uint64_t bytes, uint32_t root) {
  std::vector<Transfer> t;
  for (uint32_t h = 0; h + 1 < n; ++h) {
    Transfer x{(root + h) % n, (root + h + 1) % n, bytes, {}, 0};
    if (h > 0) x.after.push_back(h - 1);
    t.push_back(std::move(x));
  }
  return t;
}

// GPipe: micro-batch b's activations go stage j -> j+1 once they arrived at j and j sent
// b - 1; the gradients come back once the last stage has every micro-batch's activations.
std::vector<Transfer> gpipe(uint32_t n, uint64_t bytes, uint32_t microbatches) {
  std::vector<Transfer> t;
  const uint32_t hops = n - 1;
  auto fwd = [&](uint32_t b, uint32_t j) { return b * hops + j; };
  for (uint32_t b = 0; b < microbatches; ++b)
    for (uint32_t j = 0; j < hops; ++j) {
      Transfer x{j, j + 1, bytes, {}, 0};
      if (j > 0) x.after.push_back(fwd(b, j - 1));
      if (b > 0) x.after.push_back(fwd(b - 1, j));
      t.push_back(std::move(x));
    }
  const uint32_t first_bwd = microbatches * hops;
  auto bwd = [&](uint32_t b, uint32_t k) {
    return first_bwd + b * hops + k;
  };  // k: hop from the end
  for (uint32_t b = 0; b < microbatches; ++b)
    for (uint32_t k = 0; k < hops; ++k) {
      const uint32_t from = n - 1 - k;
      Transfer x{from, from - 1, bytes, {}, 0};
      x.after.push_back(k > 0 ? bwd(b, k - 1) : fwd(microbatches - 1, hops - 1));
      if (b > 0) x.after.push_back(bwd(b - 1, k));
      t.push_back(std::move(x));
    }
  return t;
}

std::vector<Transfer> transfers(const CollectivePhase& p, uint32_t n, uint64_t bytes) {
  using A = CollectiveAlgorithm;
  switch (p.op) {
    case CollectiveOp::kAllReduce:
      if (p.algorithm == A::kDoubleBinaryTree) return double_binary_tree(n, bytes);
      if (p.algorithm == A::kHalvingDoubling) return halving_doubling(n, bytes);
      return ring(n, bytes, 2 * (n - 1));
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      return ring(n, bytes, n - 1);
    case CollectiveOp::kAllToAll:
      return all_to_all(n, bytes);
    case CollectiveOp::kBroadcast:
      return chain(n, bytes, p.root);
    case CollectiveOp::kPipeline:
      return gpipe(n, bytes, p.microbatches);
  }
  return {};
}

bool algorithm_fits(CollectiveOp op, CollectiveAlgorithm a) {
  using A = CollectiveAlgorithm;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return a == A::kRing || a == A::kDoubleBinaryTree || a == A::kHalvingDoubling;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      return a == A::kRing;
    case CollectiveOp::kAllToAll:
      return a == A::kDirect;
    case CollectiveOp::kBroadcast:
      return a == A::kChain;
    case CollectiveOp::kPipeline:
      return a == A::kGpipe;
  }
  return false;
}

void check_phase(const CollectivePhase& ph, const CollectiveParams& p) {
  if (!algorithm_fits(ph.op, ph.algorithm))
    throw std::invalid_argument(std::string("algorithm: ") +
                                collective_algorithm_name(ph.algorithm) + " does not run " +
                                collective_op_name(ph.op));
  for (const auto& g : p.groups) {
    if (ph.algorithm == CollectiveAlgorithm::kHalvingDoubling && (g.size() & (g.size() - 1)))
      throw std::invalid_argument(
          "algorithm: halving_doubling needs a power-of-two rank count, not " +
          std::to_string(g.size()));
    if (ph.op == CollectiveOp::kBroadcast && ph.root >= g.size())
      throw std::invalid_argument("root: " + std::to_string(ph.root) +
                                  " is not a rank index (0 .. " + std::to_string(g.size() - 1) +
                                  ")");
  }
  if (ph.channels == 0 || ph.chunks == 0 || ph.microbatches == 0)
    throw std::invalid_argument("channels, chunks and microbatches must be >= 1");
  // The smallest transfer (a halving-doubling's last halving, a ring's block) split over
  // channels and chunks must keep a byte.
  const uint64_t per_group = ph.size_bytes / p.groups.size();
  uint64_t smallest = per_group;
  const uint64_t n = p.groups.front().size();
  if (ph.op == CollectiveOp::kAllReduce && ph.algorithm == CollectiveAlgorithm::kHalvingDoubling)
    smallest = per_group / n;
  else if (ph.op == CollectiveOp::kAllReduce &&
           ph.algorithm == CollectiveAlgorithm::kDoubleBinaryTree)
    smallest = per_group / 2;
  else if (ph.op != CollectiveOp::kBroadcast && ph.op != CollectiveOp::kPipeline)
    smallest = per_group / n;
  if (smallest < uint64_t{ph.channels} * ph.chunks)
    throw std::invalid_argument("size: " + std::to_string(ph.size_bytes) +
                                " bytes leave a transfer of " + std::to_string(smallest) +
                                " bytes, too few for " + std::to_string(ph.channels) +
                                " channels x " + std::to_string(ph.chunks) + " chunks");
}

void check(const CollectiveParams& p) {
  if (p.groups.empty()) throw std::invalid_argument("ranks: no rank");
  for (const auto& g : p.groups) {
    if (g.size() < 2) throw std::invalid_argument("ranks: a collective needs at least 2 ranks");
    std::vector<uint32_t> sorted = g;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw std::invalid_argument("ranks: a host appears twice");
  }
  if (p.iterations == 0) throw std::invalid_argument("iterations must be >= 1");
  for (const auto& g : p.groups)
    if (g.size() != p.groups.front().size())
      throw std::invalid_argument("per_nic: the NIC indices have different rank counts (" +
                                  std::to_string(p.groups.front().size()) + " and " +
                                  std::to_string(g.size()) +
                                  "): place whole servers, or the same NICs of each");
  check_phase(p, p);
  for (size_t i = 0; i < p.then.size(); ++i) {
    try {
      check_phase(p.then[i], p);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("then." + std::to_string(i) + "." + e.what());
    }
  }
}

}  // namespace

const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kPipeline:
      return "pipeline";
  }
  return "?";
}

const char* collective_algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kDoubleBinaryTree:
      return "double_binary_tree";
    case CollectiveAlgorithm::kHalvingDoubling:
      return "halving_doubling";
    case CollectiveAlgorithm::kDirect:
      return "direct";
    case CollectiveAlgorithm::kChain:
      return "chain";
    case CollectiveAlgorithm::kGpipe:
      return "gpipe";
  }
  return "?";
}

double busbw_factor(CollectiveOp op, size_t ranks) {
  const double n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kAllToAll:
      return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kPipeline:
      return 1;
  }
  return 1;
}

CollectiveFlows generate_collective(const CollectiveParams& p) {
  check(p);
  CollectiveFlows out;
  // QPs: one per (group, src rank, dst rank, channel) of the job, each its own source port
  // (flows of the same QP keep it across steps and iterations, as one QP would).
  uint32_t next_qp = 0;
  std::vector<CollectivePhase> phases{p};
  phases.insert(phases.end(), p.then.begin(), p.then.end());
  // The transfers of each phase and group, computed once; iterations repeat them.
  std::vector<std::vector<std::vector<Transfer>>> plans(phases.size());
  for (size_t ph = 0; ph < phases.size(); ++ph)
    for (size_t g = 0; g < p.groups.size(); ++g)
      plans[ph].push_back(transfers(phases[ph], static_cast<uint32_t>(p.groups[g].size()),
                                    share(phases[ph].size_bytes, p.groups.size(), g)));
  // terminal[h]: the flows of the collective before that a rank on host h waits for: in
  // each lane, those of the deepest step it takes part in (a rank's steps in one lane follow
  // one another in every algorithm here, so these are delivered last).
  struct LaneEnd {
    uint32_t lane;
    uint32_t step;
    std::vector<uint32_t> flows;
  };
  std::unordered_map<uint32_t, std::vector<LaneEnd>> terminal;
  uint32_t ranks = 0;
  for (const auto& g : p.groups) ranks += static_cast<uint32_t>(g.size());
  std::unordered_map<uint64_t, uint32_t> qp_ids;  // (group, lane, ranks, channel) -> qp
  std::vector<uint32_t> last_on_qp;               // by qp: its latest flow, UINT32_MAX: none
  std::vector<uint32_t> first_on_qp;  // by qp: its first flow with bytes, UINT32_MAX: none
  std::vector<uint32_t> messages_on;  // by connection (its first QP): messages posted on it
  // NCCL_IB_QPS_PER_CONNECTION QPs per connection, their data split or taken in turn.
  const uint32_t qps = p.qp_per_transfer ? 1 : p.qps_per_connection;
  const bool split = p.split_data_on_qps && qps > 1;
  {
    // Sized once: a large job's flows would pass through every doubling of the list.
    size_t flows = 0;
    for (size_t ph = 0; ph < phases.size(); ++ph)
      for (const std::vector<Transfer>& plan : plans[ph])
        flows += plan.size() * phases[ph].channels * phases[ph].chunks * (split ? qps : 1);
    out.flows.reserve(flows * p.iterations);
  }
  // `count` new QP numbers; returns the first.
  const auto add_qps = [&](uint32_t count) {
    const uint32_t first = next_qp;
    next_qp += count;
    last_on_qp.resize(next_qp, UINT32_MAX);
    first_on_qp.resize(next_qp, UINT32_MAX);
    messages_on.resize(next_qp, 0);
    return first;
  };
  for (uint32_t it = 0; it < p.iterations; ++it)
    for (uint32_t phase = 0; phase < phases.size(); ++phase) {
      const CollectivePhase& ph = phases[phase];
      CollectiveSpec c;
      std::vector<uint32_t> lane_of;  // by flow of c: its transfer's lane
      c.job = p.tag;
      c.job_start = p.start;
      c.iteration = it;
      c.phase = phase;
      c.op = ph.op;
      c.algorithm = ph.algorithm;
      c.ranks = ranks;
      c.groups = static_cast<uint32_t>(p.groups.size());
      c.size_bytes = ph.size_bytes;
      c.first_flow = static_cast<uint32_t>(out.flows.size());
      for (size_t g = 0; g < p.groups.size(); ++g) {
        const std::vector<uint32_t>& rank_host = p.groups[g];
        const std::vector<Transfer>& plan = plans[phase][g];
        // Each (transfer, channel, chunk) is `pieces` flows: one message, or under
        // split_data_on_qps one piece per QP of the connection. The first flow of transfer
        // x's channel ch, chunk k: base + ((x * channels + ch) * chunks + k) * pieces.
        const uint32_t base = static_cast<uint32_t>(out.flows.size());
        const uint32_t pieces = split ? qps : 1;
        const auto first_of = [&](uint32_t x, uint32_t ch, uint32_t k) {
          return base + ((x * ph.channels + ch) * ph.chunks + k) * pieces;
        };
        for (size_t x = 0; x < plan.size(); ++x) {
          const Transfer& tr = plan[x];
          const uint32_t src = rank_host[tr.src], dst = rank_host[tr.dst];
          // A connection per (group, lane, sender, receiver) and channel, kept across phases
          // and iterations (NCCL's), with `qps` QPs; or, under qp_per_transfer, one per
          // transfer and channel.
          auto connection_of = [&](uint32_t ch) {
            const uint64_t key =
                p.qp_per_transfer
                    ? ~uint64_t{next_qp}
                    : ((((uint64_t{static_cast<uint32_t>(g)} << 2) | tr.lane) << 6 | ch) << 42) |
                          (uint64_t{tr.src} << 21) | tr.dst;
            const auto [found, added] = qp_ids.try_emplace(key, next_qp);
            if (added) add_qps(qps);
            return found->second;
          };
          for (uint32_t ch = 0; ch < ph.channels; ++ch) {
            const uint32_t connection = connection_of(ch);
            for (uint32_t k = 0; k < ph.chunks; ++k) {
              const uint64_t chunk_bytes = share(share(tr.bytes, ph.channels, ch), ph.chunks, k);
              // NCCL_IB_SPLIT_DATA_ON_QPS: equal pieces rounded up to 128 B (p2p.cc).
              const uint64_t piece_bytes = ((chunk_bytes + pieces - 1) / pieces + 127) / 128 * 128;
              for (uint32_t piece = 0; piece < pieces; ++piece) {
                FlowSpec f;
                f.src_host = src;
                f.dst_host = dst;
                f.size_bytes =
                    split ? std::min(piece_bytes,
                                     chunk_bytes - std::min(chunk_bytes, piece * piece_bytes))
                          : chunk_bytes;
                f.start = p.start;
                f.tag = p.tag;
                // The message's QP: the piece's own, or the connection's QPs in turn (a whole
                // message on one QP, NCCL_IB_SPLIT_DATA_ON_QPS=0).
                uint32_t qp = connection + (split ? piece : messages_on[connection]++ % qps);
                // qp_per_transfer: every message a QP of its own, with its own port (after
                // the first, a number no connection takes), still sent after the one before.
                uint32_t port_qp = qp;
                if (p.qp_per_transfer && k > 0) port_qp = add_qps(1);
                f.sport = static_cast<uint16_t>(10000 + (p.first_qp + port_qp) % 50000);
                // Every piece waits for the whole chunk of the step before.
                for (uint32_t a : tr.after)
                  for (uint32_t q = 0; q < pieces; ++q) f.after.push_back(first_of(a, ch, k) + q);
                uint32_t step = 0;
                for (uint32_t a : f.after) step = std::max(step, c.step[a - c.first_flow] + 1);
                if (ph.op == CollectiveOp::kPipeline) f.after_delay = ph.stage_compute;
                if (f.after.empty()) {
                  // A source of the collective: after the rank's part of the one before, and
                  // the compute gap at an iteration's start.
                  if (const auto wait = terminal.find(src); wait != terminal.end()) {
                    for (const LaneEnd& end : wait->second)
                      f.after.insert(f.after.end(), end.flows.begin(), end.flows.end());
                    f.after_delay = phase == 0 ? p.compute : Delta::zero();
                  } else {
                    f.start = p.start + p.compute;
                  }
                }
                // A QP sends its messages in order, as messages of the one QP (the first
                // with bytes carries the rest), or each on its own under qp_per_transfer.
                uint32_t& last = last_on_qp[qp];
                if (last != UINT32_MAX) f.behind = last;
                last = static_cast<uint32_t>(out.flows.size());
                if (!p.qp_per_transfer && f.size_bytes > 0) {
                  uint32_t& first = first_on_qp[qp];
                  if (first == UINT32_MAX) {
                    first = last;
                  } else {
                    f.qp = first;
                  }
                }
                c.step.push_back(step);
                lane_of.push_back(tr.lane);
                out.flows.push_back(std::move(f));
              }
            }
          }
        }
      }
      c.flow_count = static_cast<uint32_t>(out.flows.size()) - c.first_flow;
      // The next collective's sources wait for this one's last flows at their rank, in
      // each lane (a double tree's trees run side by side).
      terminal.clear();
      for (uint32_t i = 0; i < c.flow_count; ++i) {
        const FlowSpec& f = out.flows[c.first_flow + i];
        for (uint32_t h : {f.src_host, f.dst_host}) {
          std::vector<LaneEnd>& ends = terminal[h];
          auto e = std::find_if(ends.begin(), ends.end(),
                                [&](const LaneEnd& x) { return x.lane == lane_of[i]; });
          if (e == ends.end()) {
            ends.push_back(LaneEnd{lane_of[i], c.step[i], {}});
            e = ends.end() - 1;
          }
          if (c.step[i] > e->step) {
            e->step = c.step[i];
            e->flows.clear();
          } else if (c.step[i] < e->step) {
            continue;
          }
          e->flows.push_back(c.first_flow + i);
        }
      }
      out.collectives.push_back(std::move(c));
    }
  return out;
}

}  // namespace rocelab
