// A per-flow table at an edge switch, generic over its entry (FLB §3.4, Proteus §IV-A:
// both keep one entry per flow under a 16-bit CRC16 flow ID). Entries not hit for
// `timeout` are gone (expiry is exact and lazy: the papers' age bits are a cheaper form).
//   exact mode:    keyed by the flow's id; never two flows in one entry.
//   hardware mode: a fixed array indexed by the 16-bit CRC16 of the 5-tuple, as on the
//                  switch: flows whose CRCs collide share one entry.
// Entry is a plain struct with `uint32_t key` and `Time last_seen` (the scheme sets
// last_seen on each packet it forwards; a value-initialised Entry is a fresh one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/packet.h"
#include "sim/ids.h"
#include "sim/time.h"

namespace rocelab {

// CRC-16/CCITT-FALSE of the flow's 5-tuple (src IP, dst IP, sport, dport, UDP).
uint16_t flow_crc16(const Packet& p);

template <class Entry>
class EdgeFlowTable {
 public:
  EdgeFlowTable(bool hardware_mode, uint32_t hardware_entries, Delta timeout)
      : hardware_(hardware_mode), timeout_(timeout) {
    if (hardware_) {
      slots_.resize(hardware_entries);
    } else {
      slots_.resize(1024);
      used_.assign(1024, 0);
    }
  }

  // The entry for the packet's flow, created (or taken over when expired) if needed;
  // *fresh tells whether it starts a new flow.
  Entry& upsert(const Packet& p, Time now, bool* fresh) {
    const uint32_t key = key_of(p);
    if (hardware_) {
      Entry& e = slots_[key % slots_.size()];
      *fresh = e.key != key || expired(e, now);
      e.key = key;
      return e;
    }
    Entry* e = probe(key, now, true);
    const size_t idx = static_cast<size_t>(e - slots_.data());
    if (!used_[idx]) {
      // A new slot: keep the load under one half, dropping expired entries on the way.
      if (2 * (used_count_ + 1) > slots_.size()) {
        rebuild(now, live_entries(now) * 4 > slots_.size() ? slots_.size() * 2 : slots_.size());
        return upsert(p, now, fresh);
      }
      used_[idx] = 1;
      ++used_count_;
      *e = Entry{};
      e->key = key;
      *fresh = true;
      return *e;
    }
    if (e->key != key) {  // reusing an expired entry of another flow
      *e = Entry{};
      e->key = key;
    }
    *fresh = expired(*e, now);
    return *e;
  }

  // The live entry with this key, or nullptr.
  Entry* find_key(uint32_t key, Time now) {
    Entry* e = hardware_ ? &slots_[key % slots_.size()] : probe(key, now, false);
    if (!e || (hardware_ && e->key != key) || expired(*e, now)) return nullptr;
    return e;
  }

  uint32_t key_of(const Packet& p) const { return hardware_ ? flow_crc16(p) : p.flow.index(); }
  bool hardware_mode() const { return hardware_; }
  // Entries live now (scans the table: for reports, not the packet path).
  size_t live_entries(Time now) const {
    size_t n = 0;
    for (size_t i = 0; i < slots_.size(); ++i)
      if ((hardware_ || used_[i]) && !expired(slots_[i], now)) ++n;
    return n;
  }
  // Entries the table holds: the fixed array in hardware mode, the keys stored otherwise.
  uint64_t entries_held() const { return hardware_ ? slots_.size() : used_count_; }

 private:
  bool expired(const Entry& e, Time now) const {
    return e.last_seen == Time::never() || now - e.last_seen > timeout_;
  }
  Entry* probe(uint32_t key, Time now, bool for_insert) {
    const size_t mask = slots_.size() - 1;
    size_t i = (key * 0x9e3779b1u) & mask;
    Entry* reusable = nullptr;
    for (;; i = (i + 1) & mask) {
      if (!used_[i]) {
        if (!for_insert) return nullptr;
        return reusable ? reusable : &slots_[i];
      }
      Entry& e = slots_[i];
      if (e.key == key) return &e;
      if (for_insert && !reusable && expired(e, now)) reusable = &e;
    }
  }
  void rebuild(Time now, size_t capacity) {
    std::vector<Entry> old;
    old.swap(slots_);
    std::vector<uint8_t> old_used;
    old_used.swap(used_);
    slots_.assign(capacity, Entry{});
    used_.assign(capacity, 0);
    used_count_ = 0;
    for (size_t i = 0; i < old.size(); ++i) {
      if (!old_used[i] || expired(old[i], now)) continue;
      Entry* slot = probe(old[i].key, now, true);
      *slot = old[i];
      used_[static_cast<size_t>(slot - slots_.data())] = 1;
      ++used_count_;
    }
  }

  bool hardware_;
  Delta timeout_;
  std::vector<Entry> slots_;
  std::vector<uint8_t> used_;  // exact mode: slot holds a key (live or expired)
  size_t used_count_ = 0;
};

}  // namespace rocelab
