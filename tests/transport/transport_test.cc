// RoCE transport recovery modes (go-back-N, IRN-like selective repeat, reorder buffer)
// under reordering, and the network reordering counter.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "net/topology.h"
#include "scenario/config/scenario_config.h"
#include "test_util.h"
#include "transport/loss_recovery.h"
#include "transport/packet_bitmap.h"

namespace rocelab {
namespace {

TEST(PacketBitmap, MarksSlideAndSurviveGrowthAcrossTheRing) {
  PacketBitmap b;
  EXPECT_FALSE(b.test(0));
  EXPECT_TRUE(b.set(3));
  EXPECT_FALSE(b.set(3)) << "second mark of the same packet";
  EXPECT_TRUE(b.set(70));  // grows to two words
  EXPECT_TRUE(b.test(3));
  EXPECT_TRUE(b.test(70));
  EXPECT_FALSE(b.test(4));
  EXPECT_EQ(b.marked(), 2u);
  b.advance_to(60);  // forgets 3; 70 now sits across the ring's wrap point
  EXPECT_FALSE(b.test(3));
  EXPECT_TRUE(b.test(70));
  EXPECT_EQ(b.marked(), 1u);
  EXPECT_TRUE(b.set(60 + 127));  // last slot of the 128-bit window, no growth
  EXPECT_TRUE(b.set(60 + 300));  // grows while wrapped
  EXPECT_TRUE(b.test(70));
  EXPECT_TRUE(b.test(187));
  EXPECT_TRUE(b.test(360));
  EXPECT_EQ(b.marked(), 3u);
  EXPECT_FALSE(b.set(10)) << "below the base";
  b.advance_to(70);
  EXPECT_EQ(b.advance_over_marked(), 71u);
  b.advance_to(100000);
  EXPECT_EQ(b.marked(), 0u);
  EXPECT_FALSE(b.test(360));
}

constexpr uint64_t kFlowBytes = 1000 * 1000;  // 1000 packets of 1000 B

// Two leaves, two spines, one host each side; the path through spine1 runs at a tenth of
// the rate, so spraying packets over both spines reorders them.
Experiment sprayed_over_unequal_paths(const std::string& lb, const std::string& recovery,
                                      OooWindow window = OooWindow::kBdp) {
  ExperimentSpec spec;
  spec.transport.ooo_window = window;
  spec.topology = test::small_leaf_spine(2, 2, 1);
  EXPECT_EQ(spec.topology.set_link_rate("leaf0", "spine1", gbps(10)), 1);
  EXPECT_EQ(spec.topology.set_link_rate("spine1", "leaf1", gbps(10)), 1);
  spec.lb = lb;
  spec.transport.recovery = recovery;
  spec.flows = {test::flow(0, 1, kFlowBytes)};
  return Experiment(spec);
}

TEST(Transport, EcmpNeverReordersAndSprayingDoes) {
  Experiment ecmp = sprayed_over_unequal_paths("ecmp", "go_back_n");
  test::run_checked(ecmp);
  EXPECT_EQ(ecmp.transport().counters().network_reordered_packets, 0u);
  EXPECT_EQ(ecmp.transport().counters().out_of_order_packets, 0u);
  Experiment rps = sprayed_over_unequal_paths("rps", "go_back_n");
  test::run_checked(rps);
  EXPECT_GT(rps.transport().counters().network_reordered_packets, 10u);
  // Go-back-N drops everything behind a hole, so the receiver sees more out-of-order
  // arrivals than the network caused.
  EXPECT_GE(rps.transport().counters().out_of_order_packets,
            rps.transport().counters().network_reordered_packets);
}

// With no bound on its window (below: what one BDP does).
TEST(Transport, ReorderBufferDeliversEachPacketOnceWithoutNaks) {
  Experiment exp = sprayed_over_unequal_paths("rps", "reorder_buffer", OooWindow::kUnbounded);
  test::run_checked(exp);  // also checks bytes delivered == bytes of the flow
  const TransportCounters& c = exp.transport().counters();
  EXPECT_GT(c.out_of_order_packets, 10u);
  EXPECT_EQ(c.naks_sent, 0u);
  EXPECT_EQ(c.retransmitted_bytes, 0u);
  EXPECT_EQ(c.data_packets_sent, kFlowBytes / 1000);
}

// What a newcomer's loss recovery is: one class and one registry line. This one drops
// out-of-order data silently (no NAK), so only the timer recovers.
class DropAndWaitForTheTimer final : public LossRecovery {
 public:
  bool holds_packets() const override { return false; }
  bool drops_out_of_order() const override { return true; }
  void on_out_of_order(ReceiverState&, const Packet&) override { ++dropped; }
  static inline uint64_t dropped = 0;
};

TEST(Transport, ALossRecoveryIsAClassAndARegistryLine) {
  if (!loss_recovery_registry().find("toy_drop_and_wait"))
    loss_recovery_registry().add("toy_drop_and_wait", "a test's toy",
                                 [] { return std::make_unique<DropAndWaitForTheTimer>(); });
  DropAndWaitForTheTimer::dropped = 0;
  Experiment exp = sprayed_over_unequal_paths("rps", "toy_drop_and_wait");
  // Each 1 ms timeout delivers only the run up to the next reordering: a slow scheme.
  test::run_checked(exp, Time{Delta::from_ms(5000).ps});  // every byte delivered, in order
  const TransportCounters& c = exp.transport().counters();
  EXPECT_EQ(DropAndWaitForTheTimer::dropped, c.out_of_order_packets);
  EXPECT_GT(c.out_of_order_packets, 10u);
  EXPECT_EQ(c.naks_sent, 0u);
  EXPECT_GT(c.timeouts, 0u) << "nothing but the timer recovers";
  EXPECT_GT(c.retransmitted_bytes, 0u);
  // The name is a scenario value once registered; a misspelled one is refused by name.
  const std::string tiny = std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios/tiny.yaml";
  EXPECT_EQ(load_scenario(tiny, {"transport.recovery=toy_drop_and_wait"}).transport.recovery,
            "toy_drop_and_wait");
  try {
    load_scenario(tiny, {"transport.recovery=toy_drop_and_wiat"});
    ADD_FAILURE() << "a misspelled recovery was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("toy_drop_and_wait"), std::string::npos) << e.what();
  }
}

TEST(Transport, SelectiveRepeatResendsFarLessThanGoBackN) {
  Experiment gbn = sprayed_over_unequal_paths("rps", "go_back_n");
  test::run_checked(gbn);
  Experiment sr = sprayed_over_unequal_paths("rps", "selective_repeat");
  test::run_checked(sr);
  const TransportCounters& g = gbn.transport().counters();
  const TransportCounters& s = sr.transport().counters();
  EXPECT_GT(s.naks_sent, 0u) << "IRN NAKs every out-of-order arrival";
  EXPECT_GT(g.retransmitted_bytes, 0u);
  // IRN resends each hole at most once per recovery episode; a hole here is a packet still
  // on the slow path, so every resend is spurious but only one packet long.
  EXPECT_LT(s.retransmitted_bytes * 4, g.retransmitted_bytes);
  EXPECT_LT(s.data_packets_sent, g.data_packets_sent);
  EXPECT_LT(sr.transport().record(FlowId(0)).fct(), gbn.transport().record(FlowId(0)).fct());
}

void arrive(Experiment& exp, PacketType type, uint64_t seq) {
  test::arrive_on_chain(exp, type, seq);
}

// A NAK that arrives after later ACKs (it was overtaken, or it reports an old hole) must not
// rewind the sender below snd_una: inflight bytes would underflow.
TEST(Transport, AStaleNakDoesNotRewindBelowTheAckedPoint) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 10 * 1000 * 1000)};
  Experiment exp(spec);
  exp.run(Time{Delta::from_us(50).ps});
  RdmaTransport& tr = exp.transport();
  const FlowId f(0);
  const uint64_t acked = tr.delivered_bytes(f);
  ASSERT_GT(acked, 100'000u);
  arrive(exp, PacketType::kNak, 1000);  // long acknowledged
  EXPECT_LT(tr.inflight_bytes(f), uint64_t{1} << 40) << "snd_nxt fell below snd_una";
  test::run_checked(exp);
}

// A reordering late in a long in-order flow: the receiver's ring of held packets must span
// only the reorder window (rcv_nxt up to the early packet), not every packet since the
// flow's start, or a 1 GB flow would allocate a million-bit ring for one late packet.
void late_reordering_keeps_the_ring_small(const std::string& recovery) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.transport.recovery = recovery;
  spec.flows = {test::flow(0, 1, 10 * 1000 * 1000)};
  Experiment exp(spec);
  exp.run(Time{Delta::from_us(500).ps});
  RdmaTransport& tr = exp.transport();
  const FlowId f(0);
  const uint64_t rcv_nxt = tr.delivered_bytes(f);
  ASSERT_GT(rcv_nxt, 4000u * 1000) << "the flow should be thousands of packets in";
  ASSERT_EQ(tr.held_packets(f).capacity(), 0u) << "nothing arrived out of order yet";
  // The packet two after the next expected one arrives early (a copy of it; the real one
  // is then a duplicate the receiver re-acknowledges).
  arrive(exp, PacketType::kData, rcv_nxt + 2 * 1000);
  EXPECT_EQ(tr.held_packets(f).marked(), 1u);
  // The window is packets rcv_nxt/1000 .. +2: one 64-bit word.
  EXPECT_EQ(tr.held_packets(f).base(), rcv_nxt / 1000);
  EXPECT_EQ(tr.held_packets(f).capacity(), 64u);
  test::run_checked(exp);  // the held copy is delivered in its turn, every byte once
}

// The out-of-order window (transport.ooo_window): a packet 7 beyond the next expected one
// is kept under a window of 8, one 8 beyond is dropped and NAKed; every byte is still
// delivered once (the dropped one comes again).
void a_packet_beyond_the_window_is_dropped(const std::string& recovery) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.transport.recovery = recovery;
  spec.transport.ooo_window = OooWindow::kPackets;
  spec.transport.ooo_window_packets = 8;
  spec.flows = {test::flow(0, 1, 10 * 1000 * 1000)};
  Experiment exp(spec);
  exp.run(Time{Delta::from_us(500).ps});
  RdmaTransport& tr = exp.transport();
  const FlowId f(0);
  const uint64_t rcv_nxt = tr.delivered_bytes(f);
  auto arrive_early = [&](uint64_t packets_ahead) {
    arrive(exp, PacketType::kData, rcv_nxt + packets_ahead * 1000);
  };
  const uint64_t naks = tr.counters().naks_sent;
  arrive_early(8);
  EXPECT_EQ(tr.held_packets(f).marked(), 0u) << "beyond the window: dropped";
  EXPECT_EQ(tr.counters().ooo_window_drops, 1u);
  EXPECT_EQ(tr.counters().naks_sent, naks + 1);
  arrive_early(7);
  EXPECT_EQ(tr.held_packets(f).marked(), 1u) << "the window's last packet is kept";
  EXPECT_EQ(tr.counters().ooo_window_drops, 1u);
  test::run_checked(exp);  // every byte delivered once
}

TEST(Transport, SelectiveRepeatDropsAndNaksAPacketBeyondItsWindow) {
  a_packet_beyond_the_window_is_dropped("selective_repeat");
}

TEST(Transport, ReorderBufferDropsAndNaksAPacketBeyondItsWindow) {
  a_packet_beyond_the_window_is_dropped("reorder_buffer");
}

// The default window is one BDP of the QP's path in packets (IRN's bitmap). Spraying over
// a path ten times slower overtakes a slow packet by more than that: a reorder buffer drops
// what lies beyond, NAKs and goes back, and the flow still completes; with no bound it
// drops nothing. Selective repeat keeps at most the window in flight (IRN's BDP-FC), so
// nothing it sends lies beyond.
TEST(Transport, TheDefaultWindowIsOneBdp) {
  Experiment sr = sprayed_over_unequal_paths("rps", "selective_repeat");
  const FlowId f(0);
  const uint64_t bdp = sr.transport().bdp_bytes(f);
  EXPECT_EQ(sr.transport().ooo_window_packets(f), (bdp + 999) / 1000);
  test::run_checked(sr);
  EXPECT_EQ(sr.transport().counters().ooo_window_drops, 0u);
  EXPECT_GT(sr.transport().counters().out_of_order_packets, 0u);

  Experiment rb = sprayed_over_unequal_paths("rps", "reorder_buffer");
  test::run_checked(rb);
  EXPECT_GT(rb.transport().counters().ooo_window_drops, 0u);
  EXPECT_GT(rb.transport().counters().naks_sent, 0u);
  Experiment unbounded = sprayed_over_unequal_paths("rps", "reorder_buffer", OooWindow::kUnbounded);
  test::run_checked(unbounded);
  EXPECT_EQ(unbounded.transport().counters().ooo_window_drops, 0u);
}

// IRN's BDP-FC: selective repeat's sender never has more than the window in flight, here 4
// packets on a chain where a line-rate flow would keep a BDP in flight.
TEST(Transport, SelectiveRepeatKeepsAtMostItsWindowInFlight) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.transport.recovery = "selective_repeat";
  spec.transport.ooo_window = OooWindow::kPackets;
  spec.transport.ooo_window_packets = 4;
  spec.flows = {test::flow(0, 1, 1000 * 1000)};
  Experiment exp(spec);
  uint64_t most = 0;
  for (int us = 1; us < 400; ++us) {
    exp.run(Time{Delta::from_us(us).ps});
    most = std::max(most, exp.transport().inflight_bytes(FlowId(0)));
  }
  EXPECT_EQ(most, 4u * 1000);
  test::run_checked(exp);
}

TEST(Transport, LateReorderingKeepsTheSelectiveRepeatRingSmall) {
  late_reordering_keeps_the_ring_small("selective_repeat");
}

TEST(Transport, LateReorderingKeepsTheReorderBufferRingSmall) {
  late_reordering_keeps_the_ring_small("reorder_buffer");
}

// advance_to on an empty bitmap only moves the base (the words are all zero already).
TEST(PacketBitmap, AdvancingAnEmptyBitmapMovesOnlyTheBase) {
  PacketBitmap b;
  EXPECT_TRUE(b.set(100));  // base 0: grows to 128 bits
  EXPECT_TRUE(b.set(120));
  EXPECT_EQ(b.capacity(), 128u);
  b.advance_to(121);  // forgets both marks one by one
  EXPECT_EQ(b.marked(), 0u);
  const uint64_t far = 1'000'000'007;
  b.advance_to(far);
  EXPECT_EQ(b.base(), far);
  for (uint64_t pkt = far; pkt < far + b.capacity(); ++pkt) EXPECT_FALSE(b.test(pkt)) << pkt;
  EXPECT_TRUE(b.set(far + 127));
  EXPECT_EQ(b.capacity(), 128u) << "a mark inside the ring does not grow it";
  EXPECT_EQ(b.marked(), 1u);
}

// Flow starts: the transport keeps flows not started yet itself and queues an event only
// for the earliest, so the event queue does not grow with the number of flows.

// Records when each flow starts (congestion control hears of every start, in order).
class StartLog final : public CongestionControl {
 public:
  explicit StartLog(std::vector<std::pair<Time, FlowId>>* log) : log_(log) {}
  void on_flow_start(FlowId f) override { log_->emplace_back(transport_->sim().now(), f); }

 private:
  std::vector<std::pair<Time, FlowId>>* log_;
};

TEST(FlowStarts, HundredThousandFlowsQueueOneOrTwoEventsPerSender) {
  constexpr uint32_t kFlows = 100'000;
  for (const bool rising : {true, false}) {
    SCOPED_TRACE(rising ? "rising starts" : "falling starts");
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 2);
    auto start_of = [&](uint32_t id) {
      return Time{Delta::from_us(rising ? id : kFlows - 1 - id).ps};
    };
    for (uint32_t i = 0; i < kFlows; ++i)
      spec.flows.push_back(test::flow(i % 4, (i + 1) % 4, 1000, start_of(i)));
    std::vector<std::pair<Time, FlowId>> log;
    Experiment exp(spec, std::make_unique<StartLog>(&log));
    // Rising: each of the 4 senders' first flow's start event only. Falling: those, and a
    // wake-up per sender queued when its second flow came in earlier.
    EXPECT_EQ(exp.sim().pending_events(), rising ? 4u : 8u);
    // The 10 flows starting in [0, 9 us] start, each at its time; the rest wait outside
    // the queue.
    exp.run(Time{Delta::from_us(9).ps});
    ASSERT_EQ(log.size(), 10u);
    for (uint32_t k = 0; k < 10; ++k) {
      const FlowId f(rising ? k : kFlows - 1 - k);
      EXPECT_EQ(log[k], std::make_pair(start_of(f.index()), f));
    }
    EXPECT_LT(exp.sim().pending_events(), 100u);
  }
}

TEST(FlowStarts, FlowsStartAtTheirTimesInTimeThenIdOrder) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  // Added in id order with start times out of order and 12 flows on each of 25 times.
  constexpr uint32_t kFlows = 300;
  std::vector<std::pair<Time, FlowId>> want;
  for (uint32_t i = 0; i < kFlows; ++i) {
    const Time start{Delta::from_us((i * 37) % 25).ps};
    spec.flows.push_back(test::flow(i % 4, (i + 2) % 4, 2000, start));
    want.emplace_back(start, FlowId(i));
  }
  std::sort(want.begin(), want.end());
  std::vector<std::pair<Time, FlowId>> log;
  Experiment exp(spec, std::make_unique<StartLog>(&log));
  test::run_checked(exp);
  EXPECT_EQ(log, want);
}

TEST(FlowStarts, FlowsAddedWhileRunningStartOnTime) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.flows = {test::flow(0, 2, 5000, Time::zero()),
                test::flow(1, 3, 5000, Time{Delta::from_us(100).ps})};
  std::vector<std::pair<Time, FlowId>> log;
  Experiment exp(spec, std::make_unique<StartLog>(&log));
  const Time now{Delta::from_us(10).ps};
  exp.run(now);
  ASSERT_EQ(exp.sim().now(), now);
  RdmaTransport& tr = exp.transport();
  auto add = [&](int64_t us) {
    return tr.add_flow(NodeId(2), NodeId(1), 5000, Time{Delta::from_us(us).ps});
  };
  // Earlier than the queued start at 100 us, out of order, a tie, and one starting now.
  const FlowId c = add(50), d = add(50), e = add(20), f = add(10);
  EXPECT_THROW(add(9), std::invalid_argument) << "a start in the past";
  test::run_checked(exp);
  const std::vector<std::pair<Time, FlowId>> want = {
      {Time::zero(), FlowId(0)},        {Time{Delta::from_us(10).ps}, f},
      {Time{Delta::from_us(20).ps}, e}, {Time{Delta::from_us(50).ps}, c},
      {Time{Delta::from_us(50).ps}, d}, {Time{Delta::from_us(100).ps}, FlowId(1)}};
  EXPECT_EQ(log, want);
}

// The retransmission timer runs only while data is in flight: a flow paced slower than the
// timeout (one packet per 8 ms at 1 Mb/s against a 1 ms timeout) loses nothing and sees
// no timeout. Before, the timer kept running between packets and fired with nothing
// outstanding, and congestion control took it for a loss.
class SlowPacer final : public CongestionControl {
 public:
  void on_flow_start(FlowId f) override { transport_->set_rate(f, 1'000'000); }
  void on_timeout(FlowId) override { ++timeouts; }
  int timeouts = 0;
};

TEST(RetransmissionTimer, SilentWhileNothingIsInFlight) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 1);
  spec.flows.push_back(test::flow(0, 1, 4000));  // four packets, 8 ms apart
  auto cc = std::make_unique<SlowPacer>();
  SlowPacer* pacer = cc.get();
  Experiment exp(spec, std::move(cc));
  const RunStats st = test::run_checked(exp);
  EXPECT_GT(st.sim_end, Time{Delta::from_ms(24).ps});
  EXPECT_EQ(exp.transport().counters().timeouts, 0u);
  EXPECT_EQ(pacer->timeouts, 0);
  EXPECT_EQ(exp.transport().counters().retransmitted_bytes, 0u);
}

// A round trip longer than the timeout: 300 us links, so host to host through one leaf
// and back takes 4 x 300 = 1.2 ms, against a 1 ms timeout. A 25 MB flow sends for 2 ms.
// Restarted by ACKs alone (the IB spec), the timer set by the first packet expires at 1 ms,
// before any ACK is back: a timeout with nothing lost. Restarted by each packet sent too
// (ConWeave-ns3), it never expires: sends come every 84 ns until ACKs take over at 1.2 ms.
// With no timer at all (HPCC-ns3, transport.rto 0), nothing can expire.
RunStats run_long_rtt_flow(const TransportConfig& transport, uint64_t* timeouts,
                           uint64_t* retransmitted) {
  LeafSpineParams ls;
  ls.leaves = 1;
  ls.spines = 1;
  ls.hosts_per_leaf = 2;
  ls.link_delay = Delta::from_us(300);
  ExperimentSpec spec;
  spec.topology = leaf_spine(ls);
  spec.transport = transport;
  spec.flows.push_back(test::flow(0, 1, 25'000'000));
  Experiment exp(spec);
  const RunStats st = test::run_checked(exp);
  *timeouts = exp.transport().counters().timeouts;
  *retransmitted = exp.transport().counters().retransmitted_bytes;
  return st;
}

TEST(RetransmissionTimer, RestartedBySendsItOutlastsARoundTripLongerThanItself) {
  uint64_t timeouts = 0, retransmitted = 0;
  TransportConfig on_acks;
  ASSERT_EQ(on_acks.rto, Delta::from_ms(1));
  run_long_rtt_flow(on_acks, &timeouts, &retransmitted);
  EXPECT_GE(timeouts, 1u);
  EXPECT_GT(retransmitted, 0u);

  TransportConfig on_sends = on_acks;
  on_sends.rto_restarts_on_send = true;
  const RunStats st = run_long_rtt_flow(on_sends, &timeouts, &retransmitted);
  EXPECT_EQ(timeouts, 0u);
  EXPECT_EQ(retransmitted, 0u);
  EXPECT_GT(st.sim_end, Time{Delta::from_us(3200).ps});  // 2 ms of sending + the RTT

  TransportConfig none = on_acks;
  none.rto = Delta::zero();
  run_long_rtt_flow(none, &timeouts, &retransmitted);
  EXPECT_EQ(timeouts, 0u);
  EXPECT_EQ(retransmitted, 0u);
}

}  // namespace
}  // namespace rocelab
