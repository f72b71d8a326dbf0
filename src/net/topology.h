// A topology as data: nodes (hosts and switches, with their tier) and full-duplex links.
// Builders for the fabrics the papers use; importers (ns-3 files) produce the same spec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace rocelab {

enum class NodeKind : uint8_t { kHost, kSwitch };

// Tier of a node, used for per-layer statistics (PAUSE rate by layer).
enum class Layer : uint8_t { kHost = 0, kEdge = 1, kAggregation = 2, kCore = 3 };
const char* layer_name(Layer layer);

struct NodeSpec {
  NodeKind kind = NodeKind::kHost;
  Layer layer = Layer::kHost;
  std::string name;
  // Hosts that are NICs of a multi-NIC server (rail fabrics): the server's index and the
  // NIC's index in it. kNoServer: the host is its own server.
  static constexpr uint32_t kNoServer = UINT32_MAX;
  uint32_t server = kNoServer;
  uint16_t nic = 0;
  // The plane a switch belongs to (with_planes); 0 for hosts and single-plane fabrics.
  uint16_t plane = 0;
};

struct LinkSpec {
  uint32_t a = 0;
  uint32_t b = 0;
  BitsPerSec rate_bps = 0;
  Delta delay;  // one-way propagation delay, same in both directions
};

struct TopologySpec {
  std::string description;
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;

  uint32_t add_node(NodeKind kind, Layer layer, std::string name);
  void add_link(uint32_t a, uint32_t b, BitsPerSec rate_bps, Delta delay);
  // Changes the rate of every link between the two named nodes (asymmetric fabrics);
  // returns how many links changed.
  int set_link_rate(const std::string& a, const std::string& b, BitsPerSec rate_bps);
  std::vector<uint32_t> hosts() const;
  std::vector<uint32_t> switches() const;
  uint32_t find(const std::string& name) const;  // throws when absent
};

struct LeafSpineParams {
  uint32_t leaves = 8;
  uint32_t spines = 8;
  uint32_t hosts_per_leaf = 16;
  BitsPerSec host_rate_bps = gbps(100);
  BitsPerSec fabric_rate_bps = gbps(100);  // leaf-spine links: oversubscription via rates
  Delta link_delay = Delta::from_us(1);
};
// Hosts first (ids 0..H-1, leaf-major), then leaves, then spines, as ns-3 topology files do.
TopologySpec leaf_spine(const LeafSpineParams& p);

struct FatTreeParams {
  uint32_t pods = 4;
  uint32_t edges_per_pod = 2;
  uint32_t aggs_per_pod = 2;
  uint32_t hosts_per_edge = 2;
  uint32_t cores = 4;  // each aggregation switch connects to cores / aggs_per_pod cores
  BitsPerSec host_rate_bps = gbps(100);
  BitsPerSec fabric_rate_bps = gbps(100);
  Delta link_delay = Delta::from_us(1);
};
// 3-tier fat-tree; edge-aggregation full mesh inside a pod, aggregation j of every pod
// reaching cores [j*c, (j+1)*c) with c = cores / aggs_per_pod. FLB §4.3: 12 pods, 6 + 6,
// 84 hosts per pod (14 per edge), 36 cores.
TopologySpec fat_tree(const FatTreeParams& p);

// GPU servers with several NICs (one rank per NIC), two tiers. Layout rail (NVIDIA's
// rail-optimised fabric, DGX SuperPOD): the servers come in groups, and NIC i of every
// server of a group hangs off the group's rail leaf i; layout tor: every NIC of a server
// hangs off one ToR leaf, servers_per_group servers per leaf. Every leaf links to every
// spine. Hosts are named h<server * nics_per_server + nic>, leaves rail<i>_g<group> or
// tor<group>, spines spine<k>.
struct RailParams {
  uint32_t servers = 8;
  uint32_t nics_per_server = 8;
  uint32_t servers_per_group = 8;
  uint32_t spines = 8;
  bool rail_layout = true;  // false: tor
  BitsPerSec host_rate_bps = gbps(400);
  BitsPerSec fabric_rate_bps = gbps(400);
  Delta link_delay = Delta::from_us(1);
};
TopologySpec rail_optimized(const RailParams& p);

// A fabric of `planes` parallel copies of `one` (NICs with a port per plane, as in
// multi-plane GPU fabrics): the hosts keep their ids, plane k's switches are copies of
// one's, named <name>_p<k> (planes > 1), and every host's port k (its k-th link) goes to
// plane k. Plane 0's nodes and links come first, in one's order, so planes = 1 gives
// `one` itself. Throws std::invalid_argument when a host of `one` has other than one link.
TopologySpec with_planes(const TopologySpec& one, uint32_t planes);
// Dual ToR (Alibaba HPN): every edge switch of `one` becomes a pair, <name>_t0 in its place
// and <name>_t1 after every other node, each with all of the edge's links; every host's
// port 0 goes to the pair's t0 and port 1 to its t1. One plane: both ToRs reach the same
// spines. Throws std::invalid_argument when a host of `one` has other than one link.
TopologySpec with_dual_tor(const TopologySpec& one);

// FLB paper Fig. 1 testbed: S0 and S4 joined through S1, S2, S3 (paths P0, P1, P2);
// H0-H2 on S0, R0-R2 and H3-H16 on S4. Names follow the paper.
TopologySpec flb_testbed(BitsPerSec rate_bps, Delta link_delay);

}  // namespace rocelab
