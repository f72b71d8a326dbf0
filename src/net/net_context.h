// What every node of one network shares: the simulator, the packet pool, the header
// model, routing and network-wide counters.
#pragma once

#include <cstdint>
#include <vector>

#include "net/packet.h"
#include "net/routing.h"
#include "sim/pool.h"
#include "sim/simulator.h"

namespace rocelab {

struct NetCounters {
  uint64_t drops = 0;  // data packets dropped by a switch MMU
  uint64_t drop_bytes = 0;
  uint64_t pause_frames = 0;   // XOFF frames generated, all switches
  uint64_t resume_frames = 0;  // XON frames generated
  uint64_t ecn_marks = 0;
  std::vector<uint64_t> pause_frames_by_node;  // indexed by node id
};

struct NetContext {
  Simulator& sim;
  Pool<Packet>& pool;
  WireModel wire;
  Routing routing;
  NetCounters counters;
  uint64_t seed = 1;

  Packet& pkt(PacketId id) { return pool[id.index()]; }
  PacketId alloc_packet() { return PacketId(pool.alloc()); }
  void free_packet(PacketId id) { pool.release(id.index()); }
};

}  // namespace rocelab
