// An event as the simulator runs it, and as the event list stores it: a 128-bit key
// (time << 64 | insertion sequence) that orders events, ties broken by insertion, and the
// handler's payload carried beside it.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace rocelab {

struct Event {
  Time time;
  uint64_t seq;
  uint32_t target;  // index of the handler in the simulator's table
  uint32_t kind;    // meaning chosen by the handler
  uint64_t arg;     // meaning chosen by the handler (e.g. flow id | timer version << 32)
};

// Time is never negative and sequence numbers are unique, so one unsigned comparison
// orders events and no two keys are equal.
using EventKey = unsigned __int128;

inline EventKey make_event_key(int64_t time_ps, uint64_t seq) {
  return (static_cast<EventKey>(static_cast<uint64_t>(time_ps)) << 64) | seq;
}
inline int64_t event_key_time(EventKey key) {
  return static_cast<int64_t>(key >> 64);
}

struct EventPayload {
  uint32_t target;
  uint32_t kind;
  uint64_t arg;
};

// The payload travels with its key: 32 bytes moved a few times beat a side array read on
// every pop (written long before, it has left the cache).
struct EventEntry {
  EventKey key;
  EventPayload payload;
  Event event() const {
    return Event{Time{event_key_time(key)}, static_cast<uint64_t>(key), payload.target,
                 payload.kind, payload.arg};
  }
};

}  // namespace rocelab
