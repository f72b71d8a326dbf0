#include <gtest/gtest.h>

#include "cc/dcqcn.h"
#include "test_util.h"

namespace rocelab {
namespace {

// Senders 0..n-1 and receiver n on one switch, all links 100 Gb/s, 1 us.
TopologySpec star(uint32_t senders) {
  TopologySpec t;
  for (uint32_t i = 0; i <= senders; ++i)
    t.add_node(NodeKind::kHost, Layer::kHost, std::string("h").append(std::to_string(i)));
  const uint32_t sw = t.add_node(NodeKind::kSwitch, Layer::kEdge, "sw");
  for (uint32_t i = 0; i <= senders; ++i) t.add_link(i, sw, gbps(100), Delta::from_us(1));
  return t;
}

TEST(Dcqcn, SingleCnpCutsRateAsTheEquationsSay) {
  ExperimentSpec spec;
  spec.topology = star(1);
  spec.flows = {test::flow(0, 1, 100 * 1000 * 1000)};
  auto owned = std::make_unique<Dcqcn>();
  Dcqcn* dcqcn = owned.get();
  Experiment exp(spec, std::move(owned));
  const FlowId f(0);
  const double g = 1.0 / 256;

  exp.run(Time{Delta::from_us(100).ps});
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(100)) << "DCQCN starts at line rate";
  Packet cnp;
  dcqcn->on_cnp(f, cnp);
  // R_T = R_C = 100G; R_C = 100G (1 - 1/2) = 50G; alpha = (1-g) 1 + g = 1.
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(50));
  EXPECT_EQ(dcqcn->target_rate_bps(f), gbps(100));
  EXPECT_DOUBLE_EQ(dcqcn->alpha(f), 1.0);

  // 55 us later: the alpha timer decays alpha once, the increase timer does one fast
  // recovery step R_C = (R_T + R_C) / 2 = 75G (10 MB byte counter not reached).
  exp.run(Time{Delta::from_us(155).ps});
  EXPECT_DOUBLE_EQ(dcqcn->alpha(f), 1.0 - g);
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(75));
  EXPECT_EQ(dcqcn->target_rate_bps(f), gbps(100));

  // A second CNP: R_C = 75G (1 - alpha/2) with alpha = 1 - g.
  dcqcn->on_cnp(f, cnp);
  const double expected = 75e9 * (1 - (1.0 - g) / 2);
  EXPECT_NEAR(static_cast<double>(exp.transport().rate_bps(f)), expected, 1.0);
  EXPECT_EQ(dcqcn->target_rate_bps(f), gbps(75));
  EXPECT_DOUBLE_EQ(dcqcn->alpha(f), (1 - g) * (1 - g) + g);
}

TEST(Dcqcn, TwoFlowsConvergeToFairShare) {
  ExperimentSpec spec;
  spec.topology = star(2);
  spec.cc = "dcqcn";
  const uint64_t size = 400 * 1000 * 1000;
  spec.flows = {test::flow(0, 2, size), test::flow(1, 2, size, Time{Delta::from_us(500).ps})};
  Experiment exp(spec);
  const Time t1{Delta::from_ms(15).ps}, t2{Delta::from_ms(25).ps};
  exp.run(t1);
  const uint64_t a1 = exp.transport().delivered_bytes(FlowId(0));
  const uint64_t b1 = exp.transport().delivered_bytes(FlowId(1));
  exp.run(t2);
  const double secs = (t2 - t1).seconds();
  const double a = static_cast<double>(exp.transport().delivered_bytes(FlowId(0)) - a1) * 8 / secs;
  const double b = static_cast<double>(exp.transport().delivered_bytes(FlowId(1)) - b1) * 8 / secs;
  const double fair = 100e9 * 1000 / 1082 / 2;  // goodput share of the 100 Gb/s port
  EXPECT_NEAR(a / fair, 1.0, 0.10) << "flow 0 at " << a / 1e9 << " Gb/s";
  EXPECT_NEAR(b / fair, 1.0, 0.10) << "flow 1 at " << b / 1e9 << " Gb/s";
  EXPECT_GT(exp.network().counters().ecn_marks, 0u);
  EXPECT_GT(exp.transport().counters().cnps_sent, 0u);
  // The mechanism's effect: DCQCN holds the queue under the PFC threshold, where the same
  // two flows without congestion control trigger thousands of PAUSEs.
  EXPECT_EQ(exp.network().counters().pause_frames, 0u);
}

}  // namespace
}  // namespace rocelab
