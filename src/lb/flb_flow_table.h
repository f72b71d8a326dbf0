// FLB's per-flow table at an edge switch (FLB §3.4): the path a flow uses, when its last
// packet arrived, and the port it came from (the previous hop, for CNMs). Entries not hit
// for `timeout` are gone (the paper sweeps age bits; expiry here is exact and lazy).
//   exact mode:    keyed by the flow's id; never two flows in one entry.
//   hardware mode: a fixed array indexed by the 16-bit CRC16 of the 5-tuple, as on the
//                  switch: flows whose CRCs collide share one entry.
#pragma once

#include <cstdint>
#include <vector>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

// CRC-16/CCITT-FALSE of the flow's 5-tuple (src IP, dst IP, sport, dport, UDP).
uint16_t flow_crc16(const Packet& p);

struct FlbFlowEntry {
  uint32_t key = 0;
  uint16_t path = 0;
  Time last_seen = Time::never();
  // Local queueing delay (ps) the flow's previous packet met at its path's first hop: with
  // the path's sampled delay, the delay that packet sees (Alg. 1's p.t_OWD for it).
  int64_t last_local_ps = 0;
  // Where the previous packet sits in its uplink queue: the queue's dequeued-byte count at
  // which it has left (written and read under the departed guard of Flb only).
  uint64_t prev_end_position = 0;
};

class FlbFlowTable {
 public:
  FlbFlowTable(bool hardware_mode, uint32_t hardware_entries, Delta timeout);

  // The entry for the packet's flow, created (or taken over when expired) if needed;
  // *fresh tells whether it starts a new flow.
  FlbFlowEntry& upsert(const Packet& p, Time now, bool* fresh);
  // The live entry with this key (from a CNM), or nullptr.
  FlbFlowEntry* find_key(uint32_t key, Time now);

  uint32_t key_of(const Packet& p) const { return hardware_ ? flow_crc16(p) : p.flow.index(); }
  bool hardware_mode() const { return hardware_; }
  // Entries live now (scans the table: for reports, not the packet path).
  size_t live_entries(Time now) const;
  // SRAM the table needs, as FLB §3.4 counts it: 16-bit flow id, 8-bit path id (24 bits
  // when paths > 256), 8-bit age, 48-bit previous-hop MAC, per entry.
  uint64_t memory_bytes(uint32_t max_paths) const;

 private:
  bool expired(const FlbFlowEntry& e, Time now) const {
    return e.last_seen == Time::never() || now - e.last_seen > timeout_;
  }
  FlbFlowEntry* probe(uint32_t key, Time now, bool for_insert);
  void rebuild(Time now, size_t capacity);

  bool hardware_;
  Delta timeout_;
  std::vector<FlbFlowEntry> slots_;
  std::vector<uint8_t> used_;  // exact mode: slot holds a key (live or expired)
  size_t used_count_ = 0;
};

}  // namespace rocelab
