// The ConWeave-ns3 pause style's own losses (fc.pause_style: per_packet): a 5 us PAUSE per
// packet over the threshold, no refresh, so a long pause downstream lets the sender's pause
// run out and the headroom overflow. Those losses are counted apart from drops and keep
// the run's invariants; a drop that no lapse explains still breaks them.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "scenario/build/experiment.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"
#include "test_util.h"

namespace rocelab {
namespace {

// A 100 MB victim across the spines and twenty 7-to-1 bursts into the victim's leaf, under
// the conweave-ns3 preset (its pause style, its headroom after a full pool).
const std::string kBurst =
    "preset: conweave-ns3\n"
    "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 8, link_delay: 1us}\n"
    "lb: letflow\ncc: dcqcn\n"
    "workloads:\n"
    "  - {name: victim, type: flows, flows: [{src: h0, dst: h8, size: 100MB, start: 0}]}\n"
    "  - {name: burst, type: incast, senders: h1..h7, receiver: h9, total_size: 7MB,\n"
    "     start: 20us, interval: 200us, repeats: 20}\n"
    "stop: {time: 200ms}\n";

struct Outcome {
  uint64_t drops = 0, lapse_drops = 0, lapse_at_edge = 0, egress_threshold_drops = 0;
  std::string invariants;
  bool all_finished = false;
};

// The preset's egress threshold off unless asked: the lapse's own losses are then alone.
Outcome run_burst(std::vector<std::string> sets, bool egress_threshold = false) {
  if (!egress_threshold) sets.push_back("fc.egress_alpha=0");
  ScenarioConfig c = load_scenario_text(kBurst, "burst.yaml", sets);
  Experiment exp(build_experiment(c));
  Outcome o;
  o.all_finished = exp.run(Time{Delta::from_ms(200).ps}).all_finished;
  exp.drain();
  const NetCounters& nc = exp.network().counters();
  o.drops = nc.drops;
  o.lapse_drops = nc.lapse_drops.total();
  o.lapse_at_edge = nc.lapse_drops.at(Layer::kEdge);
  o.egress_threshold_drops = nc.egress_threshold_drops.total();
  o.invariants = exp.check_invariants();
  return o;
}

TEST(PfcLapse, TheForksLossesAreCountedApartAndKeepTheInvariants) {
  const Outcome fork = run_burst({});
  EXPECT_TRUE(fork.all_finished);
  EXPECT_EQ(fork.drops, 0u);
  EXPECT_GT(fork.lapse_drops, 1000u) << "the case overflows headroom after its pauses lapse";
  EXPECT_EQ(fork.lapse_at_edge, fork.lapse_drops) << "the bursts' senders overflow their ToR";
  EXPECT_EQ(fork.invariants, "");

  // 802.1Qbb: the PAUSE is refreshed while XOFF holds, and nothing is lost.
  const Outcome standard = run_burst({"fc.pause_style=standard"});
  EXPECT_TRUE(standard.all_finished);
  EXPECT_EQ(standard.drops, 0u);
  EXPECT_EQ(standard.lapse_drops, 0u);
  EXPECT_EQ(standard.invariants, "");
}

// With the preset's egress threshold (ConWeave ns-3 checks each packet at its egress queue
// first): the queues the lapses let grow are cut there, and those losses are counted apart
// too; the run keeps its invariants.
TEST(PfcLapse, TheEgressThresholdsLossesAreCountedApart) {
  const Outcome fork = run_burst({}, true);
  EXPECT_TRUE(fork.all_finished);
  EXPECT_EQ(fork.drops, 0u);
  EXPECT_GT(fork.egress_threshold_drops, 1000u);
  EXPECT_EQ(fork.invariants, "");
}

// A headroom of one frame, filled as soon as XOFF is crossed (not after the pool): what
// overflows it now was in flight before any pause could lapse, and is a drop.
TEST(PfcLapse, ADropNoLapseExplainsStillBreaksTheInvariant) {
  const Outcome o = run_burst({"fc.headroom=1KB", "fc.headroom_when_pool_full=false"});
  EXPECT_GT(o.drops, 1000u);
  EXPECT_NE(o.invariants.find("packets dropped with PFC on"), std::string::npos) << o.invariants;
}

// The run exits 0 and says what the fork's model lost, in the footer and the notes: with
// the preset as it is, at the egress threshold; with that off, to the lapsed PAUSEs.
TEST(PfcLapse, TheRunSaysWhatThePresetsModelLost) {
  const auto d = test::temp_dir("lapse");
  std::ofstream(d / "burst.yaml") << kBurst;
  auto run = [&](const std::string& sets, std::string* out) {
    EXPECT_EQ(test::run_cli("run " + (d / "burst.yaml").string() + " -q " + sets + " --out " +
                                (d / "o").string(),
                            out),
              0)
        << *out;
    return nlohmann::json::parse(test::slurp((d / "o" / "summary.json").string()));
  };
  std::string out;
  nlohmann::json s = run("", &out);
  EXPECT_NE(out.find("to the egress threshold: notes"), std::string::npos) << out;
  EXPECT_NE(out.find("fc.egress_alpha: 0 turns the check off"), std::string::npos) << out;
  EXPECT_EQ(s["drops"], 0);
  EXPECT_GT(s["egress_threshold_drops"].get<uint64_t>(), 0u);

  s = run("--set fc.egress_alpha=0", &out);
  EXPECT_NE(out.find("lost to lapsed PAUSEs"), std::string::npos) << out;
  EXPECT_NE(out.find("fc.pause_style: standard gives 802.1Qbb"), std::string::npos) << out;
  EXPECT_EQ(s["drops"], 0);
  EXPECT_FALSE(s.contains("egress_threshold_drops"));
  EXPECT_GT(s["pfc_lapse_drops"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["pfc_lapse_drops_by_layer"]["edge"], s["pfc_lapse_drops"]);
  ASSERT_EQ(s["notes"].size(), 1u) << s["notes"];
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace rocelab
