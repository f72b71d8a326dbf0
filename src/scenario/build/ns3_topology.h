// Topology files of the HPCC and ConWeave ns-3 simulators:
//   node_count switch_count link_count
//   switch ids (switch_count of them on one line; the line may be empty or absent if 0)
//   src dst rate delay error_rate        (link_count lines, e.g. "0 128 100Gbps 1000ns 0")
// The reader throws std::runtime_error("path:line: message") on anything it cannot
// represent faithfully. Blank lines, trailing whitespace and CRLF line ends are tolerated.
#pragma once

#include <string>

#include "net/topology.h"

namespace rocelab {

// Node i of the file becomes node i of the spec: hosts "h<i>", switches "s<i>". Switches with a
// host attached are kEdge; the others kAggregation (1 switch hop from an edge switch) or kCore
// (2 or more). Rejects nonzero error rates (a scenario makes a link lossy with `events:`
// link_loss), hosts without exactly one link, and switches not connected to any host.
// Lines after the declared links are ignored, as ns-3 ignores them; `ignored` (if given)
// then receives a note naming them.
TopologySpec read_ns3_topology(const std::string& path, std::string* ignored = nullptr);

}  // namespace rocelab
