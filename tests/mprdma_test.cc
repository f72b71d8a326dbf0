// MP-RDMA (transport/mprdma.h): one flow spreads over many paths by ACK clocking, and its
// out-of-order aware path selection keeps the reordering the receiver sees near Δ, where
// per-packet spraying over the same paths does not.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "test_util.h"
#include "transport/mprdma.h"

namespace rocelab {
namespace {

struct Outcome {
  double ood_p99 = 0;  // out-of-order degree, packets, over out-of-order arrivals
  uint64_t out_of_order = 0, bitmap_drops = 0, uplinks_used = 0;
  Time last_finish;
  MpRdmaPath::Counters counters;
};

// Two leaves, four spines, spine 0's link to leaf 1 at 25 Gb/s. Four 4 MB flows from
// leaf 0 to leaf 1.
Outcome run(const std::string& policy, LossRecovery recovery, const std::string& cc) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 4);
  EXPECT_EQ(spec.topology.set_link_rate("spine0", "leaf1", gbps(25)), 1);
  spec.cc = cc;
  spec.transport.path_policy = policy;
  spec.transport.recovery = recovery;
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4 + i, 4'000'000));
  Experiment exp(spec);
  test::run_checked(exp);
  Outcome o;
  const auto& hist = exp.transport().ood_histogram();
  uint64_t total = 0;
  for (uint64_t n : hist) total += n;
  uint64_t seen = 0;
  for (size_t d = 0; d < hist.size(); ++d) {
    seen += hist[d];
    if (total && seen * 100 >= total * 99) {
      o.ood_p99 = static_cast<double>(d);
      break;
    }
  }
  o.out_of_order = exp.transport().counters().out_of_order_packets;
  o.bitmap_drops = exp.transport().counters().bitmap_drops;
  for (const FlowRecord& r : exp.transport().records())
    o.last_finish = std::max(o.last_finish, r.finish);
  const Node& leaf = exp.network().node(NodeId(spec.topology.find("leaf0")));
  for (size_t p = 0; p < leaf.port_count(); ++p) {
    const EgressPort& port = leaf.port(PortId(static_cast<uint16_t>(p)));
    if (port.peer()->kind() == NodeKind::kSwitch && port.counters().tx_data_bytes > 400'000)
      ++o.uplinks_used;
  }
  if (const auto* mp = dynamic_cast<const MpRdmaPath*>(&exp.transport().path_policy()))
    o.counters = mp->counters();
  return o;
}

TEST(MpRdma, SpreadsOverPathsAndBoundsTheOutOfOrderDegree) {
  const Outcome mp = run("mprdma", LossRecovery::kBitmap, "none");
  const Outcome spray = run("spray", LossRecovery::kSelectiveRepeat, "dcqcn");
  std::printf(
      "out-of-order degree p99: mprdma %.0f (%llu arrivals, %llu beyond the bitmap, "
      "%llu paths pruned), spray %.0f (%llu); last finish %.0f vs %.0f us\n",
      mp.ood_p99, static_cast<unsigned long long>(mp.out_of_order),
      static_cast<unsigned long long>(mp.bitmap_drops),
      static_cast<unsigned long long>(mp.counters.vps_pruned), spray.ood_p99,
      static_cast<unsigned long long>(spray.out_of_order), mp.last_finish.us(),
      spray.last_finish.us());
  EXPECT_EQ(mp.uplinks_used, 4u) << "four flows spread over all four spines";
  EXPECT_GT(mp.counters.vps_pruned, 0u) << "the slow spine's late ACKs prune its paths";
  EXPECT_LE(mp.ood_p99, 32 * 1.5) << "near Δ";
  EXPECT_LT(mp.ood_p99, spray.ood_p99 / 2);
}

// The window's inflation counts packets acknowledged out of order, which the receiver's
// bitmap holds: at most L of them. When the bitmap overflows (L = 16, a whole BDP sent at
// once), go-back-N resends packets the receiver already has; their duplicate ACKs free no
// new packet and must not widen the window (they did: inflation reached hundreds, and
// each overflow fed the next).
TEST(MpRdma, DuplicateAcksAfterABitmapOverflowDoNotWidenTheWindow) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 4);
  spec.topology.set_link_rate("spine0", "leaf1", gbps(25));
  spec.cc = "none";
  spec.transport.path_policy = "mprdma";
  spec.transport.recovery = LossRecovery::kBitmap;
  spec.transport.bitmap_packets = 16;
  spec.transport.mprdma.initial_window_bdp = 1;
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4 + i, 4'000'000));
  Experiment exp(spec);
  test::run_checked(exp);
  const auto& mp = dynamic_cast<const MpRdmaPath&>(exp.transport().path_policy());
  EXPECT_GT(exp.transport().counters().bitmap_drops, 0u) << "the bitmap overflowed";
  EXPECT_LE(mp.counters().max_inflate, 16u + 4u);
}

// Drives one MP-RDMA sender by hand, packet by packet: its flow starts far beyond the run
// (the transport never sends it), so the window the policy sets is read back unchanged.
// One path, every packet in order: the numbers are those of MP-RDMA's rules alone.
class Sender {
 public:
  explicit Sender(const MpRdmaConfig& cfg) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 1);
    spec.cc = "none";
    spec.transport.path_policy = "mprdma";
    spec.transport.recovery = LossRecovery::kBitmap;
    spec.transport.mprdma = cfg;
    spec.flows.push_back(test::flow(0, 1, 100'000'000, Time{Delta::from_ms(1000).ps}));
    exp_ = std::make_unique<Experiment>(spec);
    mp_.attach(exp_->transport());
    mtu_bytes_ = exp_->network().context().wire.mtu_payload_bytes;
  }
  void send(int packets) {
    for (int i = 0; i < packets; ++i) {
      Packet p;
      p.flow = kFlow;
      p.seq = next_seq_bytes_;
      p.payload_bytes = static_cast<uint32_t>(mtu_bytes_);
      mp_.on_send(kFlow, p);
      next_seq_bytes_ += mtu_bytes_;
    }
  }
  // The ACK of the oldest unacknowledged packet, in order.
  void ack(bool ecn = false) {
    Packet a;
    a.type = PacketType::kAck;
    a.flow = kFlow;
    a.sack_seq = acked_bytes_;
    acked_bytes_ += mtu_bytes_;
    a.seq = acked_bytes_;
    a.ecn_ce = ecn;
    mp_.on_feedback(kFlow, a);
  }
  void nak() {
    Packet n;
    n.type = PacketType::kNak;
    n.flow = kFlow;
    n.seq = acked_bytes_;
    mp_.on_feedback(kFlow, n);
  }
  void timeout() { mp_.on_timeout(kFlow); }
  // The window the transport enforces, in packets (fractional if it is not whole).
  double window_packets() const {
    return static_cast<double>(exp_->transport().window_bytes(kFlow)) /
           static_cast<double>(mtu_bytes_);
  }

 private:
  static constexpr FlowId kFlow{0};
  std::unique_ptr<Experiment> exp_;
  MpRdmaPath mp_;
  uint64_t mtu_bytes_ = 0;
  uint64_t next_seq_bytes_ = 0;
  uint64_t acked_bytes_ = 0;
};

// The authors' MpRDMASend sends a segment only while in flight + one segment <= cwnd +
// inflation: a window of 2.5 packets admits 2. Per-ACK growth of 1/cwnd from one packet:
// 1 -> 2 -> 2.5 -> 2.9 -> 3.245, so the window in whole packets is 2, 2, 2, 3 (it was
// 2, 2.5, 2.9, 3.245: one packet more than whole packets allow).
TEST(MpRdma, WindowAdmitsWholePacketsOnly) {
  MpRdmaConfig cfg;
  Sender s(cfg);
  s.send(1);
  EXPECT_DOUBLE_EQ(s.window_packets(), 1);
  const double expected[] = {2, 2, 2, 3};
  for (double w : expected) {
    s.ack();
    EXPECT_DOUBLE_EQ(s.window_packets(), w);
  }
}

TEST(MpRdma, NeedsItsReceiver) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 1);
  spec.transport.path_policy = "mprdma";
  spec.flows.push_back(test::flow(0, 1, 10'000));
  EXPECT_THROW(Experiment exp(spec), std::invalid_argument);
}

}  // namespace
}  // namespace rocelab
