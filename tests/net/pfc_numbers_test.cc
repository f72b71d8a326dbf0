// PFC at hand-computed numbers: the packet that generates XOFF, the one whose departure
// generates XON, when the PAUSE reaches the upstream NIC and how many data bytes still
// arrive after XOFF. Every number is derived in the comments from the wire model:
// a full data frame is 1000 payload + 62 headers + 20 phy = 1082 B, a PFC frame 64 + 20 =
// 84 B; at 100 Gb/s a byte takes 80 ps, so a data frame takes 86,560 ps and a PFC frame
// 6,720 ps; every link has 1 us (1,000,000 ps) of propagation delay.
#include <gtest/gtest.h>

#include <vector>

#include "net/mmu.h"
#include "test_util.h"

namespace rocelab {
namespace {

constexpr Priority kRdma = 3;         // TransportConfig::data_priority
constexpr int64_t kFrame = 1082;      // wire bytes of a full data frame
constexpr int64_t kFramePs = 86'560;  // 1082 B x 80 ps/B at 100 Gb/s
constexpr int64_t kUs = 1'000'000;    // ps

struct Pfc {
  Time time;
  bool xoff = false;
  int64_t ingress_bytes = 0;  // the ingress counter when the frame was generated
  bool expired = false;       // not a frame: the pause ran out at a
};

// a (host 0) -> sw0 (node 2) -> b (host 1), 100 Gb/s, 1 us links. sw0's port 0 faces a
// (the ingress of the data), port 1 faces b. The test holds sw0's egress to b, as a PAUSE
// from downstream would, so the ingress counter of port 0 is exactly the bytes that came
// in: nothing leaves until the test lets the queue go at 10 us.
struct HeldEgress {
  static constexpr uint32_t kSwitch = 2;
  ExperimentSpec spec;
  std::unique_ptr<Experiment> exp;
  std::vector<Pfc> events;

  explicit HeldEgress(const PfcConfig& pfc, int64_t buffer = 12 * 1000 * 1000) {
    spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
    spec.network.switch_config.pfc = pfc;
    spec.network.switch_config.buffer_bytes = buffer;
    spec.network.switch_config.ecn.enabled = false;  // no CNP traffic on the way back
    spec.flows = {test::flow(0, 1, 100 * 1000)};     // 100 full frames, line rate from t = 0
  }

  Switch& sw() { return exp->network().switch_at(NodeId(kSwitch)); }
  EgressPort& nic_a() { return exp->network().host(NodeId(0)).nic(); }

  void start() {
    exp = std::make_unique<Experiment>(spec);
    exp->network().context().on_pfc = [this](const PfcEvent& e) {
      ASSERT_EQ(e.node, NodeId(kSwitch));
      ASSERT_EQ(e.port, PortId(0));
      events.push_back({e.time, e.xoff,
                        sw().flow_control().buffer()->ingress_bytes(PortId(0), kRdma), e.expired});
    };
    sw().port(PortId(1)).set_priority_paused(kRdma, true);
  }
  void release_egress() { sw().port(PortId(1)).set_priority_paused(kRdma, false); }
};

// Frame n (from 0) of a leaves a's NIC at n x 86,560 ps and is fully received at sw0 at
// (n + 1) x 86,560 + 1,000,000 ps. Frame 10 (n = 9) brings the counter to 10 x 1082 =
// 10,820 B at 10 x 86,560 + 1,000,000 = 1,865,600 ps.
constexpr int64_t kXoffPs = 10 * kFramePs + kUs;
// The PAUSE leaves sw0 at once (its port to a is idle: b has received nothing to ACK) and
// reaches a 6,720 ps + 1 us later: 2,872,320 ps. a is then sending frame 33 (2,856,480 to
// 2,943,040 ps), which completes; frames 0..33 left a: 34 x 1082 = 36,788 B.
constexpr int64_t kPauseAtAPs = kXoffPs + 6'720 + kUs;
constexpr int64_t kFramesBeforePause = 34;
// The egress to b runs again at 10 us; departure j (from 0) starts at 10 us + j x 86,560 ps
// and releases its 1082 B from the ingress counter when it starts.
constexpr int64_t kReleasePs = 10 * kUs;

void expect_pause_reaches_a_at_a_frame_boundary(HeldEgress& h) {
  h.exp->run(Time{5 * kUs});
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_TRUE(h.events[0].xoff);
  EXPECT_EQ(h.events[0].time.ps, kXoffPs) << "XOFF by frame 10";
  EXPECT_EQ(h.events[0].ingress_bytes, 10 * kFrame);
  // a's NIC has been paused since the PAUSE arrived: 5,000,000 - 2,872,320 ps.
  EXPECT_EQ(h.nic_a().counters().times_paused, 1u);
  EXPECT_EQ(h.nic_a().paused_time(h.exp->sim().now()).ps, 5 * kUs - kPauseAtAPs);
  // The frame in transmission when the PAUSE came completed, and no later frame started.
  EXPECT_EQ(h.nic_a().counters().tx_data_bytes, uint64_t{kFramesBeforePause * kFrame});
  const int64_t in = h.sw().flow_control().buffer()->ingress_bytes(PortId(0), kRdma);
  EXPECT_EQ(in, kFramesBeforePause * kFrame);
  // Bytes after XOFF: 24 frames = 25,968 B: frames 10..21 already on their way at XOFF
  // (12,984 B, one delay x rate = 12,500 B plus the frame being serialized) and frames
  // 22..33 sent while the PAUSE travelled. The headroom sized from the link covers them:
  // 2 x 12,500 + 3 x 1082 + 84 = 28,330 B.
  const int64_t headroom = pfc_headroom_bytes(h.spec.network.switch_config.pfc, WireModel{},
                                              gbps(100), Delta::from_us(1));
  EXPECT_EQ(headroom, 28'330);
  EXPECT_EQ(in - h.events[0].ingress_bytes, 24 * kFrame);
  EXPECT_LE(in - h.events[0].ingress_bytes, headroom);
  EXPECT_EQ(h.exp->network().counters().drops, 0u);
}

// The egress toward b resumes at kReleasePs; the XON comes with the 27th departure (both
// thresholds are set up so that 7 frames are then left in the ingress counter).
void expect_xon_at_the_27th_departure(HeldEgress& h) {
  h.exp->run(Time{kReleasePs});
  h.release_egress();
  h.exp->run(Time{kReleasePs + 26 * kFramePs - 1});
  ASSERT_EQ(h.events.size(), 1u) << "XON before the 27th departure";
  h.exp->run(Time{kReleasePs + 26 * kFramePs});
  ASSERT_EQ(h.events.size(), 2u);
  EXPECT_FALSE(h.events[1].xoff);
}

// Static XOFF of exactly 10 frames: the frame that reaches it generates the PAUSE (a
// ">" instead of ">=" would wait for frame 11). XON once the counter is at most
// XOFF - resume offset = 10,820 - 3,246 = 7,574 B = 7 frames, with no headroom bytes left:
// after 34 - 7 = 27 departures, the 27th (j = 26) at 10 us + 26 x 86,560 = 12,250,560 ps.
// Without the offset XON would come at 10 frames left (j = 23, 11,990,880 ps); with "<"
// instead of "<=" at 6 frames left (j = 27).
TEST(PfcNumbers, StaticXoffAndXonAtTheHandComputedFrames) {
  PfcConfig pfc;
  pfc.mode = PfcThresholdMode::kStatic;
  pfc.static_xoff_bytes = 10 * kFrame;
  pfc.resume_offset_bytes = 3 * kFrame;
  HeldEgress h(pfc);
  h.start();
  expect_pause_reaches_a_at_a_frame_boundary(h);

  expect_xon_at_the_27th_departure(h);
  if (HasFatalFailure()) return;
  EXPECT_EQ(h.events[1].time.ps, kReleasePs + 26 * kFramePs);
  EXPECT_EQ(h.events[1].ingress_bytes, 7 * kFrame);

  test::run_checked(*h.exp);
  // The XON reaches a 6,720 ps + 1 us after it left (the port to a is idle then: the ACK
  // of departure j arrives at 12,006,880 + (j + 1) x 86,560 ps and takes 6,880 ps, so
  // ACK 1 ended at 12,186,880 and ACK 2 comes at 12,266,560), so a was paused from
  // 2,872,320 to 13,257,280 ps.
  EXPECT_EQ(h.nic_a().counters().paused_time.ps,
            kReleasePs + 26 * kFramePs + 6'720 + kUs - kPauseAtAPs);
  EXPECT_EQ(h.events.size(), 2u) << "after the XON, the queue drains faster than a refills it";
}

// Dynamic XOFF = alpha x (pool - shared bytes in use), alpha = 1/8. Pool = buffer - the
// headroom of both ports = 154,040 - 2 x 28,330 = 97,380 B. Frame 10: s = 10,820 and
// XOFF = (97,380 - 10,820) / 8 = 10,820, reached: PAUSE (frame 10 itself was admitted to
// the shared pool: 9,738 + 1082 <= (97,380 - 9,738) / 8 = 10,955). Frames 11..34 go to
// headroom (24 x 1082 = 25,968 <= 28,330). XON needs the headroom empty (24 departures)
// and s + 3,651 <= (97,380 - s) / 8 (floored):
//   s = 10 frames: 14,471 > 10,820;   s = 9: 13,389 > 10,955;   s = 8: 12,307 > 11,090;
//   s = 7 frames:  7,574 + 3,651 = 11,225 <= 89,806 / 8 = 11,225 (exactly): XON.
// So XON at the 27th departure again; without the offset at the 24th (s = 10 frames,
// 10,820 <= 10,820), with "<" instead of "<=" at the 28th (s = 6: 10,143 < 11,361).
TEST(PfcNumbers, DynamicXoffAndXonAtTheHandComputedFrames) {
  PfcConfig pfc;
  pfc.mode = PfcThresholdMode::kDynamic;
  pfc.alpha = 1.0 / 8;
  pfc.resume_offset_bytes = 3'651;
  HeldEgress h(pfc, 154'040);
  h.start();
  ASSERT_EQ(h.sw().flow_control().buffer()->shared_capacity(), 97'380);
  ASSERT_EQ(h.sw().flow_control().buffer()->xoff_threshold(PortId(0)), 97'380 / 8);
  expect_pause_reaches_a_at_a_frame_boundary(h);

  expect_xon_at_the_27th_departure(h);
  if (HasFatalFailure()) return;
  EXPECT_EQ(h.events[1].ingress_bytes, 7 * kFrame);
  test::run_checked(*h.exp);
  EXPECT_EQ(h.events.size(), 2u);
}

// ------------------------------------------------------------ pause time (issue 39)

// 802.1Qbb: a quantum is 512 bit times: 65,535 x 512 = 33,553,920 bits, 335,539,200 ps at
// 100 Gb/s and 4x that at 25 Gb/s; the refresh defaults to half of it; pause_time overrides.
TEST(PfcPauseTime, FromQuantaAtTheLinkRateAndItsRefresh) {
  PfcPauseTiming t;
  EXPECT_EQ(t.pause_for(gbps(100)).ps, 335'539'200);
  EXPECT_EQ(t.pause_for(gbps(25)).ps, 1'342'156'800);
  EXPECT_EQ(t.refresh_for(gbps(100)).ps, 167'769'600);
  t.quanta = 1000;  // 512,000 bits: 5,120,000 ps at 100 Gb/s
  EXPECT_EQ(t.pause_for(gbps(100)).ps, 5'120'000);
  t.time = Delta::from_us(5);
  EXPECT_EQ(t.pause_for(gbps(100)).ps, 5 * kUs);
  EXPECT_EQ(t.refresh_for(gbps(100)).ps, 2'500'000);
}

PfcConfig static_ten_frames() {
  PfcConfig pfc;
  pfc.mode = PfcThresholdMode::kStatic;
  pfc.static_xoff_bytes = 10 * kFrame;
  pfc.resume_offset_bytes = 3 * kFrame;
  return pfc;
}

// The ten-frame XOFF with a fork's pause style and the 5 us both forks' frames carry.
PfcConfig ns3_fork(PfcPauseStyle style) {
  PfcConfig pfc = static_ten_frames();
  pfc.pause.style = style;
  pfc.pause.time = Delta::from_us(5);
  return pfc;
}

// a was paused once, from the PAUSE's arrival until the XON's (it left at the 27th
// departure and took 6,720 ps + 1 us), while `pause_frames` PAUSE frames went out.
void expect_one_pause_until_the_xon(HeldEgress& h, uint64_t pause_frames) {
  EXPECT_EQ(h.nic_a().counters().times_paused, 1u);
  EXPECT_EQ(h.nic_a().counters().paused_time.ps,
            kReleasePs + 26 * kFramePs + 6'720 + kUs - kPauseAtAPs);
  EXPECT_EQ(h.exp->network().counters().pause_frames, pause_frames);
}

// Standard: the XOFF of StaticXoffAndXonAtTheHandComputedFrames carries 1000 quanta (5.12
// us) and is re-sent every 2.56 us while it holds: at 1,865,600 + k x 2,560,000 ps for k =
// 1..4 (the last, 12,105,600, before the XON at 12,250,560). Each refresh reaches a before
// the previous pause runs out, so a is paused once, exactly as long as with no pause time.
TEST(PfcPauseTime, StandardRefreshesWhileXoffHoldsAndTheUpstreamNeverResumesEarly) {
  PfcConfig pfc = static_ten_frames();
  pfc.pause.quanta = 1000;
  HeldEgress h(pfc);
  h.start();
  h.exp->run(Time{kReleasePs});
  h.release_egress();
  test::run_checked(*h.exp);
  ASSERT_EQ(h.events.size(), 6u);
  for (int k = 0; k < 5; ++k) {
    EXPECT_TRUE(h.events[k].xoff);
    EXPECT_EQ(h.events[k].time.ps, kXoffPs + k * 2'560'000) << k;
  }
  EXPECT_FALSE(h.events[5].xoff);
  EXPECT_EQ(h.events[5].time.ps, kReleasePs + 26 * kFramePs);
  expect_one_pause_until_the_xon(h, 5);
}

// HPCC-ns3: the frame's 5 us is ignored; a stays paused until the XON, 10.4 us.
TEST(PfcPauseTime, UntilResumeIgnoresTheTimeTheFrameCarries) {
  HeldEgress h(ns3_fork(PfcPauseStyle::kUntilResume));
  h.start();
  expect_pause_reaches_a_at_a_frame_boundary(h);
  expect_xon_at_the_27th_departure(h);
  if (HasFatalFailure()) return;
  test::run_checked(*h.exp);
  expect_one_pause_until_the_xon(h, 1);
}

// ConWeave-ns3: a PAUSE of 5 us for every packet admitted over the threshold. Frames 10..34
// (n = 9..33) arrive over it, each 86,560 ps after the last: 25 PAUSEs, from 1,865,600 to
// 1,865,600 + 24 x 86,560 = 3,943,040 ps. The last reaches a at 3,943,040 + 6,720 + 1 us
// = 4,949,760 ps, so a's pause runs out at 9,949,760 ps, unlogged by a frame, with the
// egress still held: a was paused once, for 9,949,760 - 2,872,320 = 7,077,440 ps. The
// switch's own record lapsed 5 us after its last PAUSE (8,943,040 ps): no XON for it.
TEST(PfcPauseTime, PerPacketPausesExpireFiveMicrosecondsAfterTheLast) {
  HeldEgress h(ns3_fork(PfcPauseStyle::kPerPacket));
  h.start();
  h.exp->run(Time{kReleasePs});
  ASSERT_EQ(h.events.size(), 26u);
  for (int k = 0; k < 25; ++k) {
    EXPECT_TRUE(h.events[k].xoff);
    EXPECT_EQ(h.events[k].time.ps, kXoffPs + k * kFramePs) << k;
  }
  constexpr int64_t kLastPauseAtAPs = kXoffPs + 24 * kFramePs + 6'720 + kUs;
  EXPECT_TRUE(h.events[25].expired);
  EXPECT_EQ(h.events[25].time.ps, kLastPauseAtAPs + 5 * kUs);
  EXPECT_EQ(h.nic_a().counters().times_paused, 1u);
  EXPECT_EQ(h.nic_a().paused_time(h.exp->sim().now()).ps, kLastPauseAtAPs + 5 * kUs - kPauseAtAPs);
  EXPECT_FALSE(h.sw().flow_control().buffer()->pause_sent(PortId(0), kRdma))
      << "the switch's record lapsed at 8,943,040 ps";
  h.release_egress();
  test::run_checked(*h.exp);
  EXPECT_EQ(h.exp->network().counters().drops, 0u);
}

// Four senders at 100 Gb/s into sw0, sw0 -> sw1 at 400 Gb/s, sw1 -> the receiver at
// 100 Gb/s: the incast queue is at sw1, so sw1 must PAUSE sw0's port, a switch port with
// num_queues data queues. With 1 or 2 queues priority 3 rides in the last queue
// (EgressPort::queue_of_priority); a PAUSE for priority 3 must hold that queue, or sw0
// keeps sending at 400 Gb/s into a 100 Gb/s drain and sw1's headroom (2 x 50,000 + 3 x
// 1082 + 84 = 103,330 B at 400 Gb/s, 1 us) overflows within microseconds.
TEST(PfcNumbers, PortsWithFewerQueuesPauseTheQueueThatCarriesTheLosslessClass) {
  for (uint32_t queues : {1u, 2u}) {
    ExperimentSpec spec;
    TopologySpec& t = spec.topology;
    for (uint32_t i = 0; i < 4; ++i)
      t.add_node(NodeKind::kHost, Layer::kHost, "s" + std::to_string(i));
    const uint32_t r = t.add_node(NodeKind::kHost, Layer::kHost, "r");
    const uint32_t sw0 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "sw0");
    const uint32_t sw1 = t.add_node(NodeKind::kSwitch, Layer::kEdge, "sw1");
    const Delta d = Delta::from_us(1);
    for (uint32_t i = 0; i < 4; ++i) t.add_link(i, sw0, gbps(100), d);  // sw0 ports 0..3
    t.add_link(sw0, sw1, gbps(400), d);                                 // sw0 port 4, sw1 port 0
    t.add_link(sw1, r, gbps(100), d);                                   // sw1 port 1
    spec.network.switch_config.num_queues = queues;
    spec.network.switch_config.ecn.enabled = false;
    spec.network.switch_config.pfc.mode = PfcThresholdMode::kStatic;
    spec.network.switch_config.pfc.static_xoff_bytes = 50 * 1000;
    for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, r, 500 * 1000));
    Experiment exp(spec);
    const EgressPort& sw0_up = exp.network().switch_at(NodeId(sw0)).port(PortId(4));
    const EgressPort& sw1_down = exp.network().switch_at(NodeId(sw1)).port(PortId(0));
    ASSERT_EQ(sw0_up.queue_of_priority(kRdma), queues - 1);
    // When sw1 lifts a PAUSE, the one it sent is still holding sw0 (the XON has 1 us to
    // travel): exactly the lossless class's queue is paused there.
    uint32_t xons = 0, held_right = 0;
    exp.network().context().on_pfc = [&](const PfcEvent& e) {
      if (e.node != NodeId(sw1) || e.xoff) return;
      ++xons;
      held_right += sw0_up.paused_mask() == (1u << (queues - 1));
    };
    test::run_checked(exp);
    const NetCounters& c = exp.network().counters();
    EXPECT_EQ(c.drops, 0u) << queues << " queues";
    EXPECT_GT(sw1_down.counters().pause_frames_sent, 0u) << queues << " queues";
    // Every XOFF sw1 sent paused sw0's port once.
    EXPECT_EQ(sw0_up.counters().times_paused, sw1_down.counters().pause_frames_sent);
    EXPECT_GT(sw0_up.counters().paused_time, Delta::zero());
    EXPECT_GT(c.pause_frames_by_node[sw0], 0u) << "backpressure reaches the senders";
    EXPECT_GT(xons, 0u);
    EXPECT_EQ(held_right, xons) << queues << " queues";
  }
}

}  // namespace
}  // namespace rocelab
