// SFQ (fc: sfq), the fair-queueing baselines of BFC §4.1: a flow in its own queue is not
// held behind another flow's backlog, whatever the number of queues.
#include <gtest/gtest.h>

#include "fc/sfq.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Two local senders push 1.5 MB each into h0 (a 2:1 backlog at h0's port); 100 us later a
// third sends 100 KB. In one FIFO the short flow waits behind the backlog; in its own SFQ
// queue it gets a third of the link at once.
double short_flow_fct_us(const std::string& fc, uint32_t queues) {
  ExperimentSpec spec;
  spec.fc = fc;
  spec.cc = "none";
  spec.topology = test::small_leaf_spine(1, 1, 4);
  if (fc == "sfq") {
    auto cfg = std::make_shared<SfqConfig>();
    cfg->params().queues = queues;
    spec.fc_config = cfg;
  }
  spec.flows.push_back(test::flow(1, 0, 1'500'000));
  spec.flows.push_back(test::flow(2, 0, 1'500'000));
  spec.flows.push_back(test::flow(3, 0, 100'000, Time{Delta::from_us(100).ps}));
  Experiment exp(spec);
  test::run_checked(exp);
  EXPECT_EQ(exp.network().counters().drops, 0u);
  const FlowRecord& r = exp.transport().record(FlowId(2));
  return (r.finish - r.start).us();
}

TEST(Sfq, AShortFlowInItsOwnQueueSkipsTheBacklog) {
  // 100 KB at a third of 100 Gb/s: 100 frames of 1082 B in 26 us, plus the path.
  const double fifo = short_flow_fct_us("pfc", 0);
  for (uint32_t queues : {32u, 1000u}) {
    const double sfq = short_flow_fct_us("sfq", queues);
    EXPECT_LT(sfq, 40.0) << queues << " queues";
    EXPECT_GT(fifo, 3 * sfq) << "FIFO: behind the backlog of the two long flows";
  }
}

}  // namespace
}  // namespace rocelab
