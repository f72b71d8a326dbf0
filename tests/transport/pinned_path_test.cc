// Pinning a flow to a path (the `flows` workload's `path` key): its data packets are source
// routed from the host and pass every switch load balancer by.
#include <gtest/gtest.h>

#include <string>

#include "scenario/build/scenario_build.h"
#include "scenario/config/yaml_params.h"
#include "test_util.h"
#include "transport/hermes.h"

namespace rocelab {
namespace {

constexpr uint64_t kPacketsPerFlow = 100;  // 100 KB flows of 1000 B packets

// Two leaves, two spines, two hosts per leaf: h0, h1 under leaf0, h2, h3 under leaf1. Two
// flows h0 -> h2, each pinned to `paths[i]` unless it is empty.
std::string two_flows(const std::string& path0, const std::string& path1,
                      const std::string& extra = "") {
  auto entry = [](const std::string& path) {
    return "{src: h0, dst: h2, size: 100KB" + (path.empty() ? "" : ", path: " + path) + "}";
  };
  return R"(
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
cc: none
)" + extra +
         R"(
workloads:
  - {name: pinned, type: flows, flows: [)" +
         entry(path0) + ", " + entry(path1) + "]}\n";
}

struct SpinePackets {
  uint64_t spine0 = 0, spine1 = 0;  // data packets each spine sent to leaf1
};

SpinePackets run(const std::string& yaml) {
  ScenarioConfig c = load_scenario_text(yaml, "pinned.yaml");
  Experiment exp(build_experiment(c));
  test::run_checked(exp);
  EXPECT_EQ(exp.transport().counters().retransmitted_bytes, 0u);
  const TopologySpec& t = exp.network().topology();
  const Routing& r = exp.network().routing();
  const uint32_t leaf1 = t.find("leaf1");
  auto sent_to_leaf1 = [&](const char* spine) {
    const uint32_t s = t.find(spine);
    return exp.network().node(NodeId(s)).port(r.next_hops(s, leaf1)[0]).counters().tx_data_packets;
  };
  return {sent_to_leaf1("spine0"), sent_to_leaf1("spine1")};
}

// Path p of a 2-spine leaf-spine crosses spine p: every pinning puts each flow's packets
// on its own spine, whatever the hash of its source port would have chosen.
TEST(PinnedPath, EachFlowCrossesTheSpineItsPathNames) {
  for (const auto& [p0, p1] : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, 0}, {1, 1}}) {
    SCOPED_TRACE("paths " + std::to_string(p0) + ", " + std::to_string(p1));
    const SpinePackets s = run(two_flows(std::to_string(p0), std::to_string(p1)));
    EXPECT_EQ(s.spine0, kPacketsPerFlow * ((p0 == 0) + (p1 == 0)));
    EXPECT_EQ(s.spine1, kPacketsPerFlow * ((p0 == 1) + (p1 == 1)));
  }
}

// Packet spraying would spread each flow over both spines; pinned packets never reach it.
// The host path policies keep the pin too (Hermes places the flow on it and never moves it).
TEST(PinnedPath, PinnedPacketsPassTheLoadBalancerAndThePathPolicyBy) {
  const SpinePackets sprayed = run(two_flows("", "", "lb: rps\n"));
  EXPECT_GT(sprayed.spine0, 0u);
  EXPECT_GT(sprayed.spine1, 0u);
  for (const char* extra :
       {"lb: rps\n", "lb: drill\n", "lb: conga\n", "lb: letflow\n", "lb: flb\n", "lb: conweave\n",
        "transport: {path_policy: spray}\n", "transport: {path_policy: hermes}\n",
        "transport: {path_policy: mprdma, recovery: bitmap}\n"}) {
    SCOPED_TRACE(extra);
    const SpinePackets s = run(two_flows("1", "1", extra));
    EXPECT_EQ(s.spine0, 0u);
    EXPECT_EQ(s.spine1, 2 * kPacketsPerFlow);
  }
}

// Without `path` nothing changes: -1 is the default, and the flows go where ECMP hashes
// them (the same as with no key at all).
TEST(PinnedPath, NoPathIsTheDefaultAndLeavesRoutingAlone) {
  const SpinePackets unpinned = run(two_flows("", ""));
  const SpinePackets explicit_default = run(two_flows("-1", "-1"));
  EXPECT_EQ(unpinned.spine0, explicit_default.spine0);
  EXPECT_EQ(unpinned.spine1, explicit_default.spine1);
  EXPECT_EQ(unpinned.spine0 + unpinned.spine1, 2 * kPacketsPerFlow);
  ScenarioConfig c = load_scenario_text(two_flows("", "1"), "pinned.yaml");
  const ExperimentSpec spec = build_experiment(c);
  ASSERT_EQ(spec.flows.size(), 2u);
  EXPECT_FALSE(spec.flows[0].path.has_value());
  EXPECT_EQ(spec.flows[1].path, 1u);
}

// Hermes keeps a pinned flow on its pin, even on a path it would leave (spine0's link to
// leaf1 at a tenth of the rate), so what it senses through the flow is that path's.
TEST(PinnedPath, HermesPlacesAPinnedFlowOnItsPathAndNeverMovesIt) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 4);
  ASSERT_EQ(spec.topology.set_link_rate("spine0", "leaf1", gbps(10)), 1);
  spec.cc = "dcqcn";
  spec.transport.path_policy = "hermes";
  for (uint32_t i = 0; i < 4; ++i) {
    spec.flows.push_back(test::flow(i, 4 + i, 1000 * 1000));
    spec.flows.back().path = 0;  // spine0
  }
  Experiment exp(spec);
  const auto* hermes = dynamic_cast<const HermesPath*>(&exp.transport().path_policy());
  ASSERT_NE(hermes, nullptr);
  int placed = 0;
  for (int64_t t = 10'000'000; t <= Delta::from_ms(40).ps; t += 10'000'000) {
    exp.run(Time{t});
    for (uint32_t f = 0; f < 4; ++f) {
      const uint32_t path = hermes->flow_path(FlowId(f));
      if (path == HermesPath::kNoPath) continue;
      ++placed;
      EXPECT_EQ(path, 0u) << "flow " << f << " at " << t << " ps";
    }
    if (exp.transport().counters().flows_finished == 4) break;
  }
  EXPECT_GT(placed, 0);
  EXPECT_EQ(exp.transport().counters().flows_finished, 4u);
  EXPECT_EQ(hermes->counters().reroutes_congestion + hermes->counters().reroutes_failure, 0u);
}

std::string build_error(const std::string& yaml) {
  try {
    ScenarioConfig c = load_scenario_text(yaml, "pinned.yaml");
    build_experiment(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PinnedPath, APathTheRoutingLacksIsAnErrorNamingTheKey) {
  std::string err = build_error(two_flows("0", "2"));
  EXPECT_NE(err.find("workloads.0.flows.1.path: 2 is not a path from leaf0 to leaf1, which has 2 "
                     "(0 .. 1)"),
            std::string::npos)
      << err;
  err = build_error(two_flows("-2", ""));
  EXPECT_NE(err.find("workloads.0.flows.0.path"), std::string::npos) << err;
  // h0 and h1 share leaf0: there is no path to choose.
  err = build_error(R"(
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workloads:
  - {name: local, type: flows, flows: [{src: h0, dst: h1, size: 1KB, path: 0}]}
)");
  EXPECT_NE(err.find("workloads.0.flows.0.path: h0 and h1 hang off the same edge switch (leaf0)"),
            std::string::npos)
      << err;
}

// The transport checks a pin given in code, as the scenario reader does.
TEST(PinnedPath, TheTransportRefusesAPathTheRoutingLacks) {
  ExperimentSpec spec;
  spec.topology = test::small_leaf_spine(2, 2, 2);
  spec.cc = "none";
  FlowSpec f = test::flow(0, 2, 1000);
  f.path = 2;
  spec.flows = {f};
  EXPECT_THROW(Experiment{spec}, std::invalid_argument);
  spec.flows[0] = test::flow(0, 1, 1000);
  spec.flows[0].path = 0;
  EXPECT_THROW(Experiment{spec}, std::invalid_argument);
  spec.flows[0] = test::flow(0, 2, 1000);
  spec.flows[0].path = 1;
  Experiment ok(spec);
  EXPECT_EQ(ok.transport().pinned_path(FlowId(0)), 1u);
}

}  // namespace
}  // namespace rocelab
