// NICs of several ports (planes, dual ToR): which port a QP takes, and moving QPs off a
// port whose link failed (docs/gpu-fabrics.md, "NICs with a port per plane").
#include <algorithm>

#include "sim/random.h"
#include "transport/rdma_transport.h"

namespace rocelab {

// One port: no hash and no counter (single-port runs draw nothing new). A QP joins port k
// at both ends, so only the ports both hosts have are candidates.
uint8_t RdmaTransport::choose_port(NodeId src, NodeId dst, uint32_t flow_hash) {
  const Routing& r = ctx_.routing;
  if (!r.multi_port()) return 0;
  const uint32_t ports = std::min(r.port_count(src.index()), r.port_count(dst.index()));
  if (ports <= 1) return 0;
  if (cfg_.port_select == PortSelect::kHash)  // a hash of its own: flow tables key on flow_hash
    return static_cast<uint8_t>(mix64(flow_hash ^ 0x5e1ec7ed) % ports);
  if (next_rr_port_.empty()) next_rr_port_.assign(net_.node_count(), 0);
  return static_cast<uint8_t>(next_rr_port_[src.index()]++ % ports);
}

uint8_t RdmaTransport::live_port(const Sender& s) const {
  auto dead = [&](NodeId h, uint32_t k) {
    return !dead_ports_.empty() && k < 32 && (dead_ports_[h.index()] >> k & 1u) != 0;
  };
  if (!dead(s.src, s.nic_port) && !dead(s.dst, s.nic_port)) return s.nic_port;
  const Routing& r = ctx_.routing;
  const uint32_t ports = std::min(r.port_count(s.src.index()), r.port_count(s.dst.index()));
  for (uint32_t k = 0; k < ports; ++k)
    if (!dead(s.src, k) && !dead(s.dst, k)) return static_cast<uint8_t>(k);
  return s.nic_port;  // no port left: it waits on its own for the link to come back
}

void RdmaTransport::move_port(FlowId f, uint8_t port) {
  Sender& s = flows_[f.index()];
  HostQueues& hq = hosts_[s.src.index()];
  hq.sched(s.nic_port).deactivate(f);
  if (s.counted_unsent) hq.sched(s.nic_port).count_unsent(false);
  s.nic_port = port;
  hq.sched(port).activate(f);
  if (s.counted_unsent) hq.sched(port).count_unsent(true);
  // Its congestion control keeps its state (the NIC moves the QP, not a new one); only the
  // line rate is the new port's.
  s.line_rate_bps = net_.host_rate_bps(s.src, port);
  s.rate_bps = std::min(s.rate_bps, s.line_rate_bps);
}

uint64_t RdmaTransport::set_nic_port_down(NodeId host, uint32_t port, bool down) {
  if (port >= 32) return 0;
  if (dead_ports_.empty()) dead_ports_.assign(net_.node_count(), 0);
  uint32_t& mask = dead_ports_[host.index()];
  mask = down ? mask | 1u << port : mask & ~(1u << port);
  if (!down) return 0;
  uint64_t moved = 0;
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    const FlowId f(i);
    Sender& s = flows_[i];
    if (s.finished || s.nic_port != port) continue;
    if (s.src != host && s.dst != host) continue;
    const uint8_t to = live_port(s);
    if (to == s.nic_port) continue;
    if (!s.started) {  // it takes the live port when it starts (start_flow)
      s.nic_port = to;
      continue;
    }
    move_port(f, to);
    ++moved;
    // The rest as the sender's own events (what it schedules orders as on any partition
    // or rank; a QP has started only on its sender's rank).
    if (!net_.owns(s.src)) continue;
    sim().run_as(s.src.index(), [&] {
      path_->on_port_moved(f);
      cc_->on_port_moved(f);
      kick(f);
    });
  }
  return moved;
}

}  // namespace rocelab
