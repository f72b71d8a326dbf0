#include "lb/flb_flow_table.h"

namespace rocelab {

uint16_t flow_crc16(const Packet& p) {
  // Node ids stand in for IPv4 addresses (the ns-3 simulators' 11.x.y.1 scheme).
  const uint32_t sip = 0x0b000001u + ((p.src.index() / 256) << 16) + ((p.src.index() % 256) << 8);
  const uint32_t dip = 0x0b000001u + ((p.dst.index() / 256) << 16) + ((p.dst.index() % 256) << 8);
  const uint8_t tuple[13] = {uint8_t(sip >> 24),
                             uint8_t(sip >> 16),
                             uint8_t(sip >> 8),
                             uint8_t(sip),
                             uint8_t(dip >> 24),
                             uint8_t(dip >> 16),
                             uint8_t(dip >> 8),
                             uint8_t(dip),
                             uint8_t(p.sport >> 8),
                             uint8_t(p.sport),
                             uint8_t(p.dport >> 8),
                             uint8_t(p.dport),
                             17};
  uint16_t crc = 0xffff;
  for (uint8_t byte : tuple) {
    crc ^= static_cast<uint16_t>(byte) << 8;
    for (int i = 0; i < 8; ++i)
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

FlbFlowTable::FlbFlowTable(bool hardware_mode, uint32_t hardware_entries, Delta timeout)
    : hardware_(hardware_mode), timeout_(timeout) {
  if (hardware_) {
    slots_.resize(hardware_entries);
  } else {
    slots_.resize(1024);
    used_.assign(1024, 0);
  }
}

FlbFlowEntry* FlbFlowTable::probe(uint32_t key, Time now, bool for_insert) {
  const size_t mask = slots_.size() - 1;
  size_t i = (key * 0x9e3779b1u) & mask;
  FlbFlowEntry* reusable = nullptr;
  for (;; i = (i + 1) & mask) {
    if (!used_[i]) {
      if (!for_insert) return nullptr;
      return reusable ? reusable : &slots_[i];
    }
    FlbFlowEntry& e = slots_[i];
    if (e.key == key) return &e;
    if (for_insert && !reusable && expired(e, now)) reusable = &e;
  }
}

void FlbFlowTable::rebuild(Time now, size_t capacity) {
  std::vector<FlbFlowEntry> old;
  old.swap(slots_);
  std::vector<uint8_t> old_used;
  old_used.swap(used_);
  slots_.assign(capacity, FlbFlowEntry{});
  used_.assign(capacity, 0);
  used_count_ = 0;
  for (size_t i = 0; i < old.size(); ++i) {
    if (!old_used[i] || expired(old[i], now)) continue;
    FlbFlowEntry* slot = probe(old[i].key, now, true);
    *slot = old[i];
    used_[static_cast<size_t>(slot - slots_.data())] = 1;
    ++used_count_;
  }
}

FlbFlowEntry* FlbFlowTable::find_key(uint32_t key, Time now) {
  FlbFlowEntry* e = hardware_ ? &slots_[key % slots_.size()] : probe(key, now, false);
  if (!e || (hardware_ && e->key != key) || expired(*e, now)) return nullptr;
  return e;
}

FlbFlowEntry& FlbFlowTable::upsert(const Packet& p, Time now, bool* fresh) {
  const uint32_t key = key_of(p);
  if (hardware_) {
    FlbFlowEntry& e = slots_[key % slots_.size()];
    *fresh = e.key != key || expired(e, now);
    e.key = key;
    return e;
  }
  FlbFlowEntry* e = probe(key, now, true);
  const size_t idx = static_cast<size_t>(e - slots_.data());
  if (!used_[idx]) {
    // A new slot: keep the load under one half, dropping expired entries on the way.
    if (2 * (used_count_ + 1) > slots_.size()) {
      rebuild(now, live_entries(now) * 4 > slots_.size() ? slots_.size() * 2 : slots_.size());
      return upsert(p, now, fresh);
    }
    used_[idx] = 1;
    ++used_count_;
    *e = FlbFlowEntry{};
    e->key = key;
    *fresh = true;
    return *e;
  }
  if (e->key != key) {  // reusing an expired entry of another flow
    *e = FlbFlowEntry{};
    e->key = key;
  }
  *fresh = expired(*e, now);
  return *e;
}

size_t FlbFlowTable::live_entries(Time now) const {
  size_t n = 0;
  for (size_t i = 0; i < slots_.size(); ++i)
    if ((hardware_ || used_[i]) && !expired(slots_[i], now)) ++n;
  return n;
}

uint64_t FlbFlowTable::memory_bytes(uint32_t max_paths) const {
  const uint64_t path_bits = max_paths > 256 ? 24 : 8;
  const uint64_t bits_per_entry = 16 + path_bits + 8 + 48;
  const uint64_t entries = hardware_ ? slots_.size() : used_count_;
  return (entries * bits_per_entry + 7) / 8;
}

}  // namespace rocelab
