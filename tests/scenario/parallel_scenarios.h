// Scenarios a run on several threads or ranks must give the same results on (issue 52):
// tests/scenario/parallel_scenario_test.cc and ranks_test.cc.
#pragma once

#include <string>
#include <vector>

namespace rocelab {
namespace test {

// "lb+cc" or "lb+cc+fc" as the --set assignments that choose them.
inline std::vector<std::string> scheme_sets(const std::string& schemes) {
  std::vector<std::string> sets;
  const size_t plus = schemes.find('+');
  const size_t fc_plus = schemes.find('+', plus + 1);
  sets.push_back("lb=" + schemes.substr(0, plus));
  sets.push_back("cc=" + schemes.substr(plus + 1, fc_plus - plus - 1));
  if (fc_plus != std::string::npos) sets.push_back("fc=" + schemes.substr(fc_plus + 1));
  return sets;
}

// Four leaves (four partitions at most), unequal link delays, a Poisson background and an
// incast that pauses links.
inline const std::string kScenario = R"(name: parallel
seed: 11
topology: {type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4, link_delay: 1us}
switch: {buffer: 1MB}
workloads:
  - name: background
    type: poisson
    cdf: fb_webserver
    load: 0.5
    stop: 150us
  - name: incast
    type: incast
    senders: h4..h15
    receiver: h0
    total_size: 600KB
    start: 40us
    interval: 60us
    repeats: 2
outputs: {flows_csv: true, pfc_events: false}
)";

// A rail-optimised fabric (4 servers x 2 NICs, 2 rail leaves per group of 2 servers: 4
// leaves) with a ring all-reduce per rail twice over a compute gap, beside a Poisson
// background and an incast.
inline const std::string kRailCollective = R"(name: parallel_rail
seed: 5
topology: {type: rail_optimized, servers: 4, nics_per_server: 2, servers_per_group: 2, spines: 2,
           host_rate: 100Gbps, fabric_rate: 100Gbps, link_delay: 1us}
switch: {buffer: 1MB}
workloads:
  - {name: job, type: collective, op: all_reduce, per_nic: true, size: 400KB, channels: 2,
     chunks: 2, iterations: 2, compute: 5us}
  - {name: background, type: poisson, cdf: fb_webserver, load: 0.3, stop: 100us}
  - {name: incast, type: incast, senders: h2..h7, receiver: h0, total_size: 300KB, start: 20us}
outputs: {flows_csv: true, pfc_events: false}
)";

// A k = 4 fat-tree (16 hosts, 8 edge switches in 4 pods) with a Poisson background and an
// incast across pods.
inline const std::string kFatTree = R"(name: parallel_fat_tree
seed: 3
topology: {type: fat_tree, pods: 4, edges_per_pod: 2, aggs_per_pod: 2, hosts_per_edge: 2,
           link_delay: 1us}
switch: {buffer: 1MB}
workloads:
  - {name: background, type: poisson, cdf: fb_webserver, load: 0.5, stop: 100us}
  - {name: incast, type: incast, senders: h4..h15, receiver: h0, total_size: 600KB, start: 20us}
outputs: {flows_csv: true, pfc_events: false}
)";

}  // namespace test
}  // namespace rocelab
