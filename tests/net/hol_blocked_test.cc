// The HoL-blocked flows metric (summary.json's hol_blocked_flows, flows.csv's hol_blocked):
// a flow is marked when one of its data packets waits in a switch-to-switch egress queue
// through a PFC PAUSE of that queue.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "net/drr_scheduler.h"
#include "net/net_context.h"
#include "net/node.h"
#include "scenario/config/scenario_config.h"
#include "scenario/run/runner.h"

namespace rocelab {
namespace {

// A node that takes whatever reaches it and sends nothing of its own.
class SinkNode final : public Node {
 public:
  SinkNode(NetContext& ctx, NodeId id, const NodeSpec& spec) : Node(ctx, id, spec) {}
  void receive(PacketId pkt, PortId) override {
    ++received;
    ctx_.free_packet(pkt);
  }
  void on_dequeue(PortId, PacketId, size_t) override {}
  PacketId pull(PortId, Time*) override { return PacketId::invalid(); }
  int received = 0;
};

// One switch port to another switch, with the test's hands on its queues and PAUSEs.
struct PortBench {
  static constexpr Priority kDataPriority = 3;
  Simulator sim;
  Pool<Packet> pool;
  NetContext ctx{sim, pool, WireModel{}, {}, {}, 1, {}, {}, {}, {}, {}, {}, {}};
  NodeSpec spec{NodeKind::kSwitch, Layer::kEdge, "sw"};
  SinkNode owner{ctx, NodeId(0), spec};
  SinkNode peer{ctx, NodeId(1), spec};
  EgressPort port{sim,       pool, owner,
                  PortId(0), 8,    DrrSchedulerConfig().build(8, WireModel{}.mtu_wire_bytes())};
  NetCounterLanes counters;
  const std::vector<uint8_t>& marks = counters.merged().hol_blocked_flows;

  explicit PortBench(bool watched = true) {
    port.connect(&peer, PortId(0), gbps(100), Delta::from_us(1));
    port.set_acks_in_data_queues(true);
    if (watched) port.watch_hol_blocking(&counters);
  }
  void send(uint32_t flow, PacketType type = PacketType::kData) {
    const PacketId id = ctx.alloc_packet();
    Packet& p = ctx.pkt(id);
    p.type = type;
    p.priority = kDataPriority;
    p.flow = FlowId(flow);
    p.wire_bytes = 1082;
    port.enqueue(id);
  }
  bool marked(uint32_t flow) const { return flow < marks.size() && marks[flow] != 0; }
};

// Packets waiting when the XOFF arrives and packets queued during the PAUSE are marked;
// the one already on the wire, an ACK in the data queue and a packet sent after the
// RESUME are not.
TEST(HolBlocked, PortMarksTheFlowsThatWaitThroughAPause) {
  PortBench b;
  b.send(0);  // starts at once: on the wire when the PAUSE comes
  b.send(1);  // queued behind it
  b.send(2, PacketType::kAck);
  EXPECT_TRUE(b.marks.empty()) << "no PAUSE yet, nothing marked";
  b.port.set_priority_paused(PortBench::kDataPriority, true);
  b.send(3);  // queued while paused
  EXPECT_FALSE(b.marked(0));
  EXPECT_TRUE(b.marked(1));
  EXPECT_FALSE(b.marked(2)) << "an ACK is not a data packet";
  EXPECT_TRUE(b.marked(3));
  b.port.set_priority_paused(PortBench::kDataPriority, false);
  b.sim.run_until(Time::never());
  b.send(4);  // after the RESUME
  b.sim.run_until(Time::never());
  EXPECT_FALSE(b.marked(4));
  EXPECT_EQ(b.peer.received, 5);
  // A PAUSE of another class leaves this queue, and its packets, alone.
  b.port.set_priority_paused(PortBench::kDataPriority + 1, true);
  b.send(5);
  EXPECT_FALSE(b.marked(5));
  b.port.set_priority_paused(PortBench::kDataPriority + 1, false);
  b.sim.run_until(Time::never());
}

// BFC's per-queue holds are not PAUSEs; a PAUSE that holds every queue (BFC's PFC
// fallback) marks the packets in all of them.
TEST(HolBlocked, QueueHoldsAreNotPausesButAnAllQueuesPauseIs) {
  PortBench b;
  b.port.set_pfc_pauses_all_queues(true);
  b.port.hold_queue(PortBench::kDataPriority, true);
  b.send(0);
  b.send(1);
  EXPECT_FALSE(b.marked(0));
  EXPECT_FALSE(b.marked(1));
  b.port.set_priority_paused(0, true);  // any priority: every data queue stops
  EXPECT_TRUE(b.marked(0));
  EXPECT_TRUE(b.marked(1));
  b.port.set_priority_paused(0, false);
  b.port.hold_queue(PortBench::kDataPriority, false);
  b.sim.run_until(Time::never());
  EXPECT_EQ(b.peer.received, 2);
}

TEST(HolBlocked, AnUnwatchedPortMarksNothing) {
  PortBench b(false);
  b.send(0);
  b.send(1);
  b.port.set_priority_paused(PortBench::kDataPriority, true);
  b.send(2);
  EXPECT_TRUE(b.marks.empty());
  b.port.set_priority_paused(PortBench::kDataPriority, false);
  b.sim.run_until(Time::never());
}

// flows.csv's rows by flow id: the last field, hol_blocked.
// The hol_blocked column, found by its name in the header.
std::vector<std::string> hol_column(const std::filesystem::path& csv, std::string* header) {
  std::ifstream in(csv);
  std::getline(in, *header);
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') {
        out.emplace_back();
      } else {
        out.back().push_back(c);
      }
    }
    return out;
  };
  const auto names = fields(*header);
  const size_t col = std::find(names.begin(), names.end(), "hol_blocked") - names.begin();
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(fields(line).at(col));
  return out;
}

// Two leaves under one spine, hosts at 100 Gb/s, the fabric at 400 Gb/s. h0..h7 (leaf0) send
// to h9 (leaf1): leaf1's port to h9 is the bottleneck, so leaf1 pauses the spine. The
// victim h8 -> h10 (leaf1, idle) crosses the paused spine->leaf1 port. Without the incast,
// nothing pauses.
std::string scenario(bool incast) {
  std::string y = R"(
topology: {type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 9,
           host_rate: 100Gbps, fabric_rate: 400Gbps, link_delay: 1us}
cc: none
switch: {buffer: 2MB}
outputs: {flows_csv: true}
workloads:
  - {name: victim, type: flows, flows: [{src: h8, dst: h10, size: 1MB}]}
)";
  if (incast)
    y += "  - {name: incast, type: incast, senders: h0..h7, receiver: h9, size_per_sender: 2MB}\n";
  return y;
}

nlohmann::json run(bool incast, const std::string& dir) {
  ScenarioConfig c = load_scenario_text(scenario(incast), "hol.yaml");
  RunOptions o;
  o.quiet = true;
  o.out_dir = dir;
  return run_scenario(c, o);
}

TEST(HolBlocked, AVictimThroughAPausedSpinePortIsCounted) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "hol_blocked_incast";
  std::filesystem::remove_all(dir);
  const nlohmann::json s = run(true, dir.string());
  ASSERT_EQ(s["invariants"], "ok");
  // pfc_events.csv (time_ns,switch,port,paused_peer,priority,event): leaf1 paused the spine.
  std::ifstream events(dir / "pfc_events.csv");
  bool spine_paused = false;
  for (std::string line; std::getline(events, line);) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string field; std::getline(ls, field, ',');) f.push_back(field);
    spine_paused |= f.size() == 6 && f[1] == "leaf1" && f[3] == "spine0" && f[5] == "XOFF";
  }
  EXPECT_TRUE(spine_paused);
  const uint64_t blocked = s["hol_blocked_flows"].get<uint64_t>();
  EXPECT_GT(blocked, 0u);
  EXPECT_DOUBLE_EQ(s["hol_blocked_flow_ratio"].get<double>(),
                   static_cast<double>(blocked) / s["flows_total"].get<double>());
  std::string header;
  const auto hol = hol_column(dir / "flows.csv", &header);
  EXPECT_NE(header.find(",tag,hol_blocked,"), std::string::npos) << header;
  ASSERT_EQ(hol.size(), 9u);
  EXPECT_EQ(hol[0], "1") << "the victim (flow 0) waited at the paused spine port";
  EXPECT_EQ(static_cast<uint64_t>(std::count(hol.begin(), hol.end(), "1")), blocked);
  for (const auto& v : hol) EXPECT_TRUE(v == "0" || v == "1") << v;
}

TEST(HolBlocked, NoPauseNoBlockedFlow) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "hol_blocked_alone";
  std::filesystem::remove_all(dir);
  const nlohmann::json s = run(false, dir.string());
  ASSERT_EQ(s["invariants"], "ok");
  EXPECT_EQ(s["pfc_pause_frames"], 0);
  EXPECT_EQ(s["hol_blocked_flows"], 0);
  EXPECT_EQ(s["hol_blocked_flow_ratio"], 0.0);
  std::string header;
  EXPECT_EQ(hol_column(dir / "flows.csv", &header), (std::vector<std::string>{"0"}));
}

}  // namespace
}  // namespace rocelab
