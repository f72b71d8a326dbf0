// The default retransmission timer (transport.rto: auto), derived from the fabric: the
// longest a data packet can queue on its way, plus the round trip.
//
// At a switch output a packet waits behind at most the switch's whole shared buffer,
// drained at the port's rate (or, paused, until the switch downstream drains its own); so
// along a path it waits at most the sum, over the path's switches, of buffer x 8 / the
// switch's slowest port rate. The timer restarts on each new ACK, and the oldest unacked
// packet has queued at most that much when its ACK comes back, plus the round trip (the
// propagation both ways); ACKs queued with data (switch.ack_queue: data) may wait as long
// again on the way back. The bound holds for FIFO queues without a deadlock; per-flow
// schedulers (SFQ, BFC) can exceed it, and a run says so when a timer fires on data still
// queued (summary.json "notes").
#pragma once

#include <string>

#include "sim/time.h"

namespace rocelab {

struct ExperimentSpec;

struct FabricRto {
  Delta rto;               // rounded up to the microsecond
  std::string derivation;  // how, in one line: the path and its switches' figures
};

FabricRto fabric_rto(const ExperimentSpec& spec);

}  // namespace rocelab
