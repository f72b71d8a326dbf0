#include "scenario/config/topology_types.h"

#include <stdexcept>

#include "scenario/build/ns3_topology.h"
#include "scenario/config/yaml_params.h"

namespace rocelab {

namespace {

// Beyond this a scenario would exhaust memory before it ran; say so instead of crashing.
constexpr uint64_t kMaxLinks = 10 * 1000 * 1000;

void describe_leaf_spine(ParamVisitor& v, TopologyConfig& t) {
  LeafSpineParams& p = t.leaf_spine;
  v.count("leaves", p.leaves, 1, 100000, "leaf (ToR) switches");
  v.count("spines", p.spines, 1, 100000, "spine switches");
  v.count("hosts_per_leaf", p.hosts_per_leaf, 1, 100000, "hosts under each leaf");
  v.rate("host_rate", p.host_rate_bps, 1, kNoLimit, "host-leaf link rate");
  v.rate("fabric_rate", p.fabric_rate_bps, 1, kNoLimit,
         "leaf-spine link rate (oversubscription = hosts x host_rate / spines x fabric_rate)");
  v.duration("link_delay", p.link_delay, Delta::zero(), Delta::max(), "propagation delay per link");
  const uint64_t links = uint64_t{p.leaves} * (p.hosts_per_leaf + p.spines);
  v.require(links <= kMaxLinks, "leaves", "the fabric would have more than 10 million links");
}

void describe_fat_tree(ParamVisitor& v, TopologyConfig& t) {
  FatTreeParams& p = t.fat_tree;
  v.count("pods", p.pods, 1, 10000, "pods (FLB §4.3: 12)");
  v.count("edges_per_pod", p.edges_per_pod, 1, 10000, "edge switches per pod (FLB: 6)");
  v.count("aggs_per_pod", p.aggs_per_pod, 1, 10000, "aggregation switches per pod (FLB: 6)");
  v.count("hosts_per_edge", p.hosts_per_edge, 1, 100000, "hosts per edge switch (FLB: 14)");
  v.count("cores", p.cores, 1, 100000, "core switches (FLB: 36)");
  v.require(p.cores % p.aggs_per_pod == 0, "cores", "must be a multiple of aggs_per_pod");
  v.rate("host_rate", p.host_rate_bps, 1, kNoLimit, "host-edge link rate");
  v.rate("fabric_rate", p.fabric_rate_bps, 1, kNoLimit, "switch-switch link rate");
  v.duration("link_delay", p.link_delay, Delta::zero(), Delta::max(), "propagation delay per link");
  const uint64_t links = uint64_t{p.pods} * p.edges_per_pod * (p.hosts_per_edge + p.aggs_per_pod) +
                         uint64_t{p.pods} * p.cores;
  v.require(links <= kMaxLinks, "pods", "the fabric would have more than 10 million links");
}

const std::string kRailLayouts[] = {"rail", "tor"};

void describe_rail(ParamVisitor& v, TopologyConfig& t) {
  RailParams& p = t.rail;
  v.count("servers", p.servers, 1, 100000, "GPU servers");
  v.count("nics_per_server", p.nics_per_server, 1, 64,
          "NICs (GPUs) per server, one rank each: the rails (DGX: 8)");
  v.count("servers_per_group", p.servers_per_group, 1, 100000,
          "servers per rail leaf (rail: a scalable unit, SuperPOD 32) or per ToR (tor)");
  v.count("spines", p.spines, 1, 100000, "spine switches, each linked to every leaf");
  v.choice("layout", t.rail_layout, kRailLayouts,
           "rail: NIC i of a group's servers on rail leaf i; tor: a server's NICs on one leaf");
  p.rail_layout = t.rail_layout == "rail";
  v.rate("host_rate", p.host_rate_bps, 1, kNoLimit, "NIC-leaf link rate (400 or 800 Gb/s)");
  v.rate("fabric_rate", p.fabric_rate_bps, 1, kNoLimit, "leaf-spine link rate");
  v.duration("link_delay", p.link_delay, Delta::zero(), Delta::max(), "propagation delay per link");
  const uint64_t groups = (uint64_t{p.servers} + p.servers_per_group - 1) / p.servers_per_group;
  const uint64_t leaves = p.rail_layout ? groups * p.nics_per_server : groups;
  const uint64_t links = uint64_t{p.servers} * p.nics_per_server + leaves * p.spines;
  v.require(links <= kMaxLinks, "servers", "the fabric would have more than 10 million links");
}

void describe_flb_testbed(ParamVisitor& v, TopologyConfig& t) {
  v.rate("rate", t.testbed_rate_bps, 1, kNoLimit, "every link's rate (FLB §2: 40 Gb/s)");
  v.duration("link_delay", t.testbed_link_delay, Delta::zero(), Delta::max(),
             "propagation delay per link (not stated by FLB)");
}

void describe_ns3(ParamVisitor& v, TopologyConfig& t) {
  v.text("file", t.file, "topology file in the HPCC/ConWeave ns-3 format");
  if (v.reading()) v.require(!t.file.empty(), "file", "an ns3 topology needs a file");
}

TopologySpec build_ns3(const TopologyConfig& t) {
  // The reader's errors already name the file and line; they are the user's to fix.
  try {
    return read_ns3_topology(t.file);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
}

}  // namespace

const Registry<TopologyType>& topology_registry() {
  static const Registry<TopologyType> registry = [] {
    Registry<TopologyType> r;
    r.add("leaf_spine", "leaves x spines, hosts per leaf, any oversubscription",
          {describe_leaf_spine, [](const TopologyConfig& t) { return leaf_spine(t.leaf_spine); }});
    r.add("fat_tree", "3-tier: pods of edge + aggregation switches, cores",
          {describe_fat_tree, [](const TopologyConfig& t) { return fat_tree(t.fat_tree); }});
    r.add("rail_optimized",
          "GPU servers with several NICs: rail leaves per NIC index (or ToR per server group), "
          "spines",
          {describe_rail, [](const TopologyConfig& t) { return rail_optimized(t.rail); }});
    r.add("flb_testbed", "FLB paper Fig. 1: S0 -> S1/S2/S3 -> S4, H0-H16, R0-R2",
          {describe_flb_testbed, [](const TopologyConfig& t) {
             return flb_testbed(t.testbed_rate_bps, t.testbed_link_delay);
           }});
    r.add("ns3", "an HPCC/ConWeave ns-3 topology file", {describe_ns3, build_ns3});
    return r;
  }();
  return registry;
}

}  // namespace rocelab
