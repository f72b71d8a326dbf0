// The default retransmission timer (transport.rto: auto), derived from the fabric: the
// longest a data packet can queue on its way, plus the round trip.
//
// At a switch output a packet waits behind at most the switch's shared buffer, drained at
// the port's rate. In a lossy fabric that is all: along a path a packet waits at most the
// sum, over the path's switches, of buffer x 8 / the switch's slowest port rate. Under PFC
// a port upstream is paused until the switch has sent on what it admitted from it, and
// the switch's other ingress ports' packets go out in between: the upstream port drains at
// its share of the egress, so each switch counts (ports - 1) times its drain (measured:
// with the drain alone, FLB Fig. 16's 200-to-1 incast and Proteus' Fig. 2 still timed out
// with nothing lost). The timer restarts on each new ACK, and the oldest unacked packet
// has queued at most that much when its ACK comes back, plus the round trip (propagation
// both ways); ACKs queued with data (switch.ack_queue: data) may wait as long again. When
// a timer fires with nothing lost, a run says so (summary.json "notes").
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
