// ECN thresholds scaled with the port rate (EcnConfig::for_port: reference_rate_bps and
// per_rate) at hand-computed bytes, and their effect at a switch port: a packet that
// leaves its queue with more than the port's scaled Kmax behind it is marked, one with at
// most Kmin behind it is not.
#include <gtest/gtest.h>

#include "test_util.h"

namespace rocelab {
namespace {

// Kmin/Kmax scale with rate / reference. HPCC ns-3's maps hold 100 KB / 400 KB at 25G;
// from a 25G reference: 100G is x4 (400 KB / 1.6 MB, their 100G entry), 400G x16.
// From the DCQCN paper's 5 KB / 200 KB at a 100G reference: 25G is x1/4, 400G x4.
TEST(EcnNumbers, ThresholdsScaleWithThePortRate) {
  EcnConfig hpcc;
  hpcc.kmin_bytes = 100'000;
  hpcc.kmax_bytes = 400'000;
  hpcc.pmax = 0.2;
  hpcc.reference_rate_bps = gbps(25);
  struct Expect {
    BitsPerSec rate;
    int64_t kmin, kmax;
  };
  for (const Expect& e : {Expect{gbps(25), 100'000, 400'000}, Expect{gbps(100), 400'000, 1'600'000},
                          Expect{gbps(400), 1'600'000, 6'400'000}}) {
    const EcnConfig at = hpcc.for_port(e.rate);
    EXPECT_EQ(at.kmin_bytes, e.kmin) << e.rate;
    EXPECT_EQ(at.kmax_bytes, e.kmax) << e.rate;
    EXPECT_EQ(at.pmax, 0.2) << "pmax does not scale";
  }

  EcnConfig paper;  // defaults: 5 KB / 200 KB
  paper.reference_rate_bps = gbps(100);
  for (const Expect& e : {Expect{gbps(25), 1'250, 50'000}, Expect{gbps(100), 5'000, 200'000},
                          Expect{gbps(400), 20'000, 800'000}}) {
    const EcnConfig at = paper.for_port(e.rate);
    EXPECT_EQ(at.kmin_bytes, e.kmin) << e.rate;
    EXPECT_EQ(at.kmax_bytes, e.kmax) << e.rate;
  }

  // Without a reference every port keeps the configured values; a per_rate entry wins
  // over scaling for its rate only.
  EcnConfig fixed;
  EXPECT_EQ(fixed.for_port(gbps(400)).kmax_bytes, 200'000);
  paper.per_rate = {{gbps(400), 7'000, 70'000, 0.5}};
  EXPECT_EQ(paper.for_port(gbps(400)).kmin_bytes, 7'000);
  EXPECT_EQ(paper.for_port(gbps(400)).kmax_bytes, 70'000);
  EXPECT_EQ(paper.for_port(gbps(400)).pmax, 0.5);
  EXPECT_EQ(paper.for_port(gbps(25)).kmax_bytes, 50'000);
}

// a -> sw0 -> b, both links at `rate`. sw0's egress to b is held while the flow's n frames
// (1082 B each) queue up, then let go at 10 us: the k-th frame to leave (from 0) has
// (n - 1 - k) x 1082 B behind it when RED looks at the queue. Base thresholds at a 25G
// reference: Kmin 2,503 B, Kmax 2,569 B, Pmax 1; scaled to the port they leave no queue
// length of whole frames between Kmin and Kmax, so the marking is exact:
//   25G  (x1):  Kmin  2,503, Kmax  2,569: 2 frames  2,164 B no mark, 3 frames  3,246 B mark
//   100G (x4):  Kmin 10,012, Kmax 10,276: 9 frames  9,738 B no mark, 10 frames 10,820 B mark
//   400G (x16): Kmin 40,048, Kmax 41,104: 37 frames 40,034 B (14 B under Kmin) no mark,
//                                         38 frames 41,116 B (12 B over Kmax) mark
// With n = 13, 20 and 48 frames, the departures with 3 / 10 / 38 or more frames behind
// them are exactly 10. Unscaled thresholds would mark 17 at 100G and 45 at 400G.
uint64_t marks_leaving_a_held_queue(BitsPerSec rate, uint64_t frames) {
  ExperimentSpec spec;
  spec.topology = test::chain({rate, rate}, Delta::from_us(1));
  EcnConfig& ecn = spec.network.switch_config.ecn;
  ecn.kmin_bytes = 2'503;
  ecn.kmax_bytes = 2'569;
  ecn.pmax = 1.0;
  ecn.reference_rate_bps = gbps(25);
  spec.flows = {test::flow(0, 1, frames * 1000)};
  Experiment exp(spec);
  EgressPort& to_b = exp.network().switch_at(NodeId(2)).port(PortId(1));
  to_b.set_priority_paused(spec.transport.data_priority, true);
  exp.run(Time{Delta::from_us(10).ps});
  EXPECT_EQ(to_b.data_queue_bytes(), static_cast<int64_t>(frames * 1082)) << "all queued";
  EXPECT_EQ(exp.network().counters().ecn_marks, 0u);
  to_b.set_priority_paused(spec.transport.data_priority, false);
  test::run_checked(exp);
  return exp.network().counters().ecn_marks;
}

TEST(EcnNumbers, MarksAboveTheScaledKmaxOfThePortAndNotUnderItsKmin) {
  EXPECT_EQ(marks_leaving_a_held_queue(gbps(25), 13), 10u);
  EXPECT_EQ(marks_leaving_a_held_queue(gbps(100), 20), 10u);
  EXPECT_EQ(marks_leaving_a_held_queue(gbps(400), 48), 10u);
}

}  // namespace
}  // namespace rocelab
