#include "scenario/results/nic_ports.h"

#include <algorithm>
#include <string>
#include <vector>

namespace rocelab {

namespace {

struct PortFigures {
  uint64_t tx_data_bytes = 0;   // wire bytes the hosts' port k sent
  uint64_t rx_data_bytes = 0;   // wire bytes the edge switches sent to hosts' port k
  uint64_t pause_episodes = 0;  // the hosts' port k paused by its switch
  uint64_t qps = 0;
};

struct PlaneFigures {
  uint64_t pfc_pause_frames = 0;  // sent by the plane's switches
  uint64_t fabric_tx_data_bytes = 0;
  uint64_t nic_tx_data_bytes = 0;  // sent into the plane by NIC ports
};

}  // namespace

void add_nic_port_figures(Experiment& exp, nlohmann::json& summary) {
  Network& net = exp.network();
  const Routing& r = net.healthy_routing();
  if (!r.multi_port()) return;
  const TopologySpec& topo = net.topology();
  std::vector<PortFigures> ports(r.ports_per_host());
  uint32_t planes = 1;
  for (const NodeSpec& n : topo.nodes) planes = std::max<uint32_t>(planes, n.plane + 1u);
  std::vector<PlaneFigures> plane(planes);
  for (NodeId h : net.hosts()) {
    for (uint32_t k = 0; k < r.port_count(h.index()); ++k) {
      const EgressPort& nic = net.node(h).port(PortId(static_cast<uint16_t>(k)));
      const uint32_t edge = r.edge_of_host(h.index(), k);
      const EgressPort& down = net.node(NodeId(edge)).port(r.host_port_at_edge(h.index(), k));
      ports[k].tx_data_bytes += nic.counters().tx_data_bytes;
      ports[k].rx_data_bytes += down.counters().tx_data_bytes;
      ports[k].pause_episodes += nic.counters().times_paused;
      plane[topo.nodes[edge].plane].nic_tx_data_bytes += nic.counters().tx_data_bytes;
    }
  }
  const RdmaTransport& tr = exp.transport();
  for (uint32_t q = 0; q < tr.qp_count(); ++q) ++ports[tr.nic_port_of(FlowId(q))].qps;
  for (NodeId s : net.switches()) {
    const Node& sw = net.node(s);
    PlaneFigures& p = plane[topo.nodes[s.index()].plane];
    for (size_t i = 0; i < sw.port_count(); ++i) {
      const EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
      p.pfc_pause_frames += port.counters().pause_frames_sent;
      if (port.peer()->kind() == NodeKind::kSwitch)
        p.fabric_tx_data_bytes += port.counters().tx_data_bytes;
    }
  }
  for (size_t k = 0; k < ports.size(); ++k)
    summary["by_nic_port"][std::to_string(k)] = {{"tx_data_bytes", ports[k].tx_data_bytes},
                                                 {"rx_data_bytes", ports[k].rx_data_bytes},
                                                 {"pause_episodes", ports[k].pause_episodes},
                                                 {"qps", ports[k].qps}};
  if (planes < 2) return;
  for (size_t k = 0; k < plane.size(); ++k)
    summary["by_plane"][std::to_string(k)] = {
        {"pfc_pause_frames", plane[k].pfc_pause_frames},
        {"fabric_tx_data_bytes", plane[k].fabric_tx_data_bytes},
        {"nic_tx_data_bytes", plane[k].nic_tx_data_bytes}};
}

}  // namespace rocelab
