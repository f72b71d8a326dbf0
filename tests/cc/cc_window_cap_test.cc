// The window cap of rate-based schemes (cc.window_cap_bdp; BFC §4.1 DCQCN+Win): bytes in
// flight never exceed the cap, a cap of one BDP leaves a lone flow at line rate, and a
// quarter BDP slows it about fourfold.
#include <gtest/gtest.h>

#include <algorithm>

#include "cc/cc_registry.h"
#include "cc/none.h"
#include "test_util.h"

namespace rocelab {
namespace {

struct CapRun {
  Delta fct;
  uint64_t max_in_flight = 0;
  uint64_t cap = 0;
};

// a -> sw0 -> sw1 -> b at 100 Gb/s, 1 us links, one 2 MB flow without congestion control.
CapRun run_with_cap(double bdps) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(100)}, Delta::from_us(1));
  spec.network.switch_config.ecn.enabled = false;
  spec.flows = {test::flow(0, 1, 2 * 1000 * 1000)};
  auto cc = std::make_unique<NoCongestionControl>();
  cc->set_window_cap_bdp(bdps);
  Experiment exp(spec, std::move(cc));
  const FlowId f{0};
  CapRun out;
  out.cap = static_cast<uint64_t>(bdps * static_cast<double>(exp.transport().bdp_bytes(f)));
  for (int64_t t = 0; !exp.transport().record(f).finished(); t += 50'000) {  // every 50 ns
    exp.run(Time{t});
    out.max_in_flight = std::max(out.max_in_flight, exp.transport().inflight_bytes(f));
  }
  exp.drain();
  EXPECT_EQ(exp.check_invariants(), "");
  out.fct = exp.transport().record(f).fct();
  return out;
}

TEST(WindowCap, BoundsBytesInFlight) {
  const CapRun none = run_with_cap(0);
  const CapRun one = run_with_cap(1);
  const CapRun quarter = run_with_cap(0.25);
  // One BDP: 3 hops of 1 us each way plus serialization, about 6.4 us x 100 Gb/s = 80 KB.
  EXPECT_GT(one.cap, 70'000u);
  EXPECT_LT(one.cap, 90'000u);
  // A lone flow keeps a BDP of wire bytes in flight, fewer payload bytes: a cap of one
  // BDP never binds, and its FCT is the uncapped one to the picosecond.
  EXPECT_LT(none.max_in_flight, one.cap);
  EXPECT_GT(none.max_in_flight, one.cap * 9 / 10);
  EXPECT_EQ(one.fct, none.fct);
  // Whole packets: the last one sent may start just below the cap.
  EXPECT_LE(one.max_in_flight, one.cap + 1000);
  EXPECT_LE(quarter.max_in_flight, quarter.cap + 1000);
  const double slowdown = quarter.fct.us() / none.fct.us();
  EXPECT_GT(slowdown, 3.3);
  EXPECT_LT(slowdown, 4.3);
}

TEST(WindowCap, DcqcnWinIsDcqcnWithOneBdp) {
  const auto* e = cc_registry().find("dcqcn_win");
  ASSERT_NE(e, nullptr);
  auto cfg = e->factory();
  EXPECT_EQ(cfg->window_cap_bdp, 1.0);
  EXPECT_EQ(cfg->build()->window_cap_bdp(), 1.0);
}

}  // namespace
}  // namespace rocelab
