// transport.recovery: irn_ns3, IRN as ConWeave-ns3 runs it (transport/irn_ns3.h): its
// receiver's replies, its sender's episodes and skips, its two timers, at hand-set states.
#include <gtest/gtest.h>

#include "scenario/config/scenario_config.h"
#include "test_util.h"
#include "transport/irn_ns3.h"

namespace rocelab {
namespace {

// Flow 0 from host 0 to host 1 of a chain, 100 packets of 1000 B, starting at 1 s: the
// frames below are handed to the transports by hand before it starts.
Experiment irn_chain() {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 100 * 1000, Time{Delta::from_ms(1000).ps})};
  spec.transport.recovery = "irn_ns3";
  spec.transport.nak_interval = Delta::from_us(4);
  return Experiment(spec);
}

void arrive(Experiment& exp, PacketType type, uint64_t seq, uint64_t sack = 0) {
  test::arrive_on_chain(exp, type, seq, sack);
}

// rdma-hw.cc ReceiverCheckSeq with IRN: each packet beyond the expected one is NAKed
// (again only after nak_interval); in-order data is NAKed while packets are held, ACKed
// once none is.
TEST(IrnNs3, TheReceiverNaksWhileItHoldsPacketsAndAcksOnceItHoldsNone) {
  Experiment exp = irn_chain();
  exp.run(Time{Delta::from_us(10).ps});
  const TransportCounters& c = exp.transport().mutable_counters();
  arrive(exp, PacketType::kData, 2000);  // 0 and 1000 missing
  EXPECT_EQ(c.naks_sent, 1u);
  arrive(exp, PacketType::kData, 2000);  // held already, its NAK 0 us old: no reply
  EXPECT_EQ(c.naks_sent, 1u);
  arrive(exp, PacketType::kData, 3000);  // a new one: NAKed at once
  EXPECT_EQ(c.naks_sent, 2u);
  arrive(exp, PacketType::kData, 0);  // in order, 2000 and 3000 still held beyond 1000
  EXPECT_EQ(c.naks_sent, 3u);
  EXPECT_EQ(c.acks_sent, 0u);
  arrive(exp, PacketType::kData, 1000);  // fills the hole: nothing held beyond 4000
  EXPECT_EQ(c.naks_sent, 3u);
  EXPECT_EQ(c.acks_sent, 1u);
  EXPECT_EQ(exp.transport().receiver_state(FlowId(0)).rcv_nxt, 4000u);
}

// rdma-queue-pair.h GetRto: 100 us, 320 us above 3 packets between the cumulative ack and
// the start of the highest packet sent.
TEST(IrnNs3, TheTimerIsShortWithThreePacketsInFlightAndLongAboveThat) {
  Experiment exp = irn_chain();
  const auto& irn = dynamic_cast<const IrnNs3&>(exp.transport().recovery());
  const FlowId f(0);
  RdmaTransport& tr = exp.transport();
  EXPECT_EQ(irn.rto(f, Delta::from_ms(4)), Delta::from_us(100)) << "nothing sent";
  exp.run(Time{Delta::from_ms(1000).ps + Delta::from_ns(300).ps});  // 3-4 packets out
  const uint64_t starts_above_una = (tr.high_sent(f) - 1) / 1000 * 1000 - tr.snd_una(f);
  EXPECT_EQ(irn.rto(f, Delta::from_ms(4)),
            starts_above_una > 3000 ? Delta::from_us(320) : Delta::from_us(100));
  exp.run(Time{Delta::from_ms(1000).ps + Delta::from_ns(900).ps});  // before the first ACK
  ASSERT_EQ(tr.snd_una(f), 0u);
  ASSERT_GT(tr.high_sent(f), 5000u);
  EXPECT_EQ(irn.rto(f, Delta::from_ms(4)), Delta::from_us(320));
}

// ReceiveAck with IRN: a NAK outside an episode sends the sender back to snd_una, and it
// then skips the packets the receiver reported holding; a NAK inside one does not.
TEST(IrnNs3, ANakSendsTheSenderBackOverWhatIsNotHeld) {
  Experiment exp = irn_chain();
  RdmaTransport& tr = exp.transport();
  const auto& irn = dynamic_cast<const IrnNs3&>(tr.recovery());
  const FlowId f(0);
  exp.run(Time{Delta::from_ms(1000).ps + Delta::from_ns(900).ps});
  const uint64_t sent = tr.snd_nxt(f);
  ASSERT_GE(sent, 6000u);
  arrive(exp, PacketType::kNak, 0, 2000);  // 0 and 1000 lost, 2000 held
  EXPECT_TRUE(irn.in_episode(f));
  EXPECT_EQ(tr.snd_nxt(f), 0u) << "back to snd_una";
  arrive(exp, PacketType::kNak, 0, 3000);  // inside the episode: marks 3000, no rewind
  EXPECT_EQ(tr.snd_nxt(f), 0u);
  const TransportCounters& c = tr.mutable_counters();
  const uint64_t before = c.data_packets_sent;
  exp.run(Time{Delta::from_ms(1000).ps + Delta::from_ns(1300).ps});  // about 4 frames
  // 0 and 1000 resent, 2000 and 3000 skipped, then 4000 on (no reply is back yet).
  const uint64_t resent = c.data_packets_sent - before;
  ASSERT_GE(resent, 3u);
  EXPECT_EQ(tr.snd_nxt(f), (resent + 2) * 1000);
}

// rdma-queue-pair.cc GetBytesLeft looks at the SACK list's front (lowest) block only, and
// forgets what lies below snd_nxt when it skips one: a held packet above a lower listed
// block is sent again.
TEST(IrnNs3, OnlyTheLowestHeldBlockIsSkippedAndWhatLiesBelowIsForgotten) {
  Experiment exp = irn_chain();
  auto& irn = dynamic_cast<IrnNs3&>(const_cast<LossRecovery&>(exp.transport().recovery()));
  const FlowId f(0);
  arrive(exp, PacketType::kNak, 0, 1000);  // packet 1 held (an episode from 0 begins)
  arrive(exp, PacketType::kNak, 0, 3000);  // packet 3 held
  EXPECT_EQ(irn.skip_held(f, 3000), 3000u) << "packet 1's block is the front";
  EXPECT_EQ(irn.skip_held(f, 0), 0u) << "nothing held at 0";
  EXPECT_EQ(irn.skip_held(f, 1000), 2000u) << "the front block skipped";
  EXPECT_EQ(irn.skip_held(f, 3000), 4000u) << "packet 3's block is the front now";
  EXPECT_EQ(irn.skip_held(f, 1000), 1000u) << "forgotten once skipped";
}

}  // namespace
}  // namespace rocelab
