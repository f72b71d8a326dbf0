// A queue pair that carries several messages (a collective's channel: NCCL posts each slice
// as one send on the connection's QP). The QP's bytes are one stream: its packet sequence
// numbers run on across messages, as an RC QP's PSNs do. Message k starts at the first
// packet boundary at or after message k-1's end, so a packet never carries two messages
// and a packet's sequence over the MTU stays its PSN, which the receivers' bitmaps index
// (the gap, under an MTU, is carried by no packet). The list is fixed before the run; the
// sender and the receiver keep their own cursors into it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/ids.h"

namespace rocelab {

struct QpMessage {
  FlowId flow;      // the message's own flow id (its record)
  uint64_t offset;  // its first byte in the QP's stream
  uint64_t end;     // one past its last byte
};

struct QpStream {
  std::vector<QpMessage> messages;  // in the order the QP posts them
  // The sender's: by message, whether it has started (its dependencies met); messages
  // posted (a prefix of those started); messages whose last byte has left the NIC (the first
  // time); and messages acknowledged whole.
  std::vector<uint8_t> ready;
  uint32_t posted = 0;
  uint32_t sent = 0;
  uint32_t acked = 0;
  // The receiver's: messages delivered whole.
  uint32_t delivered = 0;

  // Where a message after one ending at `end` starts.
  static uint64_t next_offset(uint64_t end, uint64_t mtu) { return (end + mtu - 1) / mtu * mtu; }
  // The message holding stream byte `seq` (a packet's first byte).
  const QpMessage& holding(uint64_t seq) const {
    const auto it = std::upper_bound(messages.begin(), messages.end(), seq,
                                     [](uint64_t s, const QpMessage& m) { return s < m.offset; });
    return *(it - 1);
  }
};

}  // namespace rocelab
