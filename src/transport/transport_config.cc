#include "transport/transport_config.h"

namespace rocelab {

void describe(ParamVisitor& v, TransportConfig& c) {
  int64_t prio = c.data_priority;
  v.integer("data_priority", prio, 0, 7, "802.1p class of RDMA data (3 is common)");
  c.data_priority = static_cast<Priority>(prio);
  v.count("ack_interval", c.ack_interval_packets, 1, 1u << 20,
          "ACK every this many in-order packets (1: HPCC/ConWeave ns-3 L2_ACK_INTERVAL)");
  v.duration("nak_interval", c.nak_interval, Delta::zero(), Delta::max(),
             "minimum gap between NAKs for the same sequence (500 us: HPCC ns-3)");
  v.duration("cnp_interval", c.cnp_interval, Delta::zero(), Delta::max(),
             "at most one CNP per flow per interval (50 us: DCQCN); 0 = every marked packet");
  v.duration("rto", c.rto, Delta::from_ns(1), Delta::max(),
             "retransmission timeout, go-back-N from the oldest unacked byte");
}

}  // namespace rocelab
