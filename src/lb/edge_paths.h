// The end-to-end paths from this edge switch to another, as a path-aware edge scheme
// (FLB, Proteus) keeps them: how many, the uplink each leaves by (path % first-hop count,
// as source routing pins it) and the base delay of one link, taken as this switch's first
// uplink (propagation + one MTU frame), from which the schemes derive base RTTs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "net/switch_view.h"

namespace rocelab {

struct EdgePaths {
  uint32_t paths = 1;
  std::vector<PortId> first_hop;  // per path
  Delta per_link;                 // one link's base delay
  int64_t switch_links = 0;       // links between the two edge switches (path 0)
};

inline EdgePaths edge_paths(const SwitchView& sw, uint32_t dst_switch, uint64_t max_paths) {
  EdgePaths out;
  const Routing& r = sw.routing();
  const uint32_t self = sw.id().index();
  out.paths = static_cast<uint32_t>(std::min<uint64_t>(r.path_count(self, dst_switch), max_paths));
  auto hops = r.next_hops(self, dst_switch);
  // Failures cut the two switches apart (Routing::path_count's one dead path): the healthy
  // fabric's uplinks stand in; packets for the pair find no route at this switch.
  if (hops.empty()) hops = sw.healthy_routing().next_hops(self, dst_switch);
  out.first_hop.reserve(out.paths);
  for (uint32_t i = 0; i < out.paths; ++i) out.first_hop.push_back(hops[i % hops.size()]);
  const EgressPort& up = sw.port(hops[0]);
  out.per_link = up.delay() + serialization_delay(sw.wire().mtu_wire_bytes(), up.rate_bps());
  out.switch_links = static_cast<int64_t>(r.path_nodes(self, dst_switch, 0).size()) - 1;
  return out;
}

}  // namespace rocelab
