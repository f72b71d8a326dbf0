// Multi-port NIC fabrics built from a single-port one: parallel planes and dual ToR.
#include <stdexcept>

#include <fmt/format.h>

#include "net/topology.h"

namespace rocelab {

namespace {

void require_single_homed(const TopologySpec& one, const char* what) {
  std::vector<uint32_t> links(one.nodes.size(), 0);
  for (const LinkSpec& l : one.links) {
    ++links[l.a];
    ++links[l.b];
  }
  for (uint32_t h : one.hosts())
    if (links[h] != 1)
      throw std::invalid_argument(
          fmt::format("{}: host '{}' has {} links; the fabric to copy "
                      "must give every host one",
                      what, one.nodes[h].name, links[h]));
}

}  // namespace

TopologySpec with_planes(const TopologySpec& one, uint32_t planes) {
  if (planes == 0) throw std::invalid_argument("with_planes: at least one plane");
  if (planes == 1) return one;
  require_single_homed(one, "planes");
  TopologySpec t;
  t.description = fmt::format("{}, {} planes", one.description, planes);
  t.nodes = one.nodes;
  // [plane][node]: the node's id in that plane (hosts are shared by every plane).
  std::vector<std::vector<uint32_t>> id(planes, std::vector<uint32_t>(one.nodes.size()));
  for (uint32_t n = 0; n < one.nodes.size(); ++n) {
    id[0][n] = n;
    if (one.nodes[n].kind == NodeKind::kSwitch) t.nodes[n].name += "_p0";
  }
  for (uint32_t k = 1; k < planes; ++k) {
    for (uint32_t n = 0; n < one.nodes.size(); ++n) {
      if (one.nodes[n].kind == NodeKind::kHost) {
        id[k][n] = n;
        continue;
      }
      NodeSpec copy = one.nodes[n];
      copy.name = fmt::format("{}_p{}", copy.name, k);
      copy.plane = static_cast<uint16_t>(k);
      id[k][n] = static_cast<uint32_t>(t.nodes.size());
      t.nodes.push_back(std::move(copy));
    }
  }
  for (uint32_t k = 0; k < planes; ++k)
    for (const LinkSpec& l : one.links) t.add_link(id[k][l.a], id[k][l.b], l.rate_bps, l.delay);
  return t;
}

TopologySpec with_dual_tor(const TopologySpec& one) {
  require_single_homed(one, "dual_tor");
  TopologySpec t;
  t.description = one.description + ", dual ToR";
  t.nodes = one.nodes;
  // The second ToR of each edge switch (UINT32_MAX: not an edge switch).
  std::vector<uint32_t> twin(one.nodes.size(), UINT32_MAX);
  for (const LinkSpec& l : one.links) {
    const bool a_host = one.nodes[l.a].kind == NodeKind::kHost;
    const bool b_host = one.nodes[l.b].kind == NodeKind::kHost;
    if (a_host != b_host) twin[a_host ? l.b : l.a] = 0;
  }
  for (uint32_t n = 0; n < one.nodes.size(); ++n) {
    if (twin[n] == UINT32_MAX) continue;
    NodeSpec second = one.nodes[n];
    t.nodes[n].name += "_t0";
    second.name += "_t1";
    twin[n] = static_cast<uint32_t>(t.nodes.size());
    t.nodes.push_back(std::move(second));
  }
  for (const LinkSpec& l : one.links) {
    const bool a_edge = twin[l.a] != UINT32_MAX, b_edge = twin[l.b] != UINT32_MAX;
    t.add_link(l.a, l.b, l.rate_bps, l.delay);
    if (a_edge && b_edge) {  // two edge switches linked: each ToR to its counterpart
      t.add_link(twin[l.a], twin[l.b], l.rate_bps, l.delay);
    } else if (a_edge || b_edge) {  // a host's second port, or the second ToR's uplink
      t.add_link(a_edge ? twin[l.a] : l.a, b_edge ? twin[l.b] : l.b, l.rate_bps, l.delay);
    }
  }
  return t;
}

}  // namespace rocelab
