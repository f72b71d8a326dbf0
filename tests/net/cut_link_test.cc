// A link cut between partitions (EgressPort::set_cut) delivers each frame by an event of
// its own, keyed as the chained delivery of an uncut link: a run with every link cut gives
// the same results, event for event, as one with none (both serial here).
#include <gtest/gtest.h>

#include <vector>

#include "net/faults.h"
#include "scenario/build/experiment.h"
#include "test_util.h"

namespace rocelab {
namespace {

struct Outcome {
  std::vector<int64_t> finish_ps;
  uint64_t events = 0;
  uint64_t pause_frames = 0;
  uint64_t lost_data_packets = 0;
  bool operator==(const Outcome&) const = default;
};

Outcome run(const ExperimentSpec& spec, bool cut) {
  Experiment exp(spec);
  uint32_t ports = 0;
  if (cut) {
    for (uint32_t n = 0; n < exp.network().node_count(); ++n) {
      Node& node = exp.network().node(NodeId(n));
      for (size_t p = 0; p < node.port_count(); ++p, ++ports)
        node.port(PortId(static_cast<uint16_t>(p))).set_cut(true);
    }
  }
  if (cut) {
    EXPECT_GT(ports, 0u);
  }
  const RunStats st = test::run_checked(exp);
  Outcome o;
  for (const FlowRecord& r : exp.transport().records()) o.finish_ps.push_back(r.finish.ps);
  o.events = st.events;
  o.pause_frames = exp.network().counters().pause_frames;
  o.lost_data_packets =
      exp.network().counters().fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)].data_packets;
  return o;
}

// An incast into a small buffer (PFC pauses, ECN, DCQCN) beside flows that start together:
// many frames arrive at one switch at the same picosecond.
TEST(CutLink, EveryLinkCutGivesTheSameRunAsNone) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 4);
  spec.network.switch_config.buffer_bytes = 400 * 1000;
  for (uint32_t s = 1; s < 8; ++s) spec.flows.push_back(test::flow(s, 0, 150'000));
  spec.flows.push_back(test::flow(4, 1, 1'000'000));
  spec.flows.push_back(test::flow(5, 2, 600'000, Time{Delta::from_us(3).ps}));
  const Outcome chained = run(spec, false), cut = run(spec, true);
  EXPECT_GT(chained.pause_frames, 0u) << "the incast pauses";
  EXPECT_EQ(cut, chained);
}

// A link that fails with frames on it loses the same frames cut or not (the fault runs as
// a global event between windows; a cut link's frames are the peer's events by then).
TEST(CutLink, AFailedCutLinkLosesTheFramesOnItsWire) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100), gbps(100)}, Delta::from_us(1));
  spec.network.switch_config.ecn.enabled = false;
  spec.transport.rto = Delta::from_us(100);
  spec.flows = {test::flow(0, 1, 100 * 1000)};
  spec.faults.events = {
      test::link_down(1, true, Delta::from_us(5), Delta::from_us(20), Delta::from_us(100))};
  const Outcome chained = run(spec, false), cut = run(spec, true);
  EXPECT_EQ(chained.lost_data_packets, 67u) << "tests/net/faults_test.cc counts them by hand";
  EXPECT_EQ(cut, chained);
}

}  // namespace
}  // namespace rocelab
