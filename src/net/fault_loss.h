// What faults lose, counted apart from what the model's buffers drop: a lossless run's
// invariant (no drop under PFC) holds for NetCounters::drops, and these are the losses a
// scripted fault (net/faults.h) caused, which the transports must recover.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rocelab {

enum class FaultLoss : uint8_t {
  kLinkDown,    // sent into a failed link, or on the wire when it failed
  kBitError,    // a lossy link's random loss
  kNicStalled,  // sent to a NIC that stopped draining (a PFC storm source)
  kWatchdog,    // dropped by a PFC watchdog from a queue it declared stormed
  kNoRoute,     // a switch had no route left (the fabric cut by failures)
  kCount
};
inline constexpr const char* kFaultLossNames[] = {"link_down", "bit_error", "nic_stalled",
                                                  "watchdog", "no_route"};

struct FaultLossCount {
  uint64_t data_packets = 0;
  uint64_t data_bytes = 0;      // wire bytes
  uint64_t control_frames = 0;  // ACK/NAK/CNP/PAUSE/control
};
using FaultLosses = std::array<FaultLossCount, static_cast<size_t>(FaultLoss::kCount)>;

}  // namespace rocelab
