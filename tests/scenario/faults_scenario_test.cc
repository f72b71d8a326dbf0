// Faults from scenario files: the checks on `events:` (each error names its key), a lossy
// link's losses and their recovery, the invariants that tell a fault's loss from the
// model's, and runs without events keeping their summary.
#include <gtest/gtest.h>

#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "scenario/run/runner.h"

namespace rocelab {
namespace {

const std::string kBase =
    "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 8}\n"
    "cc: dcqcn\n"
    "workloads: [{name: bg, type: poisson, cdf: websearch, load: 0.6, stop: 1ms}]\n"
    "stop: {time: 100ms}\n";

// The message building `events_yaml` on kBase fails with ("" when it builds).
std::string build_error(const std::string& events_yaml) {
  try {
    ScenarioConfig c = load_scenario_text(kBase + events_yaml, "f.yaml");
    build_experiment(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& events_yaml, const std::vector<std::string>& parts) {
  const std::string msg = build_error(events_yaml);
  ASSERT_FALSE(msg.empty()) << "accepted: " << events_yaml;
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
}

TEST(FaultEvents, BadSpecificationsNameTheirKey) {
  EXPECT_EQ(build_error("events: [{type: link_down, a: leaf0, b: spine1, at: 10us}]\n"), "");
  expect_error("events: [{type: link_down, a: leaf0, b: spine7, at: 10us}]\n",
               {"f.yaml", "events.0.b", "no node named 'spine7'"});
  expect_error("events: [{type: link_down, a: leaf0, b: leaf1, at: 10us}]\n",
               {"events.0", "no link between 'leaf0' and 'leaf1'"});
  expect_error("events: [{type: link_down, a: leaf0, b: spine1, at: 200ms}]\n",
               {"events.0.at", "not before the run's end", "100ms"});
  expect_error("events: [{type: link_rate, a: leaf0, b: spine1, at: 10us, rate: 200Gbps}]\n",
               {"events.0.rate", "above the link's", "100Gbps"});
  expect_error("events: [{type: link_rate, a: leaf0, b: spine1, at: 10us}]\n",
               {"events.0.rate", "link_rate needs a rate"});
  expect_error("events: [{type: link_loss, a: leaf0, b: spine1, at: 10us, loss_rate: 2}]\n",
               {"events.0.loss_rate"});
  expect_error("events: [{type: link_down, a: leaf0, b: spine1, at: 20us, until: 10us}]\n",
               {"events.0.until", "after `at`"});
  expect_error("events: [{type: nic_stall, host: leaf0, at: 10us, until: 20us}]\n",
               {"events.0.host", "is a switch"});
  expect_error("events: [{type: nic_stall, host: h1, at: 10us}]\n",
               {"events.0.until", "needs an end"});
  expect_error("events: [{type: link_down, a: leaf0, b: spine1, att: 10us}]\n",
               {"events.0", "att"});
  expect_error("events: [{type: link_flap, a: leaf0, b: spine1, at: 10us}]\n",
               {"events.0.type", "link_down"});
}

nlohmann::json run_text(const std::string& text) {
  ScenarioConfig c = load_scenario_text(text, "f.yaml");
  RunOptions o;
  o.quiet = true;
  return run_scenario(c, o);
}

// A link that loses 1 frame in 100 for the whole run, under PFC: the losses are the
// fault's, every flow finishes, the run's invariants hold, and the same seed loses the
// same frames.
TEST(FaultEvents, ALossyLinksLossesAreTheFaultsAndTheTransportsRecoverThem) {
  const nlohmann::json s =
      run_text(kBase + "events: [{type: link_loss, a: leaf0, b: spine0, loss_rate: 0.01}]\n");
  EXPECT_EQ(s["invariants"], "ok");
  EXPECT_EQ(s["drops"], 0);
  EXPECT_EQ(s["flows_completed"], s["flows_total"]);
  const nlohmann::json& f = s["faults"];
  const uint64_t lost = f["lost"]["bit_error"]["data_packets"];
  EXPECT_GT(lost, 0u);
  EXPECT_EQ(f["lost"]["link_down"]["data_packets"], 0);
  EXPECT_GE(f["crossed"]["flows"].get<uint64_t>(), f["lost_flows"]["flows"].get<uint64_t>());
  EXPECT_GT(s["retransmitted_bytes"].get<uint64_t>(), 0u);
  // Same seed, same losses.
  const nlohmann::json again =
      run_text(kBase + "events: [{type: link_loss, a: leaf0, b: spine0, loss_rate: 0.01}]\n");
  EXPECT_EQ(again["faults"]["lost"], f["lost"]);
  EXPECT_EQ(again["afct_us"], s["afct_us"]);
}

// A run without events has no `faults` (its summary is what it was before faults existed);
// with the deadlock detector asked for, it has, and finds nothing on a leaf-spine.
TEST(FaultEvents, RunsWithoutEventsKeepTheirSummary) {
  const nlohmann::json plain = run_text(kBase);
  EXPECT_FALSE(plain.contains("faults"));
  const nlohmann::json detect = run_text(kBase + "faults: {deadlock: {detect: on}}\n");
  ASSERT_TRUE(detect.contains("faults"));
  EXPECT_FALSE(detect["faults"]["deadlock"]["detected"].get<bool>());
  EXPECT_EQ(detect["afct_us"], plain["afct_us"]);
  EXPECT_EQ(detect["pfc_pause_frames"], plain["pfc_pause_frames"]);
}

// The invariant still fails on a buffer drop under PFC when faults lost packets too: the
// two are counted apart.
TEST(FaultEvents, ADropUnderPfcStillFailsBesideAFaultsLosses) {
  ScenarioConfig c = load_scenario_text(
      kBase + "events: [{type: link_down, a: leaf0, b: spine0, at: 300us, until: 600us}]\n",
      "f.yaml");
  Experiment exp(build_experiment(c));
  exp.run();
  exp.drain();
  const NetCounters& nc = exp.network().counters();
  EXPECT_GT(nc.fault_losses[static_cast<size_t>(FaultLoss::kLinkDown)].data_packets, 0u);
  EXPECT_EQ(exp.check_invariants(), "");
  exp.network().context().counters().drops = 1;  // as an MMU drop would
  EXPECT_NE(exp.check_invariants().find("1 packets dropped with PFC on"), std::string::npos)
      << exp.check_invariants();
}

}  // namespace
}  // namespace rocelab
