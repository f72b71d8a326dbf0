// FLB's per-flow table at an edge switch (FLB §3.4): the path a flow uses, when its last
// packet arrived, and where its previous packet sits. The table itself is the shared
// EdgeFlowTable (exact or CRC16 hardware mode).
#pragma once

#include <cstdint>

#include "lb/edge_flow_table.h"
#include "sim/time.h"

namespace rocelab {

struct FlbFlowEntry {
  uint32_t key = 0;
  uint16_t path = 0;
  Time last_seen = Time::never();
  // Local queueing delay (ps) the flow's previous packet met at its path's first hop: with
  // the path's sampled delay, the delay that packet sees (Alg. 1's p.t_OWD for it).
  int64_t last_local_ps = 0;
  // Where the previous packet sits in its uplink queue: the data queue it joined and the
  // queue's dequeued-byte count at which it has left (written as it joins the queue, under
  // the departed and idle guards of Flb only).
  uint64_t prev_end_position = 0;
  uint32_t prev_queue = 0;
};

class FlbFlowTable : public EdgeFlowTable<FlbFlowEntry> {
 public:
  using EdgeFlowTable::EdgeFlowTable;
  // SRAM the table needs, as FLB §3.4 counts it: 16-bit flow id, 8-bit path id (24 bits
  // when paths > 256), 8-bit age, 48-bit previous-hop MAC, per entry.
  uint64_t memory_bytes(uint32_t max_paths) const {
    const uint64_t path_bits = max_paths > 256 ? 24 : 8;
    const uint64_t bits_per_entry = 16 + path_bits + 8 + 48;
    return (entries_held() * bits_per_entry + 7) / 8;
  }
};

}  // namespace rocelab
