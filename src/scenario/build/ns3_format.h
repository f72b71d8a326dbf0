// Readers and writers for the file formats of the HPCC (alibaba-edu/High-Precision-Congestion-
// Control) and ConWeave (conweave-project/conweave-ns3) ns-3 simulators, so that their
// topologies and flow traces run unchanged here and our FCTs feed their analysis scripts.
//
// Topology file:
//   node_count switch_count link_count
//   switch ids (switch_count of them on one line; the line may be empty or absent if 0)
//   src dst rate delay error_rate        (link_count lines, e.g. "0 128 100Gbps 1000ns 0")
// Flow file:
//   flow_count
//   src dst pg dport size start_seconds  (HPCC)
//   src dst pg size start_seconds        (ConWeave)
// FCT file (one finished flow a line):
//   sip dip sport dport size start_ns fct_ns standalone_fct_ns
//   HPCC writes sip/dip as %08x IPv4 addresses, ConWeave as decimal node ids.
//
// Readers throw std::runtime_error("path:line: message") on anything they cannot represent
// faithfully. Blank lines, trailing whitespace and CRLF line ends are tolerated.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "net/ns3_ecmp_hash.h"  // ns3_node_ip
#include "net/topology.h"
#include "workload/flow_spec.h"

namespace rocelab {

// Node i of the file becomes node i of the spec: hosts "h<i>", switches "s<i>". Switches with a
// host attached are kEdge; the others kAggregation (1 switch hop from an edge switch) or kCore
// (2 or more). Rejects nonzero error rates (loss is not modelled), hosts without exactly one
// link, and switches not connected to any host.
// Lines after the declared links are ignored, as ns-3 ignores them; `ignored` (if given)
// then receives a note naming them.
TopologySpec read_ns3_topology(const std::string& path, std::string* ignored = nullptr);

enum class Ns3FlowFormat {
  kHpcc,      // src dst pg dport size start_seconds
  kConweave,  // src dst pg size start_seconds
  kAuto,      // by the field count of the first flow line; every line must agree
};
// The format named "hpcc", "conweave" or "auto" (`rocelab import --format`, a trace
// workload's format); std::invalid_argument for another name.
Ns3FlowFormat ns3_flow_format(const std::string& name);

// Flows in file order; start times converted from decimal seconds to exact picoseconds (rounded
// to the nearest picosecond beyond 12 decimals). pg is checked but not kept. Each flow gets
// the UDP ports the simulator whose format it is would give it, so fct.txt rows join with
// theirs on (src, dst, sport, dport): HPCC numbers sources per (src, dst) pair from 10000 and
// takes dport from the file; ConWeave numbers sources per source host from 10000 and
// destinations per destination host from 100.
// Node ids are not checked against a topology here.
std::vector<FlowSpec> read_ns3_flows(const std::string& path, Ns3FlowFormat fmt,
                                     const std::string& tag = "trace",
                                     std::string* ignored = nullptr);

struct FctLine {
  uint32_t src_node = 0;
  uint32_t dst_node = 0;
  uint16_t sport = 0;
  uint16_t dport = 0;
  uint64_t size_bytes = 0;
  int64_t start_ns = 0;
  int64_t fct_ns = 0;
  int64_t standalone_fct_ns = 0;
};

enum class Ns3FctStyle {
  kHpcc,      // sip/dip as %08x IPv4 addresses
  kConweave,  // sip/dip as decimal node ids
};

void write_ns3_fct(std::ostream& out, const std::vector<FctLine>& lines,
                   Ns3FctStyle style = Ns3FctStyle::kHpcc);

}  // namespace rocelab
