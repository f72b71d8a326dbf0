// Collectives run end to end: completion times against hand-computed ones, dependencies
// honoured in time, the invariants on the rail fabric under every scheme, DAG traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "scenario/results/collectives.h"
#include "scenario/results/results.h"
#include "test_util.h"
#include "workload/trace.h"

namespace rocelab {
namespace {

struct Ran {
  ExperimentSpec spec;
  std::unique_ptr<Experiment> exp;
};

Ran run_yaml(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  ScenarioConfig c = load_scenario_text(yaml, "collective-test.yaml", sets);
  Ran r;
  r.spec = build_experiment(c);
  r.exp = std::make_unique<Experiment>(r.spec);
  test::run_checked(*r.exp, Time{Delta::from_ms(500).ps});
  return r;
}

// One leaf, N hosts, 1 us links: every ring step crosses one switch.
std::string one_leaf(uint32_t hosts, const std::string& workload,
                     const std::string& rate = "100Gbps") {
  return "topology: {type: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: " +
         std::to_string(hosts) + ", host_rate: " + rate + ", fabric_rate: " + rate +
         ", link_delay: 1us}\n"
         "cc: none\nfc: pfc\n"
         "transport: {ack_interval: 1000000}\n"  // one ACK per flow, at its end
         "workloads:\n  - " +
         workload + "\n";
}

TEST(CollectiveRun, RingAllReduceAloneTakesTheHandComputedTime) {
  // N = 4 ranks, S = 200,000 B: 2(N-1) = 6 steps of a 50,000 B block (50 frames of 1000 B).
  // A step is 50 frames at the NIC, the last one once more at the switch (store and
  // forward) and two 1 us links: 51 T + 2 us, T a 1000 B frame's wire time at 100 Gb/s;
  // the next step starts when the block is in. So 6 (51 T + 2 us) = 2(N-1)/N x S / rate
  // (frames' wire bytes) + 6 x (T + 2 us). The one ACK a rank sends per step may go out just
  // before its next step's first frame: up to one ACK frame's time per step on top. At
  // 100, 400 and 800 Gb/s.
  for (const int rate_gbps : {100, 400, 800}) {
    SCOPED_TRACE(rate_gbps);
    const Ran r = run_yaml(one_leaf(4, "{name: ar, type: collective, op: all_reduce, size: 200000}",
                                    std::to_string(rate_gbps) + "Gbps"));
    const WireModel& w = r.spec.network.wire;
    const int64_t frame_ps = w.serialize(w.mtu_wire_bytes(), gbps(rate_gbps)).ps;
    const int64_t ack_ps = w.serialize(w.control_wire_bytes(PacketType::kAck), gbps(rate_gbps)).ps;
    const int64_t step_ps = 51 * frame_ps + 2 * Delta::from_us(1).ps;
    const auto results = collective_results(*r.exp);
    ASSERT_EQ(results.size(), 1u);
    ASSERT_TRUE(results[0].complete);
    const int64_t cct_ps = results[0].cct().ps;
    EXPECT_GE(cct_ps, 6 * step_ps);
    EXPECT_LE(cct_ps, 6 * (step_ps + ack_ps));
    EXPECT_EQ(results[0].steps, 6u);
    // Alone, the ideal is that same critical path.
    EXPECT_EQ(results[0].ideal.ps, 6 * step_ps);
    EXPECT_NEAR(results[0].slowdown(), 1.0, 6.0 * ack_ps / (6 * step_ps));
    // NCCL's bandwidths: algbw = S / t, busbw = algbw x 2(N-1)/N.
    EXPECT_NEAR(results[0].algbw_GBps(), 200000.0 / (cct_ps * 1e-12) / 1e9, 1e-9);
    EXPECT_NEAR(results[0].busbw_GBps(), results[0].algbw_GBps() * 1.5, 1e-9);
  }
}

TEST(CollectiveRun, AllToAllDeliversItsHandCount) {
  // 4 ranks x 3 peers x 4000 / 4 B: 12 flows of 1000 B, all at t = 0, all delivered.
  const Ran r = run_yaml(one_leaf(4, "{name: a2a, type: collective, op: all_to_all, size: 4000}"));
  const RdmaTransport& tr = r.exp->transport();
  ASSERT_EQ(tr.flow_count(), 12u);
  EXPECT_EQ(tr.counters().payload_bytes_delivered, 12000u);
  for (const FlowRecord& f : tr.records()) {
    EXPECT_EQ(f.size_bytes, 1000u);
    EXPECT_EQ(f.start, Time::zero());
  }
  // Each NIC sends 3 single-frame flows back to back: the last is delivered after 3 T at
  // the NIC, T at the switch and two links.
  const WireModel& w = r.spec.network.wire;
  const int64_t frame_ps = w.serialize(w.mtu_wire_bytes(), gbps(100)).ps;
  const auto results = collective_results(*r.exp);
  EXPECT_GE(results[0].cct().ps, 4 * frame_ps + 2 * Delta::from_us(1).ps);
}

// Every collective, a Poisson background and jobs with iterations on a small rail fabric.
const char* kRail = R"(
seed: 3
topology: {type: rail_optimized, servers: 4, nics_per_server: 2, servers_per_group: 2,
           spines: 2, host_rate: 400Gbps, fabric_rate: 400Gbps, link_delay: 1us}
cc: dcqcn
fc: pfc
workloads:
  - {name: ar, type: collective, op: all_reduce, per_nic: true, size: 400KB, channels: 2, chunks: 2, iterations: 2, compute: 10us}
  - {name: a2a, type: collective, op: all_to_all, size: 160KB, placement: random, rank_count: 6}
  - {name: tree, type: collective, op: all_reduce, algorithm: double_binary_tree, ranks: h0..h6, size: 280KB, chunks: 2}
  - {name: hd, type: collective, op: all_reduce, algorithm: halving_doubling, ranks: h0..h7, size: 160KB, placement: spread, rank_count: 4}
  - {name: bc, type: collective, op: broadcast, ranks: [h1, h3, h5, h7], root: 1, size: 100KB, chunks: 4}
  - {name: pp, type: collective, op: pipeline, ranks: [h0, h2, h4, h6], size: 32KB, microbatches: 3, stage_compute: 2us}
  - {name: fsdp, type: collective, op: all_gather, ranks: [h1, h3, h5], size: 60KB, iterations: 2, compute: 5us,
     then: [{op: reduce_scatter, size: 120KB, channels: 2}]}
  - {name: bg, type: poisson, load: 0.2, stop: 50us}
)";

TEST(CollectiveRun, NoFlowStartsBeforeWhatItWaitsFor) {
  const Ran r = run_yaml(kRail);
  const RdmaTransport& tr = r.exp->transport();
  size_t waited = 0;
  for (uint32_t f = 0; f < tr.flow_count(); ++f) {
    Time ready = Time::zero();
    for (uint32_t a : r.exp->waited_for(f)) {
      ASSERT_NE(tr.record(FlowId(a)).delivered, Time::never());
      ready = std::max(ready, tr.record(FlowId(a)).delivered + r.exp->wait_delay(f));
      ++waited;
    }
    EXPECT_GE(tr.record(FlowId(f)).start, ready) << "flow " << f;
  }
  EXPECT_GT(waited, 500u);
  for (const CollectiveResult& c : collective_results(*r.exp)) EXPECT_TRUE(c.complete);
}

TEST(CollectiveRun, InvariantsHoldOnTheRailFabricUnderEveryScheme) {
  const std::vector<std::vector<std::string>> schemes = {
      {"lb=ecmp", "cc=dcqcn"},         {"lb=flb", "cc=rc"},
      {"lb=proteus", "cc=dcqcn"},      {"lb=lbodsn", "cc=dcqcn"},
      {"lb=conweave", "cc=dcqcn"},     {"lb=rps", "cc=dcqcn"},
      {"lb=drill", "cc=hpcc"},         {"lb=letflow", "cc=swift"},
      {"lb=conga", "cc=timely"},       {"lb=ecmp", "cc=pcn"},
      {"lb=ecmp", "cc=win", "fc=bfc"}, {"lb=ecmp", "cc=dcqcn", "fc=sfq"}};
  for (const auto& sets : schemes) {
    SCOPED_TRACE(sets[0] + " " + sets[1]);
    const Ran r = run_yaml(kRail, sets);  // every flow done, no drop, drained, no leak
    EXPECT_EQ(r.exp->network().counters().drops, 0u);
  }
}

TEST(CollectiveRun, SameSeedSameCollectivesCsv) {
  auto csv = [] {
    const Ran r = run_yaml(kRail, {"lb=drill"});
    const std::string path = testing::TempDir() + "/collectives_determinism.csv";
    write_collectives_csv(path, *r.exp, collective_results(*r.exp));
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = csv();
  EXPECT_EQ(a, csv());
  EXPECT_NE(a.find("ar,1,0,all_reduce,ring,8,400000,"), std::string::npos) << a;
}

TEST(CollectiveRun, DagTraceRoundTripsAndReplaysTheSameRun) {
  ScenarioConfig c = load_scenario_text(kRail, "collective-test.yaml");
  const ExperimentSpec spec = build_experiment(c);
  const std::string path = testing::TempDir() + "/round_trip_dag.csv";
  {
    std::ofstream out(path);
    write_flow_trace_csv(out, spec.flows);
  }
  const std::vector<FlowSpec> back = load_flow_trace_csv(path, "unused");
  ASSERT_EQ(back.size(), spec.flows.size());
  for (size_t i = 0; i < back.size(); ++i) {
    const FlowSpec &a = spec.flows[i], &b = back[i];
    EXPECT_TRUE(a.src_host == b.src_host && a.dst_host == b.dst_host &&
                a.size_bytes == b.size_bytes && a.start == b.start && a.tag == b.tag &&
                a.sport == b.sport && a.dport == b.dport && a.path == b.path &&
                a.after == b.after && a.after_delay == b.after_delay && a.behind == b.behind)
        << "flow " << i;
  }
  // Replayed as a trace workload, the run is the same flow for flow.
  Ran orig = run_yaml(kRail);
  std::string replay = kRail;
  replay = replay.substr(0, replay.find("workloads:")) +
           "workloads:\n  - {name: replay, type: trace, file: " + path + "}\n";
  Ran again = run_yaml(replay);
  ASSERT_EQ(orig.exp->transport().flow_count(), again.exp->transport().flow_count());
  for (uint32_t f = 0; f < orig.exp->transport().flow_count(); ++f) {
    EXPECT_EQ(orig.exp->transport().record(FlowId(f)).finish,
              again.exp->transport().record(FlowId(f)).finish)
        << "flow " << f;
  }
}

TEST(CollectiveRun, DagTraceKeepsPortsAndPinnedPaths) {
  std::vector<FlowSpec> flows = {test::flow(0, 1, 1000), test::flow(1, 0, 2000)};
  flows[0].sport = 7;
  flows[0].dport = 4791;
  flows[0].path = 3;
  flows[1].after = {0};
  flows[1].behind = 0;
  const std::string path = testing::TempDir() + "/pinned_dag.csv";
  {
    std::ofstream out(path);
    write_flow_trace_csv(out, flows);
  }
  const std::vector<FlowSpec> back = load_flow_trace_csv(path, "test");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].sport, 7);
  EXPECT_EQ(back[0].dport, 4791);
  EXPECT_EQ(back[0].path, 3u);
  EXPECT_FALSE(back[1].path.has_value());
  EXPECT_EQ(back[1].after, std::vector<uint32_t>{0});
  EXPECT_EQ(back[1].behind, 0u);
}

std::string trace_error(const std::string& text) {
  const std::string path = testing::TempDir() + "/bad_dag.csv";
  std::ofstream(path) << text;
  try {
    load_flow_trace_csv(path, "t");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

// A collective listed after other workloads: its dependencies and QP order stay inside it,
// and its source ports differ from an identical job's on the same hosts.
TEST(CollectiveRun, ALaterWorkloadsDependenciesStayItsOwn) {
  const std::string yaml =
      one_leaf(4,
               "{name: bg, type: flows, flows: [{src: h0, dst: h3, size: 1MB}]}\n"
               "  - {name: a, type: collective, size: 64KB, chunks: 2}\n"
               "  - {name: b, type: collective, size: 64KB, chunks: 2}");
  ScenarioConfig c = load_scenario_text(yaml, "later.yaml");
  const ExperimentSpec spec = build_experiment(c);
  ASSERT_EQ(spec.collectives.size(), 2u);
  for (const CollectiveSpec& col : spec.collectives)
    for (uint32_t f = col.first_flow; f < col.first_flow + col.flow_count; ++f) {
      for (uint32_t a : spec.flows[f].after) EXPECT_GE(a, col.first_flow) << f;
      if (spec.flows[f].behind) {
        EXPECT_GE(*spec.flows[f].behind, col.first_flow) << f;
      }
    }
  const uint32_t a0 = spec.collectives[0].first_flow, b0 = spec.collectives[1].first_flow;
  EXPECT_EQ(spec.flows[a0].src_host, spec.flows[b0].src_host);
  EXPECT_EQ(spec.flows[a0].dst_host, spec.flows[b0].dst_host);
  EXPECT_NE(spec.flows[a0].sport, spec.flows[b0].sport);
  // And it runs as fast as alone: nothing waits for the background flow.
  const Ran r = run_yaml(yaml);
  const auto results = collective_results(*r.exp);
  EXPECT_LT(results[0].slowdown(), 3.0);
}

TEST(CollectiveRun, BadDagTracesSayWhatIsWrong) {
  const std::string head = "id,src,dst,size_bytes,start_ns,after,behind\n";
  EXPECT_NE(trace_error(head + "1,0,1,1000,0,2,\n2,1,0,1000,0,1,\n").find("cycle: 1 (line 2)"),
            std::string::npos);
  EXPECT_NE(trace_error(head + "5,0,1,1000,0,5,\n").find("cycle"), std::string::npos);
  EXPECT_NE(trace_error(head + "1,0,1,1000,0,99,\n")
                .find("bad_dag.csv:2: after names flow 99, which the trace does not have"),
            std::string::npos);
  EXPECT_NE(trace_error(head + "1,0,1,1000,0,,7\n").find("behind names flow 7"), std::string::npos);
  EXPECT_NE(trace_error(head + "1,0,1,1000,0,,\n1,1,0,1000,0,,\n")
                .find(":3: id 1 is already used on line 2"),
            std::string::npos);
  EXPECT_NE(trace_error("src,dst,size_bytes,start_ns,after\n0,1,1000,0,\n").find("no column 'id'"),
            std::string::npos);
  EXPECT_NE(trace_error(head + "1,0,1,1000,0,x,\n").find("column 'after' is not a number"),
            std::string::npos);
}

TEST(CollectiveRun, BadCollectiveKeysAreNamed) {
  auto error = [](const std::string& workload, const std::string& topo = "") {
    try {
      ScenarioConfig c = load_scenario_text(
          topo.empty() ? one_leaf(6, workload) : topo + "workloads:\n  - " + workload + "\n",
          "bad.yaml");
      build_experiment(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("{type: collective, op: all_reduce, algorithm: halving_doubling}")
                .find("workloads.0.algorithm: halving_doubling needs a power-of-two rank count"),
            std::string::npos);
  EXPECT_NE(error("{type: collective, op: all_to_all, algorithm: ring}")
                .find("workloads.0.algorithm: ring does not run all_to_all"),
            std::string::npos);
  EXPECT_NE(error("{type: collective, rank_count: 9}").find("workloads.0.rank_count"),
            std::string::npos);
  EXPECT_NE(error("{type: collective, per_nic: true}").find("workloads.0.per_nic"),
            std::string::npos);
  EXPECT_NE(error("{type: collective, op: broadcast, root: 6}").find("workloads.0.root"),
            std::string::npos);
  EXPECT_NE(error("{type: collective, sise: 1MB}").find("sise"), std::string::npos);
  EXPECT_NE(error("{type: collective, then: [{op: all_to_all, algorithm: ring}]}")
                .find("workloads.0.then.0.algorithm: ring does not run all_to_all"),
            std::string::npos);
}

TEST(CollectiveRun, RailTopologyWiresNicIOfAGroupToRailLeafI) {
  RailParams p;
  p.servers = 4;
  p.nics_per_server = 2;
  p.servers_per_group = 2;
  p.spines = 3;
  const TopologySpec t = rail_optimized(p);
  // 8 NICs, 2 groups x 2 rails = 4 leaves, 3 spines; 8 host links + 4 x 3 uplinks.
  EXPECT_EQ(t.hosts().size(), 8u);
  EXPECT_EQ(t.switches().size(), 7u);
  EXPECT_EQ(t.links.size(), 8u + 12u);
  const uint32_t h5 = t.find("h5");  // server 2, NIC 1: group 1's rail-1 leaf
  EXPECT_EQ(t.nodes[h5].server, 2u);
  EXPECT_EQ(t.nodes[h5].nic, 1u);
  bool linked = false;
  for (const LinkSpec& l : t.links)
    if (l.a == h5) linked = t.nodes[l.b].name == "rail1_g1";
  EXPECT_TRUE(linked);
  p.rail_layout = false;  // ToR: both NICs of server 2 on tor1
  const TopologySpec tor = rail_optimized(p);
  for (const LinkSpec& l : tor.links)
    if (l.a == tor.find("h4") || l.a == tor.find("h5")) {
      EXPECT_EQ(tor.nodes[l.b].name, "tor1");
    }
}

// A connection of two QPs (NCCL_IB_QPS_PER_CONNECTION = 2), messages whole or split: the
// all-reduce completes, every byte delivered once, on twice the QPs. A count of 0, or QPs
// per connection under qp_per_transfer, is refused by its key.
TEST(CollectiveRun, TwoQpsPerConnectionCarryTheRing) {
  const std::string ar =
      "{name: ar, type: collective, op: all_reduce, size: 400000, chunks: 4, iterations: 2, "
      "qps_per_connection: 2";
  for (const char* split : {"false", "true"}) {
    SCOPED_TRACE(split);
    const Ran r = run_yaml(one_leaf(4, ar + ", split_data_on_qps: " + split + "}"));
    const RdmaTransport& tr = r.exp->transport();
    EXPECT_EQ(tr.qp_count(), 4u * 2) << "4 connections of the ring, 2 QPs each";
    uint64_t bytes = 0;
    for (const FlowRecord& f : tr.records()) bytes += f.size_bytes;
    EXPECT_EQ(tr.counters().payload_bytes_delivered, bytes);
    EXPECT_EQ(bytes, 2u * 2 * 3 * 400000) << "2 iterations x 2(N-1)/N x S x N";
  }
  for (const auto& [bad, key] : std::vector<std::pair<std::string, std::string>>{
           {"qps_per_connection: 0}", "qps_per_connection"},
           {"qps_per_connection: 2, qp_per_transfer: true}", "qps_per_connection: needs"}}) {
    try {
      run_yaml(one_leaf(4, "{name: ar, type: collective, op: all_reduce, size: 4000, " + bad));
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rocelab
