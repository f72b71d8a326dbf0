// RoCE RC transport parameters. Each default names its source.
#pragma once

#include <cstdint>

#include "sim/ids.h"
#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

struct TransportConfig {
  // Priority class of RDMA data (RoCE deployments commonly use 3; see PfcConfig).
  Priority data_priority = 3;
  // One ACK per `ack_interval_packets` in-order data packets (and always for the last).
  // 1 = ACK per packet, as the HPCC/ConWeave ns-3 simulators do by default.
  uint32_t ack_interval_packets = 1;
  // A NAK for the same expected sequence is repeated at most once per this interval
  // (HPCC ns-3 rdma-hw "NACK Interval", 500 us).
  Delta nak_interval = Delta::from_us(500);
  // The notification point sends at most one CNP per flow per interval (DCQCN paper,
  // Zhu et al. SIGCOMM'15 §3.2: N = 50 us). 0 = a CNP for every marked packet, as the
  // ns-3 reference simulators do.
  Delta cnp_interval = Delta::from_us(50);
  // Retransmission timeout (go-back-N from the oldest unacked byte). Chosen well above
  // any RTT of these fabrics under PFC so that it fires only after real loss.
  Delta rto = Delta::from_ms(1);
};

void describe(ParamVisitor& v, TransportConfig& c);

}  // namespace rocelab
