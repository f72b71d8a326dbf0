// Each plug point of the core takes a second implementation: schedulers, flow control,
// switch features with packet fields echoed to the sender, the receiver half of congestion
// control, the host path policy, and PAUSE frames ahead of or behind the control queue.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "fc/bfc_scheduler.h"
#include "fc/fc_registry.h"
#include "net/drr_scheduler.h"
#include "net/load_balancer.h"
#include "net/network.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/switch_features.h"
#include "scenario/config/yaml_params.h"
#include "test_util.h"
#include "transport/rdma_transport.h"

namespace rocelab {
namespace {

// ---------------------------------------------------------------- egress schedulers

// Queues of packets of given sizes, for driving a scheduler by hand.
struct FakeQueues {
  std::vector<PortQueue> q;
  std::vector<uint8_t> paused;
  Pool<Packet> pool;
  uint32_t nonempty_mask = 0, paused_mask = 0;  // what a port keeps for its first 32 queues
  explicit FakeQueues(size_t n) : q(n), paused(n, 0) {}
  void sync_masks() {
    nonempty_mask = paused_mask = 0;
    for (size_t i = 0; i < q.size() && i < 32; ++i) {
      nonempty_mask |= static_cast<uint32_t>(!q[i].empty()) << i;
      paused_mask |= static_cast<uint32_t>(paused[i] != 0) << i;
    }
  }
  void push(size_t queue, std::initializer_list<uint32_t> sizes, EgressScheduler* s = nullptr) {
    for (uint32_t bytes : sizes) {
      const PacketId id(pool.alloc());
      pool[id.index()].wire_bytes = bytes;
      q[queue].push_back(id);
      if (s) s->on_enqueue(queue);
    }
  }
  // Runs the scheduler until it finds nothing; returns the queues served, in order.
  std::vector<size_t> drain(EgressScheduler& s) {
    const QueueState state(q, paused, pool, nonempty_mask, paused_mask);
    std::vector<size_t> order;
    for (size_t pick; (sync_masks(), pick = s.pick(state)) != EgressScheduler::kNone;) {
      const PacketId id = q[pick].pop_front();
      s.on_sent(pick, pool[id.index()].wire_bytes, q[pick].empty());
      pool.release(id.index());
      order.push_back(pick);
    }
    return order;
  }
};

TEST(Scheduler, DrrSharesBytesNotPackets) {
  // Quantum 1000 B: queue 0 holds 500 B packets, queue 1 holds 1000 B packets. Each round
  // queue 0 sends two packets (1000 B) and queue 1 one (1000 B).
  DrrScheduler drr(2, 1000);
  FakeQueues fq(2);
  fq.push(0, {500, 500, 500, 500});
  fq.push(1, {1000, 1000});
  EXPECT_EQ(fq.drain(drr), (std::vector<size_t>{0, 0, 1, 0, 0, 1}));
}

TEST(Scheduler, DrrSkipsAPausedQueue) {
  DrrScheduler drr(3, 1000);
  FakeQueues fq(3);
  for (size_t i = 0; i < 3; ++i) fq.push(i, {1000, 1000});
  fq.paused[1] = 1;
  EXPECT_EQ(fq.drain(drr), (std::vector<size_t>{0, 2, 0, 2}));
}

TEST(Scheduler, DrrWithMoreQueuesThanReadyBitsVisitsEachQueue) {
  // 40 queues: beyond the port's 32 ready bits DRR walks the queues one visit at a time.
  DrrScheduler drr(40, 1000);
  FakeQueues fq(40);
  for (size_t i : {0, 5, 33, 39}) fq.push(i, {1000, 1000});
  fq.paused[5] = 1;
  EXPECT_EQ(fq.drain(drr), (std::vector<size_t>{0, 33, 39, 0, 33, 39}));
}

TEST(Scheduler, DrrFromReadyBitsMatchesTheVisitByVisitWalk) {
  // Ports of up to 32 queues cross runs of idle queues at once; the choices, and the
  // deficits behind later choices, must be those of visiting one queue at a time. Heads
  // larger than two quanta make some walks end without a pick. In the second pass nine
  // arrivals in ten go to one queue, so that most picks find it the only ready one (a
  // fabric with one busy class: pick's shortcut for that case).
  for (const bool one_busy_class : {false, true})
    for (size_t n : {1, 2, 3, 8, 13, 32}) {
      DrrScheduler fast(n, 1000), slow(n, 1000);
      FakeQueues fq(n);
      std::mt19937 rng(static_cast<uint32_t>(n));
      size_t picks = 0, none = 0;
      for (int step = 0; step < 20000; ++step) {
        const uint32_t r = rng();
        if (r % 3 == 0) {
          const size_t queue = one_busy_class && rng() % 10 != 0 ? n / 2 : rng() % n;
          const uint32_t bytes = 64 + rng() % (r % 97 == 0 ? 2600 : 1000);
          fq.push(queue, {bytes});
        }
        if (r % 11 == 0) {
          const size_t queue = rng() % n;
          fq.paused[queue] ^= 1;
        }
        fq.sync_masks();
        const QueueState state(fq.q, fq.paused, fq.pool, fq.nonempty_mask, fq.paused_mask);
        const size_t a = fast.pick(state);
        const size_t b = slow.pick_by_visits(state);
        ASSERT_EQ(a, b) << n << " queues, step " << step
                        << (one_busy_class ? ", one busy class" : "");
        if (a == EgressScheduler::kNone) {
          ++none;
          continue;
        }
        ++picks;
        const PacketId id = fq.q[a].pop_front();
        const uint32_t bytes = fq.pool[id.index()].wire_bytes;
        fast.on_sent(a, bytes, fq.q[a].empty());
        slow.on_sent(a, bytes, fq.q[a].empty());
        fq.pool.release(id.index());
      }
      EXPECT_GT(picks, 1000u) << n;
      EXPECT_GT(none, 100u) << n;
    }
}

TEST(Scheduler, DrrOverManyQueuesServesTheActiveListInArrivalOrder) {
  // 1000 queues (SFQ's Ideal-FQ): DRR keeps a list of the queues holding packets, in the
  // order they became active, and skips a paused one without giving it credit.
  DrrScheduler drr(1000, 1000);
  FakeQueues fq(1000);
  fq.push(999, {1000, 1000}, &drr);
  fq.push(3, {500, 500, 500, 500}, &drr);
  fq.push(500, {1000, 1000}, &drr);
  fq.push(7, {1000}, &drr);
  fq.paused[500] = 1;
  EXPECT_EQ(fq.drain(drr), (std::vector<size_t>{999, 3, 3, 7, 999, 3, 3}));
  fq.paused[500] = 0;
  EXPECT_EQ(fq.drain(drr), (std::vector<size_t>{500, 500}));
}

TEST(Scheduler, BfcServesItsHighPriorityQueueFirst) {
  // Three physical queues, the overflow queue (3) and the high-priority queue (4).
  BfcScheduler s(5, 1000);
  FakeQueues fq(5);
  fq.push(0, {1000, 1000}, &s);
  fq.push(3, {1000}, &s);
  fq.push(4, {100, 100}, &s);
  EXPECT_EQ(fq.drain(s), (std::vector<size_t>{4, 4, 0, 3, 0}));
}

TEST(Scheduler, StrictPriorityServesTheHighestReadyQueueFirst) {
  const auto* entry = scheduler_registry().find("strict");
  ASSERT_NE(entry, nullptr);
  auto strict = entry->factory()->build(3, 1000);
  FakeQueues fq(3);
  fq.push(0, {100, 100});
  fq.push(2, {100});
  fq.push(1, {100, 100});
  EXPECT_EQ(fq.drain(*strict), (std::vector<size_t>{2, 1, 1, 0, 0}));
  fq.push(0, {100});
  fq.push(2, {100});
  fq.paused[2] = 1;
  EXPECT_EQ(fq.drain(*strict), (std::vector<size_t>{0})) << "a paused class does not block";
}

// ---------------------------------------------------------------- switch feature + echo

// A toy INT: every switch a data packet leaves adds one hop and the largest egress queue
// it met; the field is echoed into the ACK, where a test congestion control reads it.
struct IntRecord {
  uint32_t hops;
  int64_t max_queue_bytes;
};
struct Unechoed {
  uint32_t marker;
};

class ToyInt final : public SwitchFeature {
 public:
  explicit ToyInt(const SwitchView& sw)
      : field_(sw.packet_layout().declare<IntRecord>("test.int", Echo::kToReply)),
        private_(sw.packet_layout().declare<Unechoed>("test.private")) {}
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t) override {
    IntRecord& r = sw.field(field_, p);
    ++r.hops;
    r.max_queue_bytes = std::max(r.max_queue_bytes, sw.port(port).data_queue_bytes());
    sw.field(private_, p).marker = 7;
  }

 private:
  PacketField<IntRecord> field_;
  PacketField<Unechoed> private_;
};

struct ToyIntConfig : SwitchFeatureConfig {
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<ToyInt>(sw);
  }
};

class IntReader final : public CongestionControl {
 public:
  void attach(RdmaTransport& t) override {
    CongestionControl::attach(t);
    field_ = t.packet_layout().declare<IntRecord>("test.int", Echo::kToReply);
    private_ = t.packet_layout().declare<Unechoed>("test.private");
  }
  void on_ack(FlowId, const AckEvent& ev) override {
    const IntRecord r = transport_->field(field_, *ev.ack);
    hops.insert(r.hops);
    max_queue = std::max(max_queue, r.max_queue_bytes);
    private_seen |= transport_->field(private_, *ev.ack).marker != 0;
    ++acks;
  }
  std::set<uint32_t> hops;
  int64_t max_queue = 0;
  bool private_seen = false;
  uint64_t acks = 0;

 private:
  PacketField<IntRecord> field_;
  PacketField<Unechoed> private_;
};

TEST(PacketState, FeatureFieldIsEchoedToTheSenderAndOthersAreNot) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);  // host - leaf - spine - leaf - host
  spec.network.switch_config.ecn.enabled = false;
  // Two senders into one receiver: the last leaf's egress queue builds up.
  spec.flows = {test::flow(0, 2, 500 * 1000), test::flow(1, 2, 500 * 1000)};
  auto owned = std::make_unique<IntReader>();
  IntReader* reader = owned.get();
  Experiment exp(spec, std::move(owned));
  exp.network().install_switch_feature(ToyIntConfig{});
  test::run_checked(exp);
  EXPECT_GT(reader->acks, 0u);
  EXPECT_EQ(reader->hops, std::set<uint32_t>{3}) << "three switches on every path";
  EXPECT_GT(reader->max_queue, 1082) << "the incast queue was seen and echoed";
  EXPECT_FALSE(reader->private_seen) << "a field without echo stays on the data packet";
}

TEST(PacketState, FieldsOfDifferentSchemesDoNotOverlap) {
  PacketStateLayout layout;
  const auto a = layout.declare<IntRecord>("a");
  const auto b = layout.declare<uint8_t>("b");
  const auto c = layout.declare<int64_t>("c");
  EXPECT_GE(b.offset(), a.offset() + sizeof(IntRecord));
  EXPECT_GE(c.offset(), b.offset() + 1);
  EXPECT_EQ(c.offset() % alignof(int64_t), 0u);
  EXPECT_EQ(layout.declare<uint8_t>("b").offset(), b.offset()) << "same name, same field";
  // 32 bytes fit in the packet itself; the next field goes beside it.
  struct Big {
    int64_t v[2];
  };
  const auto d = layout.declare<Big>("d");
  EXPECT_TRUE(a.in_packet() && b.in_packet() && c.in_packet());
  EXPECT_FALSE(d.in_packet());
  EXPECT_EQ(d.offset(), 0u);
  EXPECT_EQ(layout.stride(), sizeof(Big));
  EXPECT_THROW(layout.declare<int64_t>("b"), std::logic_error);
}

// The switch calls a feature only at the hooks it declares.
struct HookCounter final : SwitchFeature {
  uint32_t declared;
  uint64_t* calls;  // receive, enqueue, dequeue
  HookCounter(uint32_t d, uint64_t* c) : declared(d), calls(c) {}
  uint32_t hooks() const override { return declared; }
  bool on_receive(const SwitchView&, Packet&, PortId) override {
    ++calls[0];
    return false;
  }
  void on_enqueue(const SwitchView&, Packet&, PortId) override { ++calls[1]; }
  void on_dequeue(const SwitchView&, Packet&, PortId, size_t) override { ++calls[2]; }
};

TEST(SwitchFeatures, OnlyDeclaredHooksAreCalled) {
  uint64_t calls[3] = {0, 0, 0};
  struct Config : SwitchFeatureConfig {
    uint64_t* calls;
    explicit Config(uint64_t* c) : calls(c) {}
    std::unique_ptr<SwitchFeature> build(const SwitchView&) const override {
      return std::make_unique<HookCounter>(SwitchFeature::kOnEnqueue, calls);
    }
  };
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 1);
  spec.flows = {test::flow(0, 1, 10 * 1000)};
  Experiment exp(spec);
  exp.network().install_switch_feature(Config(calls));
  test::run_checked(exp);
  EXPECT_EQ(calls[0], 0u);
  EXPECT_EQ(calls[1], 3u * 10) << "10 data packets through 3 switches";
  EXPECT_EQ(calls[2], 0u);
}

// Every dequeue hook is told the queue the packet left: the one the flow control put it in,
// also where that is not its priority's queue (SFQ hashes flows over many queues).
struct QueueWitness final : SwitchFeature {
  PacketField<uint32_t> joined;
  uint64_t* counts;  // packets, queue matched, queue not the priority's
  std::set<size_t>* queues;
  QueueWitness(const SwitchView& sw, uint64_t* c, std::set<size_t>* q)
      : joined(sw.packet_layout().declare<uint32_t>("test.joined")), counts(c), queues(q) {}
  uint32_t hooks() const override { return kOnEnqueue | kOnDequeue; }
  void on_enqueue(const SwitchView& sw, Packet& p, PortId port) override {
    sw.field(joined, p) = static_cast<uint32_t>(sw.flow_control().classify(sw.port(port), p));
  }
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override {
    ++counts[0];
    counts[1] += queue == sw.field(joined, p);
    counts[2] += queue != sw.port(port).queue_of(p);
    queues->insert(queue);
  }
};

TEST(SwitchFeatures, DequeueHooksAreToldTheQueueThePacketLeft) {
  uint64_t counts[3] = {0, 0, 0};
  std::set<size_t> queues;
  struct Config : SwitchFeatureConfig {
    uint64_t* counts;
    std::set<size_t>* queues;
    Config(uint64_t* c, std::set<size_t>* q) : counts(c), queues(q) {}
    std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
      return std::make_unique<QueueWitness>(sw, counts, queues);
    }
  };
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 4);
  spec.fc = "sfq";
  for (uint32_t i = 0; i < 4; ++i)
    for (uint32_t j = 4; j < 8; ++j) spec.flows.push_back(test::flow(i, j, 20 * 1000));
  Experiment exp(spec);
  exp.network().install_switch_feature(Config(counts, &queues));
  test::run_checked(exp);
  EXPECT_EQ(counts[0], 16u * 20 * 3) << "16 flows of 20 packets through 3 switches";
  EXPECT_EQ(counts[1], counts[0]);
  EXPECT_GT(counts[2], counts[0] / 2) << "most flows hash away from the priority's queue";
  EXPECT_GT(queues.size(), 4u);
}

// A feature may consume a packet on receive, as a load balancer may: nothing after it (the
// next features, the load balancer, routing) sees it. This one swallows every CNP frame.
struct CnpSwallower final : SwitchFeature {
  uint64_t* swallowed;
  explicit CnpSwallower(uint64_t* s) : swallowed(s) {}
  uint32_t hooks() const override { return kOnReceive; }
  bool on_receive(const SwitchView& sw, Packet& p, PortId) override {
    if (p.type != PacketType::kCnp) return false;
    ++*swallowed;
    sw.free_packet(p.self);
    return true;
  }
  void add_stats(std::vector<SchemeStat>& out) const override {
    out.push_back({"test_cnps_swallowed", static_cast<double>(*swallowed)});
  }
};
struct CnpCounter final : SwitchFeature {
  uint64_t* seen;
  explicit CnpCounter(uint64_t* s) : seen(s) {}
  uint32_t hooks() const override { return kOnReceive; }
  bool on_receive(const SwitchView&, Packet& p, PortId) override {
    *seen += p.type == PacketType::kCnp;
    return false;
  }
};

TEST(SwitchFeatures, AFeatureMayConsumeAPacketAndReportFigures) {
  uint64_t swallowed = 0, seen_after = 0;
  struct Swallow : SwitchFeatureConfig {
    uint64_t* n;
    explicit Swallow(uint64_t* c) : n(c) {}
    std::unique_ptr<SwitchFeature> build(const SwitchView&) const override {
      return std::make_unique<CnpSwallower>(n);
    }
  };
  struct Count : SwitchFeatureConfig {
    uint64_t* n;
    explicit Count(uint64_t* c) : n(c) {}
    std::unique_ptr<SwitchFeature> build(const SwitchView&) const override {
      return std::make_unique<CnpCounter>(n);
    }
  };
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 4);
  spec.cc = "dcqcn";
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4, 500 * 1000));
  Experiment exp(spec);
  exp.network().install_switch_feature(Swallow(&swallowed));
  exp.network().install_switch_feature(Count(&seen_after));
  test::run_checked(exp);
  EXPECT_GT(exp.transport().counters().cnps_sent, 0u) << "the 4-to-1 is marked";
  EXPECT_EQ(swallowed, exp.transport().counters().cnps_sent) << "every CNP meets a switch";
  EXPECT_EQ(seen_after, 0u);
  EXPECT_EQ(test::feature_stat(exp, "test_cnps_swallowed"), 3.0 * swallowed)
      << "each of the 3 switches' instances reports the shared count";
}

// Features are picked by name from a scenario; ECN is the switch.ecn flag, not a name.
TEST(SwitchFeatures, ChosenByNameWithClearErrors) {
  const std::string base =
      "topology: {type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 2}\n"
      "workloads: [{name: w, type: flows, flows: [{src: h0, dst: h2, size: 1KB, start: 0}]}]\n";
  for (const char* bad : {"[inth]", "[ecn]"}) {
    try {
      load_scenario_text(base + "switch: {features: " + bad + "}\n", "f.yaml");
      ADD_FAILURE() << bad << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("switch.features"), std::string::npos) << e.what();
    }
  }
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 1);
  spec.switch_features = {"no_such_feature"};
  EXPECT_THROW(Experiment exp(spec), std::invalid_argument);
}

// A newcomer's switch feature: one class and one registry line, then a scenario name. This
// toy counts the data packets each switch receives and reports them; summed over the
// switches that is every data packet's hops, which the egress ports count too.
class ToyHopCounter final : public SwitchFeature {
 public:
  uint32_t hooks() const override { return kOnReceive; }
  bool on_receive(const SwitchView&, Packet& p, PortId) override {
    hops_ += p.type == PacketType::kData;
    return false;  // never consumes
  }
  void add_stats(std::vector<SchemeStat>& out) const override {
    out.push_back({"toy_data_hops", static_cast<double>(hops_)});
  }

 private:
  uint64_t hops_ = 0;
};

TEST(SwitchFeatures, AFeatureIsAClassAndARegistryLine) {
  struct Config : SwitchFeatureConfig {
    std::unique_ptr<SwitchFeature> build(const SwitchView&) const override {
      return std::make_unique<ToyHopCounter>();
    }
  };
  if (!switch_feature_registry().find("toy_hops"))
    switch_feature_registry().add("toy_hops", "a test's toy",
                                  [](NetCounterLanes&) { return std::make_unique<Config>(); });
  ScenarioConfig c = load_scenario(std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios/tiny.yaml",
                                   {"switch.features=[toy_hops]"});
  ExperimentSpec spec = build_experiment(c);
  Experiment exp(spec);
  test::run_checked(exp);
  uint64_t hops = 0;
  for (NodeId sw : exp.network().switches())
    for (size_t port = 0; port < exp.network().node(sw).port_count(); ++port)
      hops += exp.network()
                  .node(sw)
                  .port(PortId(static_cast<uint16_t>(port)))
                  .counters()
                  .tx_data_packets;
  EXPECT_GT(hops, exp.transport().counters().data_packets_sent) << "most packets cross 3 switches";
  EXPECT_EQ(test::feature_stat(exp, "toy_data_hops"), static_cast<double>(hops));
}

// Load balancers and switch features declare the bytes their headers add, as congestion
// controls do: every data frame grows by them on every link, and ACKs by theirs.
TEST(SwitchFeatures, LoadBalancersAndFeaturesDeclareTheirHeaderBytes) {
  struct TaggedEcmp : LbConfig {
    std::unique_ptr<LoadBalancer> build(const SwitchView&) const override { return nullptr; }
    HeaderBytes header_bytes() const override { return {8, 0}; }
  };
  struct ToyHeader : SwitchFeatureConfig {
    std::unique_ptr<SwitchFeature> build(const SwitchView&) const override {
      return std::make_unique<ToyHopCounter>();
    }
    HeaderBytes header_bytes() const override { return {12, 4}; }
  };
  if (!switch_feature_registry().find("toy_header"))
    switch_feature_registry().add("toy_header", "a test's toy",
                                  [](NetCounterLanes&) { return std::make_unique<ToyHeader>(); });
  // One 10-packet flow across 3 switches: each data frame is 20 B longer on each of its 4
  // links, each ACK 4 B.
  auto wire = [](bool headers) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 1);
    spec.cc = "none";
    spec.flows = {test::flow(0, 1, 10 * 1000)};
    if (headers) {
      spec.lb_config = std::make_shared<TaggedEcmp>();
      spec.switch_features = {"toy_header"};
    }
    Experiment exp(spec);
    test::run_checked(exp);
    uint64_t data = 0, all = 0;
    for (size_t n = 0; n < exp.network().node_count(); ++n) {
      const Node& node = exp.network().node(NodeId(static_cast<uint32_t>(n)));
      for (size_t p = 0; p < node.port_count(); ++p) {
        data += node.port(PortId(static_cast<uint16_t>(p))).counters().tx_data_bytes;
        all += node.port(PortId(static_cast<uint16_t>(p))).counters().tx_bytes;
      }
    }
    return std::pair(data, all - data);
  };
  const auto [plain_data, plain_other] = wire(false);
  const auto [tagged_data, tagged_other] = wire(true);
  EXPECT_EQ(tagged_data - plain_data, 10u * 4u * 20u);
  EXPECT_EQ(tagged_other - plain_other, 10u * 4u * 4u) << "one ACK per packet, 4 links back";
}

TEST(SwitchFeatures, EcnFollowsTheSwitchFlag) {
  for (bool ecn : {false, true}) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 4);
    spec.network.switch_config.ecn.enabled = ecn;
    for (uint32_t s = 0; s < 4; ++s) spec.flows.push_back(test::flow(s, 4, 1000 * 1000));
    Experiment exp(spec);
    test::run_checked(exp);
    EXPECT_EQ(exp.network().counters().ecn_marks > 0, ecn);
  }
}

// ---------------------------------------------------------------- receiver half of CC

TEST(ReceiverHalf, OnlyDcqcnSendsCnps) {
  for (const char* cc : {"none", "dcqcn"}) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 4);
    spec.cc = cc;
    for (uint32_t s = 0; s < 4; ++s) spec.flows.push_back(test::flow(s, 4, 1000 * 1000));
    Experiment exp(spec);
    test::run_checked(exp);
    EXPECT_GT(exp.network().counters().ecn_marks, 0u) << cc;
    if (std::string(cc) == "none")
      EXPECT_EQ(exp.transport().counters().cnps_sent, 0u) << "no DCQCN, no notification point";
    else
      EXPECT_GT(exp.transport().counters().cnps_sent, 0u);
  }
}

// ---------------------------------------------------------------- flow control

TEST(FlowControl, NoneIsLossyAndPfcIsNot) {
  for (const char* fc : {"pfc", "none"}) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 8);
    spec.fc = fc;
    spec.network.switch_config.buffer_bytes = 300 * 1000;
    for (uint32_t s = 0; s < 8; ++s) spec.flows.push_back(test::flow(s, 8, 500 * 1000));
    Experiment exp(spec);
    EXPECT_EQ(exp.network().flow_control().lossless(), std::string(fc) == "pfc");
    test::run_checked(exp);
    if (std::string(fc) == "pfc") {
      EXPECT_EQ(exp.network().counters().drops, 0u);
      EXPECT_GT(exp.network().counters().pause_frames, 0u);
    } else {
      EXPECT_GT(exp.network().counters().drops, 0u) << "a 300 KB buffer overflows without PFC";
      EXPECT_EQ(exp.network().counters().pause_frames, 0u);
    }
  }
}

// A NIC with fewer queues than the data priority (3) carries it in its last queue: the
// transport must test that queue's pause, not queue 3 (it read past the queue array and
// found the port paused forever: 0 packets sent in 5 ms).
TEST(FlowControl, NicsWithFewerQueuesThanThePrioritySend) {
  for (uint32_t queues : {1u, 2u, 3u}) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 1, 4);
    spec.network.host_queues = queues;
    for (uint32_t s = 0; s < 4; ++s) spec.flows.push_back(test::flow(s, 4, 500 * 1000));
    Experiment exp(spec);
    const RunStats st = test::run_checked(exp, Time{Delta::from_ms(5).ps});
    EXPECT_LT(st.sim_end.us(), 1000) << queues << " NIC queues";
  }
}

// A host agent that frees whatever reaches the hosts.
struct Sink : HostAgent {
  Network* net = nullptr;
  void on_host_receive(NodeId, PacketId pkt) override { net->context().free_packet(pkt); }
  PacketId pull_data(NodeId, const EgressPort&, Time*) override { return PacketId::invalid(); }
};

// Three ACK frames, then a PAUSE, queued at once on the switch port toward host a
// (100 Gb/s: 80 ps per byte; ACK 86 B = 6,880 ps, PAUSE 84 B = 6,720 ps; 1 us cable).
// Ahead: the PAUSE follows the ACK on the wire, arrives at 6,880 + 6,720 + 1,000,000 =
// 1,013,600 ps. FIFO: after all three ACKs, at 3 x 6,880 + 6,720 + 1,000,000 = 1,027,360.
Time pause_arrival(bool ahead) {
  Simulator sim;
  NetworkConfig cfg;
  cfg.switch_config.pfc.pause_ahead_of_control = ahead;
  Network net(sim, test::chain({gbps(100), gbps(100)}, Delta::from_us(1)), cfg);
  Sink sink;
  sink.net = &net;
  net.set_host_agent(&sink);
  EgressPort& port = net.switch_at(NodeId(2)).port(PortId(0));
  EXPECT_EQ(port.peer()->id(), NodeId(0));
  NetContext& ctx = net.context();
  for (int i = 0; i < 3; ++i) {
    const PacketId id = ctx.alloc_packet();
    ctx.pkt(id).type = PacketType::kAck;
    ctx.pkt(id).dst = NodeId(0);
    ctx.pkt(id).wire_bytes = ctx.wire.control_wire_bytes(PacketType::kAck);
    port.enqueue(id);
  }
  const PacketId pause = ctx.alloc_packet();
  ctx.pkt(pause).type = PacketType::kPause;
  ctx.pkt(pause).pfc_priority = 3;
  ctx.pkt(pause).pfc_xoff = true;
  ctx.pkt(pause).wire_bytes = ctx.wire.control_wire_bytes(PacketType::kPause);
  port.enqueue(pause);
  const EgressPort& nic = net.host(NodeId(0)).nic();
  for (int64_t t = 0; t <= 2'000'000; t += 160) {
    sim.run_until(Time{t});
    if (nic.paused(3)) return sim.now();
  }
  return Time::never();
}

TEST(FlowControl, PauseFramesLeaveAheadOfQueuedControlFrames) {
  EXPECT_EQ(pause_arrival(true).ps, 1'013'600);
  EXPECT_EQ(pause_arrival(false).ps, 1'027'360);
}

// ---------------------------------------------------------------- host path policy

TEST(HostPath, SprayGivesEachPacketItsOwnEntropy) {
  for (const char* policy : {"fixed", "spray"}) {
    ExperimentSpec spec;
    spec.topology = test::small_leaf_spine(2, 4, 1);
    spec.transport.path_policy = policy;
    spec.transport.recovery = "selective_repeat";
    spec.network.switch_config.ecn.enabled = false;
    spec.flows = {test::flow(0, 1, 2000 * 1000)};
    Experiment exp(spec);
    test::run_checked(exp);
    // Uplinks of leaf0 toward the spines that carried data.
    const Switch& leaf0 = exp.network().switch_at(NodeId(exp.network().topology().find("leaf0")));
    int used = 0;
    for (size_t p = 0; p < leaf0.port_count(); ++p) {
      const EgressPort& port = leaf0.port(PortId(static_cast<uint16_t>(p)));
      used += port.peer()->kind() == NodeKind::kSwitch && port.counters().tx_data_bytes > 0;
    }
    EXPECT_EQ(used, std::string(policy) == "fixed" ? 1 : 4) << policy;
  }
}

TEST(HostPath, UnknownPolicyIsAClearError) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 1, 1);
  spec.transport.path_policy = "sprya";
  EXPECT_THROW(Experiment exp(spec), std::invalid_argument);
}

}  // namespace
}  // namespace rocelab
