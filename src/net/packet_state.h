// Typed per-scheme packet state. A scheme declares each field it carries in packets once,
// by name and type, before the run; the layout gives every field its own bytes, so two
// schemes on one packet never share bits (FLB stamps + an INT stack + CONGA feedback can
// all ride on one packet). The first fields take the packet's own inline bytes
// (Packet::kInlineStateBytes, in the cache line the switch reads anyway); the rest live
// beside the packet pool, one fixed-size slot per packet. Both are zeroed when the packet
// is allocated: no allocation per packet.
//
// A field declared with Echo::kToReply is copied by the receiving NIC from a data packet
// into the ACK/NAK/CNP it triggers (timestamps, INT records), so the sender's congestion
// control or path policy reads it there.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "net/packet.h"

namespace rocelab {

enum class Echo : uint8_t { kNone, kToReply };

// The fields the NIC's transport stamps (transport/rdma_transport.cc), by name: a switch
// scheme that reads one declares the same name and type (BFC §3.7 reads the first-of-flow
// mark). An ACK's or NAK's selective sequence (uint64_t; selective repeat, bitmap):
inline constexpr const char* kSackSeqField = "transport.sack_seq";
// 1 (uint8_t) on a flow's first data packet, first sent:
inline constexpr const char* kFirstOfFlowField = "transport.first_of_flow";

template <class T>
class PacketField {
 public:
  PacketField() = default;
  bool valid() const { return size_ != 0; }
  uint32_t offset() const { return offset_; }
  bool in_packet() const { return in_packet_; }  // in Packet::inline_state, else beside it

 private:
  friend class PacketStateLayout;
  PacketField(uint32_t offset, uint32_t size, bool in_packet)
      : offset_(offset), size_(size), in_packet_(in_packet) {}
  uint32_t offset_ = 0;
  uint32_t size_ = 0;
  bool in_packet_ = false;
};

// Kinds of scheme-owned control packets (PacketType::kControl), by name: a scheme tells
// its own messages (FLB's CNM, probes) from another scheme's without magic numbers.
using ControlKind = uint16_t;

class PacketStateLayout {
 public:
  // The field `name` of type T. Declaring the same name again (one scheme instance per
  // switch) returns the same field; a different type or echo under one name is an error.
  template <class T>
  PacketField<T> declare(const std::string& name, Echo echo = Echo::kNone) {
    static_assert(
        std::is_trivially_copyable_v<T>,
        "packet state must be plain data: it starts as zero bytes and is copied as bytes");
    static_assert(alignof(T) <= kAlign, "packet state alignment above 8 bytes");
    const uint32_t size = sizeof(T);
    for (const Entry& e : entries_) {
      if (e.name != name) continue;
      if (e.size != size || e.echo != echo)
        throw std::logic_error("packet field '" + name + "' declared twice with different types");
      return PacketField<T>(e.offset, e.size, e.in_packet);
    }
    const uint32_t in_offset = (inline_used_ + alignof(T) - 1) / alignof(T) * alignof(T);
    if (in_offset + size <= Packet::kInlineStateBytes) {  // fits in the packet
      entries_.push_back(Entry{name, in_offset, size, echo, true});
      if (echo == Echo::kToReply) echo_in_packet_.emplace_back(in_offset, size);
      inline_used_ = in_offset + size;
      return PacketField<T>(in_offset, size, true);
    }
    if (frozen_) throw std::logic_error("packet field '" + name + "' declared after packets exist");
    const uint32_t offset = (stride_ + alignof(T) - 1) / alignof(T) * alignof(T);
    entries_.push_back(Entry{name, offset, size, echo, false});
    if (echo == Echo::kToReply) echo_beside_.emplace_back(offset, size);
    stride_ = (offset + size + kAlign - 1) / kAlign * kAlign;
    return PacketField<T>(offset, size, false);
  }

  ControlKind control_kind(const std::string& name) {
    for (size_t i = 0; i < control_kinds_.size(); ++i)
      if (control_kinds_[i] == name) return static_cast<ControlKind>(i + 1);
    control_kinds_.push_back(name);
    return static_cast<ControlKind>(control_kinds_.size());
  }

  uint32_t stride() const { return stride_; }  // bytes beside each packet
  struct Entry {
    std::string name;
    uint32_t offset;
    uint32_t size;
    Echo echo;
    bool in_packet;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }

  static constexpr uint32_t kAlign = 8;

 private:
  std::vector<Entry> entries_;
  std::vector<std::string> control_kinds_;
  friend class PacketStateStore;
  // (offset, size) of the echoed fields in the packet and beside it.
  std::vector<std::pair<uint32_t, uint32_t>> echo_in_packet_;
  std::vector<std::pair<uint32_t, uint32_t>> echo_beside_;
  uint32_t inline_used_ = 0;
  uint32_t stride_ = 0;
  bool frozen_ = false;
};

// The slots, chunked like the packet pool so that a reference survives growth.
class PacketStateStore {
 public:
  static constexpr uint32_t kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;

  PacketStateLayout& layout() { return layout_; }
  const PacketStateLayout& layout() const { return layout_; }

  // Packet `idx` was just allocated: its state starts zeroed.
  void reset(uint32_t idx) {
    if (!layout_.frozen()) freeze();
    const uint32_t stride = layout_.stride();
    if (stride == 0) return;
    if ((idx >> kChunkBits) >= chunk_count_.load(std::memory_order_acquire)) [[unlikely]]
      grow_to(idx);
    std::memset(slot(idx), 0, stride);
  }
  // A parallel run (Pool::set_lanes): packets are allocated on several threads. The layout
  // is fixed now, room for the chunks of `max_packets` is kept up front (a reader never
  // sees the table move), and growth takes a lock.
  void prepare_lanes(size_t max_packets) {
    if (!layout_.frozen()) freeze();
    chunks_.reserve((max_packets >> kChunkBits) + 1);
    locked_growth_ = true;
  }

  // The field of a pooled packet (`p` is the pool's object, so writing it is fine).
  template <class T>
  T& get(PacketField<T> f, const Packet& p) {
    std::byte* base = f.in_packet() ? const_cast<std::byte*>(p.inline_state) : slot(p.self.index());
    return *reinterpret_cast<T*>(base + f.offset());
  }

  // A packet's side slot as bytes (stride() of them), to carry it to another rank.
  size_t side_bytes() const { return layout_.stride(); }
  const std::byte* side_slot(uint32_t idx) const { return layout_.stride() ? slot(idx) : nullptr; }
  std::byte* side_slot(uint32_t idx) { return layout_.stride() ? slot(idx) : nullptr; }

  // Copies the echoed fields of packet `from` into packet `to` (a reply to it).
  void echo(const Packet& from, Packet& to) {
    for (const auto& [offset, size] : layout_.echo_in_packet_)
      std::memcpy(to.inline_state + offset, from.inline_state + offset, size);
    for (const auto& [offset, size] : layout_.echo_beside_)
      std::memcpy(slot(to.self.index()) + offset, slot(from.self.index()) + offset, size);
  }

 private:
  // The first packet fixes the side slots (older packets would have none for a later field;
  // fields in the packet itself may still be declared).
  void freeze() {
    layout_.freeze();
    words_per_slot_ = layout_.stride() / PacketStateLayout::kAlign;
  }

  void grow_to(uint32_t idx) {
    std::unique_lock<std::mutex> lock(grow_mutex_, std::defer_lock);
    if (locked_growth_) lock.lock();
    while ((idx >> kChunkBits) >= chunks_.size())
      chunks_.push_back(std::make_unique<uint64_t[]>(size_t{kChunkSize} * words_per_slot_));
    chunk_count_.store(chunks_.size(), std::memory_order_release);
  }

  std::byte* slot(uint32_t idx) const {
    return reinterpret_cast<std::byte*>(chunks_[idx >> kChunkBits].get() +
                                        size_t{idx & (kChunkSize - 1)} * words_per_slot_);
  }

  PacketStateLayout layout_;
  size_t words_per_slot_ = 0;
  std::vector<std::unique_ptr<uint64_t[]>> chunks_;
  std::atomic<size_t> chunk_count_{0};  // chunks_.size(), as the other threads may read it
  bool locked_growth_ = false;
  std::mutex grow_mutex_;
};

}  // namespace rocelab
