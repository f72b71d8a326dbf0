// Flow files of the HPCC (alibaba-edu/High-Precision-Congestion-Control) and ConWeave
// (conweave-project/conweave-ns3) ns-3 simulators, so that their flow traces run unchanged:
//   flow_count
//   src dst pg dport size start_seconds  (HPCC)
//   src dst pg size start_seconds        (ConWeave)
// The reader throws std::runtime_error("path:line: message") on anything it cannot
// represent faithfully. Blank lines, trailing whitespace and CRLF line ends are tolerated.
#pragma once

#include <string>
#include <vector>

#include "workload/flow_spec.h"

namespace rocelab {

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

}  // namespace rocelab
