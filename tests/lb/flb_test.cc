// FLB (ATC'25): Alg. 1, no reordering, isolation before PFC, CNM loss, clock offsets,
// multi-tier source routing, and the minimal rate control.
#include <gtest/gtest.h>

#include "cc/flb_rc.h"
#include "lb/flb.h"
#include "net/cnm.h"
#include "scenario/build/scenario_build.h"
#include "scenario/run/runner.h"
#include "test_util.h"

namespace rocelab {
namespace {

const std::string kFig2 = std::string(ROCELAB_SOURCE_DIR) + "/scenarios/flb/fig2_burst.yaml";

TEST(FlbAlg1, ReroutesExactlyWhenTheDelayGainIsBelowTheGap) {
  // Paths' one-way delays in ps; the flow is on path 0 (10 us).
  const std::vector<int64_t> d = {10000000, 9500000, 4000000, 12000000};
  const std::vector<uint8_t> all = {1, 1, 1, 1};
  // Gap 1 us: only path 1 (0.5 us faster) is safe.
  EXPECT_EQ(Flb::reroute(d, all, 0, Delta::from_us(1)), 1);
  // Gap 0.5 us exactly: 0 < 0.5 < 0.5 fails, stay.
  EXPECT_EQ(Flb::reroute(d, all, 0, Delta::from_ns(500)), 0);
  // Gap 7 us: paths 1 and 2 qualify; the fastest (2) wins.
  EXPECT_EQ(Flb::reroute(d, all, 0, Delta::from_us(7)), 2);
  // Path 2 not allowed (isolated): path 1.
  EXPECT_EQ(Flb::reroute(d, {1, 1, 0, 1}, 0, Delta::from_us(7)), 1);
  // Equal or slower paths never attract a flow, whatever the gap.
  EXPECT_EQ(Flb::reroute({5, 5, 9}, {1, 1, 1}, 0, Delta::from_ms(1)), 0);
  EXPECT_EQ(Flb::reroute(d, all, 2, Delta::from_ms(1)), 2);
}

WorkloadConfig poisson_workload(const char* cdf, double load, Delta stop) {
  WorkloadConfig w;
  w.cdf = cdf;
  w.load = load;
  w.stop = stop;
  return w;
}

Experiment websearch_leaf_spine(const std::string& lb, const std::string& cc) {
  ScenarioConfig c;
  c.seed = 3;
  c.topology.leaf_spine = LeafSpineParams{4, 4, 8, gbps(100), gbps(100), Delta::from_us(1)};
  c.lb = lb;
  c.cc = cc;
  c.switch_config.buffer_bytes = 4 * 1000 * 1000;
  c.workloads = {poisson_workload("websearch", 0.6, Delta::from_us(500))};
  return Experiment(build_experiment(c));
}

// Six long flows from leaf0 to leaf1 over four equal paths at 100 Gb/s, staggered by
// 20 us: two paths carry two flows, their uplink queues build and PFC pauses senders, so
// gaps open and FLB moves flows. Every decision compares delays the previous packet
// really meets (the exact local queue it joined; samples kept fresh by the long flows).
ExperimentSpec six_flows_over_four_paths(const std::string& cc) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 4, 8);
  spec.lb = "flb";
  spec.cc = cc;
  for (uint32_t i = 0; i < 6; ++i)
    spec.flows.push_back(
        test::flow(i, 8 + i, 10 * 1000 * 1000, Time{Delta::from_us(i < 3 ? 0 : 20 * (i - 2)).ps}));
  return spec;
}

TEST(Flb, NeverReordersInASymmetricLeafSpineUnderLoad) {
  double moves = 0;
  for (const char* cc : {"none", "dcqcn", "rc"}) {
    Experiment exp(six_flows_over_four_paths(cc));
    test::run_checked(exp);
    const TransportCounters& c = exp.transport().counters();
    EXPECT_EQ(c.network_reordered_packets, 0u) << cc;
    EXPECT_EQ(c.out_of_order_packets, 0u) << cc;
    EXPECT_EQ(c.retransmitted_bytes, 0u) << cc;
    moves += test::lb_stat(exp, "flb_reroutes");
  }
  EXPECT_GT(moves, 20) << "the test must exercise rerouting";
}

// FLB moves a flow only when the measured delay gain is below the flow's packet gap
// (Alg. 1) and its previous packet has left the uplink queue. Its delays are sampled every
// two base RTTs, so under load a sample can be off and a few moves do reorder
// (docs/reproduction/flb.md): far fewer than spraying's, which ignores delays altogether.
TEST(Flb, ReroutesUnderLoadWithLittleReorderingComparedToSpraying) {
  for (const char* cc : {"none", "dcqcn"}) {
    Experiment flb = websearch_leaf_spine("flb", cc);
    test::run_checked(flb, Time{Delta::from_ms(500).ps});
    Experiment rps = websearch_leaf_spine("rps", cc);
    test::run_checked(rps, Time{Delta::from_ms(500).ps});
    const auto& f = flb.transport().counters();
    const auto& r = rps.transport().counters();
    // Without congestion control a flow's packets queue back to back at its uplink, and its
    // previous packet has rarely left when the next one comes (18 moves; 2,967 under DCQCN).
    EXPECT_GT(test::lb_stat(flb, "flb_reroutes"), 10) << cc << ": FLB must move flows";
    EXPECT_GT(test::lb_stat(flb, "flb_delay_feedback_received"), 100) << cc;
    // Reordering caused by the network (go-back-N multiplies what the receiver sees).
    const double flb_ratio =
        static_cast<double>(f.network_reordered_packets) / static_cast<double>(f.data_packets_sent);
    const double rps_ratio =
        static_cast<double>(r.network_reordered_packets) / static_cast<double>(r.data_packets_sent);
    std::printf("%s: network reordering flb %.5f rps %.5f\n", cc, flb_ratio, rps_ratio);
    EXPECT_LT(flb_ratio, 0.1 * rps_ratio) << cc;
  }
}

struct Fig2Run {
  ExperimentSpec spec;
  std::unique_ptr<Experiment> exp;
  Time first_pause = Time::never();
  Time first_cnm = Time::never();
};

Fig2Run run_fig2(const std::string& lb, const std::string& cc,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> sets = {"lb=" + lb,
                                   "cc=" + cc,
                                   "stop.time=80ms",
                                   "workloads.0.flows.0.size=200MB",
                                   "workloads.0.flows.1.size=200MB",
                                   "workloads.0.flows.2.size=200MB"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  ScenarioConfig c = load_scenario(kFig2, sets);
  Fig2Run r;
  r.spec = build_experiment(c);
  r.spec.stop_when_done = false;
  r.exp = std::make_unique<Experiment>(r.spec);
  r.exp->network().context().on_pfc = [&r](const PfcEvent& e) {
    if (e.xoff && r.first_pause == Time::never()) r.first_pause = e.time;
  };
  return r;
}

double goodput_gbps(Experiment& exp, FlowId f, Time t0, Time t1, uint64_t at_t0) {
  return static_cast<double>(exp.transport().delivered_bytes(f) - at_t0) * 8 / (t1 - t0).seconds() /
         1e9;
}

TEST(FlbIsolation, VictimsKeepTheirThroughputAndTheCongestedFlowIsIsolatedBeforePfc) {
  // f0 and f1 must not finish inside the measured windows (37 Gb/s each until 65 ms).
  Fig2Run r = run_fig2("flb", "rc",
                       {"workloads.0.flows.0.size=400MB", "workloads.0.flows.1.size=400MB",
                        "workloads.0.flows.2.size=400MB"});
  Experiment& exp = *r.exp;
  const Time pre0{Delta::from_ms(30).ps}, burst0{Delta::from_ms(40).ps},
      burst1{Delta::from_ms(46).ps};
  exp.run(pre0);
  uint64_t at[3];
  for (uint32_t f = 0; f < 3; ++f) at[f] = exp.transport().delivered_bytes(FlowId(f));
  exp.run(burst0);
  double pre[3], during[3];
  for (uint32_t f = 0; f < 3; ++f) {
    pre[f] = goodput_gbps(exp, FlowId(f), pre0, burst0, at[f]);
    at[f] = exp.transport().delivered_bytes(FlowId(f));
  }
  exp.run(burst1);
  for (uint32_t f = 0; f < 3; ++f) during[f] = goodput_gbps(exp, FlowId(f), burst0, burst1, at[f]);
  EXPECT_GE(during[0], 0.8 * pre[0]) << "f0 " << pre[0] << " -> " << during[0];
  EXPECT_GE(during[1], 0.8 * pre[1]) << "f1 " << pre[1] << " -> " << during[1];
  EXPECT_LT(during[2], 0.5 * pre[2]) << "f2, the congested flow, is slowed";
  // Once the burst flows are gone, their entries age out at S4, the new n (1) reaches f2's
  // host and f2 is back at line rate (§3.3: the rate follows n).
  const Time after0{Delta::from_ms(55).ps}, after1{Delta::from_ms(65).ps};
  exp.run(after0);
  const uint64_t f2_at = exp.transport().delivered_bytes(FlowId(2));
  exp.run(after1);
  EXPECT_GE(goodput_gbps(exp, FlowId(2), after0, after1, f2_at), 0.95 * pre[2]);

  // The source edge isolated f2 (and only congested flows); no PFC PAUSE came before it.
  const TopologySpec& t = exp.network().topology();
  auto& s0 = static_cast<Flb&>(*exp.network().switch_at(NodeId(t.find("S0"))).load_balancer());
  auto& s4 = static_cast<Flb&>(*exp.network().switch_at(NodeId(t.find("S4"))).load_balancer());
  std::vector<LoadBalancer::Stat> stats;
  s0.add_stats(stats);
  s4.add_stats(stats);
  double isolations = 0, cnms = 0;
  for (const auto& st : stats) {
    if (st.name == "flb_isolations") isolations += st.value;
    if (st.name == "flb_cnms_sent") cnms += st.value;
  }
  EXPECT_GE(isolations, 1);
  EXPECT_GT(cnms, 0);
  EXPECT_TRUE(r.first_pause == Time::never() || r.first_pause > burst0 + Delta::from_us(50))
      << "PFC triggered at " << r.first_pause.us() << " us, before isolation could act";

  // Spraying pauses more links under the same burst.
  Fig2Run rps = run_fig2("rps", "none");
  rps.exp->run(after1);
  uint64_t paused_flb = 0, paused_rps = 0;
  for (auto* e : {&exp, rps.exp.get()}) {
    uint64_t& paused = e == &exp ? paused_flb : paused_rps;
    for (size_t n = 0; n < e->network().node_count(); ++n) {
      const Node& node = e->network().node(NodeId(static_cast<uint32_t>(n)));
      for (size_t p = 0; p < node.port_count(); ++p)
        paused += node.port(PortId(static_cast<uint16_t>(p))).counters().times_paused > 0;
    }
  }
  EXPECT_LT(paused_flb, paused_rps);
}

// Drops FLB's release (non-congestion) CNMs as they cross a core switch.
struct ReleaseCnmDropper : LoadBalancer {
  explicit ReleaseCnmDropper(const SwitchView& sw) : cnm(sw.packet_layout()) {}
  CnmFormat cnm;
  uint64_t dropped = 0;
  PortId choose_egress(const SwitchView& sw, Packet& p, std::span<const PortId> c) override {
    return c[sw.ecmp_index(p, c)];
  }
  bool on_receive(const SwitchView& sw, Packet& p, PortId) override {
    if (!cnm.is_cnm(p) || cnm.read(sw, p).congested) return false;
    ++dropped;
    sw.free_packet(p.self);
    return true;
  }
};

TEST(FlbIsolation, LostReleaseCnmsTimeOut) {
  Fig2Run r = run_fig2("flb", "rc", {"lb.isolation_timeout=300us"});
  Experiment& exp = *r.exp;
  const TopologySpec& t = exp.network().topology();
  std::vector<ReleaseCnmDropper*> droppers;
  for (const char* core : {"S1", "S2", "S3"}) {
    Switch& sw = exp.network().switch_at(NodeId(t.find(core)));
    auto d = std::make_unique<ReleaseCnmDropper>(sw.view());
    droppers.push_back(d.get());
    sw.set_load_balancer(std::move(d));
  }
  auto& s0 = static_cast<Flb&>(*exp.network().switch_at(NodeId(t.find("S0"))).load_balancer());
  bool isolated = false;
  for (int us = 40000; us <= 48000 && !isolated; us += 100) {
    exp.run(Time{Delta::from_us(us).ps});
    isolated = s0.isolated_flows() > 0;
  }
  EXPECT_TRUE(isolated) << "f2 is isolated during the burst";
  exp.run(Time{Delta::from_ms(80).ps});  // the burst is long over
  uint64_t dropped = 0;
  for (auto* d : droppers) dropped += d->dropped;
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(s0.isolated_flows(), 0u) << "the timeout released the entries";
  EXPECT_TRUE(s0.isolated_paths(t.find("S4")).empty());
  std::vector<LoadBalancer::Stat> stats;
  s0.add_stats(stats);
  for (const auto& st : stats) {
    if (st.name == "flb_isolation_timeouts") {
      EXPECT_GT(st.value, 0);
    }
  }
}

TEST(Flb, UnsynchronisedClocksChangeNothing) {
  auto fcts = [](const std::string& offset) {
    ScenarioConfig c = load_scenario(
        kFig2, {"lb=flb", "cc=rc", "lb.clock_offset_max=" + offset, "workloads.0.flows.0.size=20MB",
                "workloads.0.flows.1.size=20MB", "workloads.0.flows.2.size=20MB",
                "workloads.1.start=2ms", "workloads.1.flows_per_sender=4"});
    Experiment exp(build_experiment(c));
    test::run_checked(exp);
    std::vector<int64_t> out;
    for (const FlowRecord& rec : exp.transport().records()) out.push_back(rec.finish.ps);
    return out;
  };
  const auto synced = fcts("0"), skewed = fcts("3ms");
  EXPECT_EQ(synced, skewed);
}

TEST(Flb, PinsEndToEndPathsInAFatTree) {
  ScenarioConfig c;
  c.topology.type = "fat_tree";
  c.topology.fat_tree = FatTreeParams{4, 2, 2, 4, 4, gbps(100), gbps(100), Delta::from_us(1)};
  c.lb = "flb";
  c.cc = "dcqcn";
  c.workloads = {poisson_workload("websearch", 0.5, Delta::from_us(300))};
  Experiment exp(build_experiment(c));
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
  // Aggregation and core switches carry no FLB, yet every core link carried traffic: the
  // edge switches spread flows over all end-to-end paths by source routing.
  const TopologySpec& t = exp.network().topology();
  int used = 0, cores = 0;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].layer != Layer::kCore) continue;
    ++cores;
    const Switch& sw = exp.network().switch_at(NodeId(i));
    EXPECT_EQ(const_cast<Switch&>(sw).load_balancer(), nullptr);
    uint64_t bytes = 0;
    for (size_t p = 0; p < sw.port_count(); ++p)
      bytes += sw.port(PortId(static_cast<uint16_t>(p))).counters().tx_data_bytes;
    used += bytes > 0;
  }
  EXPECT_EQ(used, cores);
}

TEST(Flb, HardwareTableCollidesButStillDelivers) {
  ScenarioConfig c;
  c.topology.leaf_spine = LeafSpineParams{2, 4, 8, gbps(100), gbps(100), Delta::from_us(1)};
  c.lb = "flb";
  c.cc = "rc";
  auto flb = std::make_shared<FlbSchemeConfig>();
  flb->cfg.hardware_table = true;
  flb->cfg.hardware_entries = 8;  // far fewer entries than flows: CRC16 collisions
  c.lb_params = flb;
  c.lb_params_for = "flb";
  c.workloads = {poisson_workload("fb_webserver", 0.5, Delta::from_us(300))};
  Experiment exp(build_experiment(c));
  test::run_checked(exp, Time{Delta::from_ms(200).ps});
  auto& leaf0 = static_cast<Flb&>(
      *exp.network().switch_at(NodeId(exp.network().topology().find("leaf0"))).load_balancer());
  EXPECT_TRUE(leaf0.flow_table().hardware_mode());
  EXPECT_EQ(leaf0.flow_table().memory_bytes(4), 8u * (16 + 8 + 8 + 48) / 8);
  // CRC-16/CCITT-FALSE of the 13-byte 5-tuple, computed independently (Python's
  // binascii.crc_hqx with init 0xffff): 11.0.0.1 -> 11.0.0.1, UDP 0 -> 4791; then
  // 11.0.0.1 -> 11.0.1.1, 10000 -> 4791.
  Packet q;
  q.src = NodeId(0);
  q.dst = NodeId(0);
  EXPECT_EQ(flow_crc16(q), 0x6a24);
  q.dst = NodeId(1);
  q.sport = 10000;
  EXPECT_EQ(flow_crc16(q), 0xa682);
}

TEST(FlbRc, CongestionCnmPausesAndReleaseResumesAtCOverN) {
  ExperimentSpec spec;
  spec.topology = test::chain({gbps(100), gbps(100)}, Delta::from_us(1));
  spec.flows = {test::flow(0, 1, 100 * 1000 * 1000)};
  FlbRcConfig cfg;
  cfg.recovery_time = Delta::zero();
  auto owned = std::make_unique<FlbRateControl>(cfg);
  FlbRateControl* rc = owned.get();
  Experiment exp(spec, std::move(owned));
  const FlowId f(0);
  exp.run(Time{Delta::from_us(50).ps});
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(100)) << "starts at line rate";
  EXPECT_GT(exp.transport().inflight_bytes(f), 0u);

  NetContext& ctx = exp.network().context();
  const CnmFormat format(ctx.state.layout());
  const PacketId cnm_id = ctx.alloc_packet();
  Packet& cnm = ctx.pkt(cnm_id);
  cnm.flow = f;
  format.write(ctx, cnm, Cnm{true, 4, 0});
  rc->on_control(f, cnm);
  EXPECT_TRUE(rc->paused(f));
  const uint64_t sent = exp.transport().counters().data_packets_sent;
  exp.run(Time{Delta::from_us(100).ps});
  EXPECT_EQ(exp.transport().counters().data_packets_sent, sent) << "paused: nothing is sent";

  format.write(ctx, cnm, Cnm{false, 4, 0});
  rc->on_control(f, cnm);
  EXPECT_FALSE(rc->paused(f));
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(25)) << "resumes at C/n = 100G/4";
  const uint64_t before = exp.transport().delivered_bytes(f);
  exp.run(Time{Delta::from_us(300).ps});
  const double gbps_after =
      static_cast<double>(exp.transport().delivered_bytes(f) - before) * 8 / 200e-6 / 1e9;
  EXPECT_NEAR(gbps_after, 25.0 * 1000 / 1082, 1.0);
  // n changes: the rate follows.
  format.write(ctx, cnm, Cnm{false, 2, 0});
  rc->on_control(f, cnm);
  EXPECT_EQ(exp.transport().rate_bps(f), gbps(50));
  ctx.free_packet(cnm_id);
}

// lb.rc_n (§3.2's n): eight flows meet at one host port, four of 100 KB and four of 10 MB.
// Once the short ones are done, the long ones share the port four ways. Under `entries`
// the short flows' entries count in n until §3.1's 1 ms timeout, so the long flows keep
// C/8; under `recent` the next periodic check (50 us) counts the four still sending and
// the release CNM gives them C/4.
struct RcNRun {
  Time short_done;
  std::vector<BitsPerSec> long_rates_after_300us, long_rates_after_1500us;
  BitsPerSec line = 0;
  double n_sum = 0, recent_sum = 0, cnms = 0;
};

RcNRun run_rc_n(const std::string& reading) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 8);
  spec.lb = "flb";
  spec.cc = "rc";
  auto cfg = std::make_shared<FlbSchemeConfig>();
  cfg->cfg.rc_n = reading;
  spec.lb_config = cfg;
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 8, 10 * 1000 * 1000));
  for (uint32_t i = 4; i < 8; ++i) spec.flows.push_back(test::flow(i, 8, 100 * 1000));
  Experiment exp(spec);
  RcNRun out;
  out.line = exp.transport().line_rate_bps(FlowId(0));
  Time t = Time::zero();
  auto short_done = [&] {
    size_t done = 0;
    for (const auto& r : exp.transport().records())
      done += r.size_bytes == 100 * 1000 && r.finished();
    return done == 4;
  };
  while (!short_done()) {
    t = t + Delta::from_us(10);
    exp.run(t);
  }
  out.short_done = t;
  exp.run(t + Delta::from_us(300));
  for (uint32_t i = 0; i < 4; ++i)
    out.long_rates_after_300us.push_back(exp.transport().rate_bps(FlowId(i)));
  exp.run(t + Delta::from_us(1500));
  for (uint32_t i = 0; i < 4; ++i)
    out.long_rates_after_1500us.push_back(exp.transport().rate_bps(FlowId(i)));
  test::run_checked(exp);
  out.n_sum = test::lb_stat(exp, "flb_cnm_n_sum");
  out.recent_sum = test::lb_stat(exp, "flb_cnm_recent_flows_sum");
  out.cnms = test::lb_stat(exp, "flb_cnms_sent");
  return out;
}

TEST(FlbRc, NCountsTheFlowsStillSendingUnderRecentAndEveryEntryUnderEntries) {
  const RcNRun entries = run_rc_n("entries");
  const RcNRun recent = run_rc_n("recent");
  std::printf(
      "short flows done at %.0f / %.0f us; mean n %.2f / %.2f, entries hit within 50 us "
      "%.2f / %.2f\n",
      entries.short_done.us(), recent.short_done.us(), entries.n_sum / entries.cnms,
      recent.n_sum / recent.cnms, entries.recent_sum / entries.cnms,
      recent.recent_sum / recent.cnms);
  for (BitsPerSec r : entries.long_rates_after_300us)
    EXPECT_EQ(r, entries.line / 8) << "the finished flows still count";
  for (BitsPerSec r : entries.long_rates_after_1500us)
    EXPECT_EQ(r, entries.line / 4) << "their entries timed out";
  for (BitsPerSec r : recent.long_rates_after_300us) EXPECT_EQ(r, recent.line / 4);
  EXPECT_GT(entries.n_sum, entries.recent_sum) << "entries counted flows that had stopped";
}

}  // namespace
}  // namespace rocelab
