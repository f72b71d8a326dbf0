// switch.ack_queue: ACK/NAK frames behind data in their class's queue (HPCC ns-3 switches)
// or ahead of it in the control queue (ConWeave ns-3).
#include <gtest/gtest.h>

#include "test_util.h"

namespace rocelab {
namespace {

// Hosts a1, a2, b, c on one switch. a1 and a2 send 2 MB each to b, so the port to b queues;
// b sends a 10 KB flow to c whose ACKs come back through that port.
Delta small_flow_fct(const std::string& ack_queue) {
  TopologySpec t;
  for (const char* h : {"a1", "a2", "b", "c"}) t.add_node(NodeKind::kHost, Layer::kHost, h);
  const uint32_t sw = t.add_node(NodeKind::kSwitch, Layer::kEdge, "sw");
  for (uint32_t h = 0; h < 4; ++h) t.add_link(h, sw, gbps(100), Delta::from_us(1));
  ExperimentSpec spec;
  spec.topology = t;
  spec.network.switch_config.ack_queue = ack_queue;
  spec.network.switch_config.ecn.enabled = false;
  const Time later{Delta::from_us(60).ps};
  spec.flows = {test::flow(0, 2, 2'000'000), test::flow(1, 2, 2'000'000),
                test::flow(2, 3, 10'000, later)};
  Experiment exp(spec);
  test::run_checked(exp);  // no drop, buffers drained (ACKs counted in and out of the MMU)
  return exp.transport().record(FlowId(2)).fct();
}

TEST(AckQueue, AcksBehindDataWaitForTheQueue) {
  const Delta control = small_flow_fct("control");
  const Delta data = small_flow_fct("data");
  // By 60 us two 100G senders into one 100G port have queued about 60 us x 100G = 750 KB:
  // 60 us of waiting for the ACK of the flow's last packet.
  EXPECT_LT(control.us(), 10.0) << "data " << data.us() << " us";
  EXPECT_GT(data.us(), control.us() + 30.0) << "control " << control.us() << " us";
}

}  // namespace
}  // namespace rocelab
