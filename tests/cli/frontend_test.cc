// The experiment front end: strict scenario files, resolved configuration round trip,
// compare, presets, ns-3 import, and the command's exit codes.
#include <gtest/gtest.h>

#include <chrono>

#include <unistd.h>

#include <fmt/format.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "cli_util.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/presets.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/topology_types.h"
#include "scenario/config/workload_types.h"
#include "scenario/config/yaml_params.h"
#include "scenario/run/runner.h"
#include "sim/units.h"

namespace rocelab {
namespace {

namespace fs = std::filesystem;
const std::string kTests = std::string(ROCELAB_SOURCE_DIR) + "/tests/scenarios";

using test::run_cli;
using test::slurp;
using test::temp_dir;

TEST(Units, ParseAndFormatExactly) {
  std::string why;
  EXPECT_EQ(parse_bytes("12MB", &why), 12000000);
  EXPECT_EQ(parse_bytes("256KiB", &why), 262144);
  EXPECT_EQ(parse_bytes("1.5KB", &why), 1500);
  EXPECT_EQ(parse_bytes("1500", &why), 1500);
  EXPECT_FALSE(parse_bytes("1.5B", &why));
  EXPECT_FALSE(parse_bytes("-1KB", &why));
  EXPECT_EQ(parse_rate("100Gbps", &why), gbps(100));
  EXPECT_EQ(parse_rate("40Gb/s", &why), gbps(40));
  EXPECT_EQ(parse_rate("2.5Gbps", &why), mbps(2500));
  EXPECT_EQ(parse_rate("25e9", &why), gbps(25));
  EXPECT_EQ(parse_rate("0Gbps", &why), 0);  // ranges are the reader's business
  EXPECT_EQ(parse_duration("1us", &why)->ps, 1000000);
  EXPECT_EQ(parse_duration("2.5ms", &why)->ps, 2500000000);
  EXPECT_EQ(parse_duration("0", &why)->ps, 0);
  EXPECT_EQ(parse_duration("0.0001ns", &why)->ps, 0);  // rounds to the picosecond
  // Exact at any length of decimals (the ns-3 files' start times go through here too).
  EXPECT_EQ(parse_duration("1.00000000000000000000000000000000000000051ps", &why)->ps, 1);
  EXPECT_FALSE(parse_bytes("1e-40B", &why));  // a fraction of a byte, however small
  EXPECT_NE(why.find("not a whole number"), std::string::npos) << why;
  EXPECT_FALSE(parse_duration("5", &why));
  EXPECT_NE(why.find("with a unit"), std::string::npos);
  EXPECT_DOUBLE_EQ(*parse_real("1/8", &why), 0.125);
  EXPECT_EQ(format_bytes(12000000), "12MB");
  EXPECT_EQ(format_bytes(262144), "256KiB");
  EXPECT_EQ(format_bytes(1082), "1082B");
  EXPECT_EQ(format_rate(gbps(100)), "100Gbps");
  EXPECT_EQ(format_duration(Delta::from_us(55)), "55us");
  EXPECT_EQ(format_duration(Delta{1500}), "1500ps");
  for (double x : {0.125, 1.0 / 256, 0.1, 1e-7}) EXPECT_EQ(*parse_real(format_real(x), &why), x);
}

// Decimals no finer than the factor take a path without strings; finer ones round half up
// on the digit path. Both against exact integer arithmetic, on random decimals like a flow
// file's start times, and across the limit.
TEST(Units, ScaledDecimalsAreExactOnBothPaths) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t whole = rng() % 100;
    const int decimals = static_cast<int>(rng() % 16);
    uint64_t frac = 0, pow10 = 1;
    for (int d = 0; d < decimals; ++d, pow10 *= 10) frac = frac * 10 + rng() % 10;
    const int64_t factor = i % 2 ? 1000000000000 : 1000;  // ps per second, or per ns
    const std::string text =
        decimals ? fmt::format("{}.{:0{}}", whole, frac, decimals) : std::to_string(whole);
    // whole.frac x factor = (whole x pow10 + frac) x factor / pow10, rounded half up.
    const unsigned __int128 num =
        (static_cast<unsigned __int128>(whole) * pow10 + frac) * static_cast<uint64_t>(factor);
    const auto want = static_cast<int64_t>((num + pow10 / 2) / pow10);
    UnitError error;
    const auto got = parse_scaled(text, factor, UnitRules{}, &error);
    ASSERT_TRUE(got) << text;
    EXPECT_EQ(*got, want) << text << " x " << factor;
    const bool exact = num % pow10 == 0;
    error = UnitError::kNone;
    EXPECT_EQ(parse_scaled(text, factor, UnitRules{.whole = true}, &error).has_value(), exact)
        << text;
    if (!exact) {
      EXPECT_EQ(error, UnitError::kFraction) << text;
    }
  }
  UnitError error = UnitError::kNone;
  // 19 and 20 digits (a mantissa that would wrap 64 bits), exponents, and max exactly met.
  const int64_t int64_max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(parse_scaled("9223372036.854775807", 1000000000, UnitRules{.max = int64_max}, &error),
            int64_max);
  EXPECT_FALSE(
      parse_scaled("9223372036.854775807", 1000000000, UnitRules{.max = int64_max - 1}, &error));
  EXPECT_EQ(error, UnitError::kTooLarge);
  EXPECT_FALSE(parse_scaled("18446744073709551617", 1, UnitRules{.max = int64_max}, &error));
  EXPECT_EQ(error, UnitError::kTooLarge);
  EXPECT_EQ(parse_scaled("1.5e3", 1000, UnitRules{}, &error), 1500000);
  EXPECT_EQ(parse_scaled("2.5e-3", 1000, UnitRules{}, &error), 3);  // 2.5 rounds half up
  EXPECT_FALSE(parse_scaled("2.5e-3", 1000, UnitRules{.whole = true}, &error));
  EXPECT_EQ(error, UnitError::kFraction);
  EXPECT_EQ(parse_scaled("9.22", 1000, UnitRules{.max = 9220}, &error), 9220);
  EXPECT_FALSE(parse_scaled("9.221", 1000, UnitRules{.max = 9220}, &error));
  EXPECT_EQ(error, UnitError::kTooLarge);
  EXPECT_FALSE(parse_scaled("9999999999999999999", 1000000000000, UnitRules{}, &error));
  EXPECT_EQ(error, UnitError::kTooLarge);
}

// Every file of tests/scenarios/bad fails validation with a message that names the file
// and contains each fragment of its first-line "# expect: a; b" comment.
TEST(BadScenarios, EachGivesAClearErrorNamingTheKey) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kTests + "/bad")) {
    const std::string path = entry.path().string();
    const std::string name = entry.path().filename().string();
    std::string first_line;
    std::getline(std::ifstream(path) >> std::ws, first_line);
    std::vector<std::string> expects;
    if (first_line.rfind("# expect: ", 0) == 0) {
      std::stringstream ss(first_line.substr(10));
      for (std::string part; std::getline(ss, part, ';');)
        expects.push_back(part.substr(part.find_first_not_of(' ')));
    }
    ++files;
    try {
      ScenarioConfig c = load_scenario(path, {});
      build_experiment(c);
      ADD_FAILURE() << name << " was accepted";
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
      for (const std::string& x : expects)
        EXPECT_NE(msg.find(x), std::string::npos) << name << ": '" << x << "' not in: " << msg;
    }
  }
  EXPECT_GE(files, 25);
}

// BFC §4.1: 100-to-1 incasts of 20 MB at random hosts carrying 5% of the hosts' capacity.
// 128 hosts x 100 Gb/s x 0.05 / 160 Mb = 4,000 incasts per second: 400 expected in 100 ms.
TEST(Scenario, RandomIncastsAtAShareOfTheHostsCapacity) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 8, spines: 8, hosts_per_leaf: 16}
workloads:
  - {name: incast, type: random_incast, fan_in: 100, total_size: 20MB, load: 0.05, stop: 100ms}
)",
                                        "incast.yaml");
  const ExperimentSpec spec = build_experiment(c);
  std::map<int64_t, std::vector<FlowSpec>> events;
  for (const FlowSpec& f : spec.flows) events[f.start.ps].push_back(f);
  EXPECT_GT(events.size(), 320u) << "400 expected; 4 standard deviations are 80";
  EXPECT_LT(events.size(), 480u);
  std::set<uint32_t> receivers;
  for (const auto& [t, flows] : events) {
    ASSERT_EQ(flows.size(), 100u);
    std::set<uint32_t> senders;
    uint64_t bytes = 0;
    for (const FlowSpec& f : flows) {
      EXPECT_EQ(f.dst_host, flows[0].dst_host) << "one receiver per incast";
      EXPECT_NE(f.src_host, f.dst_host);
      senders.insert(f.src_host);
      bytes += f.size_bytes;
    }
    EXPECT_EQ(senders.size(), 100u) << "distinct senders";
    EXPECT_EQ(bytes, 20'000'000u);
    receivers.insert(flows[0].dst_host);
  }
  EXPECT_GT(receivers.size(), 100u) << "receivers drawn over all 128 hosts";
}

// BFC Fig. 8: an incast every 500 us, 800 flows over the 63 other hosts of T2.
TEST(Scenario, PeriodicRandomIncastSpreadsAFanInAboveTheHostCount) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 4, spines: 8, hosts_per_leaf: 16}
workloads:
  - {name: incast, type: random_incast, fan_in: 800, total_size: 20MB, interval: 500us,
     start: 100us, stop: 2100us}
)",
                                        "fig8.yaml");
  const ExperimentSpec spec = build_experiment(c);
  std::map<int64_t, std::vector<FlowSpec>> events;
  for (const FlowSpec& f : spec.flows) events[f.start.ps].push_back(f);
  std::vector<int64_t> starts;
  for (const auto& [t, flows] : events) starts.push_back(t);
  EXPECT_EQ(starts, (std::vector<int64_t>{100'000'000, 600'000'000, 1'100'000'000, 1'600'000'000}));
  for (const auto& [t, flows] : events) {
    ASSERT_EQ(flows.size(), 800u);
    std::map<uint32_t, int> per_sender;
    uint64_t bytes = 0;
    for (const FlowSpec& f : flows) {
      EXPECT_EQ(f.dst_host, flows[0].dst_host);
      EXPECT_NE(f.src_host, f.dst_host);
      ++per_sender[f.src_host];
      bytes += f.size_bytes;
    }
    EXPECT_EQ(per_sender.size(), 63u) << "every other host sends";
    for (const auto& [h, n] : per_sender) EXPECT_TRUE(n == 12 || n == 13) << "800 / 63 each";
    EXPECT_EQ(bytes, 20'000'000u);
  }
}

// A burst with repeats: the burst's flows again every interval (Proteus Figs. 2 and 4).
TEST(Scenario, BurstRepeatsEveryInterval) {
  auto burst_flows = [](const std::string& extra) {
    ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
workloads:
  - {name: b, type: burst, senders: h4..h7, receiver: h0, flows_per_sender: 2,
     flow_size: 200KB, start: 1ms)" + extra + "}\n",
                                          "burst.yaml");
    return build_experiment(c).flows;
  };
  const std::vector<FlowSpec> once = burst_flows("");
  const std::vector<FlowSpec> thrice = burst_flows(", repeats: 3, interval: 150us");
  ASSERT_EQ(once.size(), 8u);
  ASSERT_EQ(thrice.size(), 3 * once.size());
  for (size_t i = 0; i < thrice.size(); ++i) {
    const FlowSpec& f = thrice[i];
    const FlowSpec& first = once[i % once.size()];
    EXPECT_EQ(f.src_host, first.src_host);
    EXPECT_EQ(f.dst_host, first.dst_host);
    EXPECT_EQ(f.size_bytes, 200'000u);
    EXPECT_EQ(f.start.ps, first.start.ps + static_cast<int64_t>(i / once.size()) * 150'000'000)
        << i;
  }
  EXPECT_EQ(once[0].start.ps, 1'000'000'000);
}

// BFC Fig. 8's background: 4 long-lived flows into each host from 4 distinct senders.
TEST(Scenario, LongLivedFlowsGiveEveryHostKDistinctSenders) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 4, spines: 8, hosts_per_leaf: 16}
workloads:
  - {name: long, type: long_lived, flows_per_receiver: 4}
)",
                                        "long.yaml");
  const ExperimentSpec spec = build_experiment(c);
  ASSERT_EQ(spec.flows.size(), 256u);
  std::map<uint32_t, std::set<uint32_t>> senders_of;
  std::map<uint32_t, int> sent;
  for (const FlowSpec& f : spec.flows) {
    EXPECT_NE(f.src_host, f.dst_host);
    EXPECT_EQ(f.start.ps, 0);
    EXPECT_EQ(f.size_bytes, uint64_t{1} << 50);
    senders_of[f.dst_host].insert(f.src_host);
    ++sent[f.src_host];
  }
  ASSERT_EQ(senders_of.size(), 64u);
  for (const auto& [r, s] : senders_of) EXPECT_EQ(s.size(), 4u) << "distinct senders";
  for (const auto& [h, n] : sent) EXPECT_EQ(n, 4);
  auto sources = [](const ExperimentSpec& s) {
    std::vector<uint32_t> v;
    for (const FlowSpec& f : s.flows) v.push_back(f.src_host);
    return v;
  };
  c.seed = 2;
  EXPECT_NE(sources(build_experiment(c)), sources(spec)) << "the senders are drawn from the seed";
}

// FLB Fig. 8: H0..H16 send only to R0..R2, at 0.6 of the receivers' links together.
TEST(Scenario, PoissonToReceiversAtALoadOnTheirLinks) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: flb_testbed, rate: 40Gbps}
workloads:
  - {name: ws, type: poisson, cdf: websearch, load: 0.6, hosts: [H0..H16],
     receivers: [R0..R2], load_on: receivers, start: 0, stop: 400ms}
)",
                                        "fig8.yaml");
  const ExperimentSpec spec = build_experiment(c);
  std::set<uint32_t> receivers = {spec.topology.find("R0"), spec.topology.find("R1"),
                                  spec.topology.find("R2")};
  double bytes = 0;
  std::set<uint32_t> senders;
  for (const FlowSpec& f : spec.flows) {
    ASSERT_TRUE(receivers.count(f.dst_host)) << f.dst_host;
    senders.insert(f.src_host);
    bytes += static_cast<double>(f.size_bytes);
  }
  EXPECT_EQ(senders.size(), 17u);
  // 0.6 x 3 x 40 Gb/s over 400 ms; WebSearch's heavy tail leaves a few % of noise.
  EXPECT_NEAR(bytes * 8 / 0.4 / (3 * 40e9), 0.6, 0.06) << spec.flows.size() << " flows";
}

// FLB §4.3's fabric (3:1 at the leaves), load taken on the uplinks: a rack of 30 hosts
// sends 3/4 of its traffic over 10 x 40 Gb/s, so each host offers 0.6 x 400 / (30 x 40 x
// 0.75) = 0.2667 of its link, and the uplinks carry 0.6 of theirs.
TEST(Scenario, PoissonLoadOnTheFabricUplinks) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 10, spines: 10, hosts_per_leaf: 30, host_rate: 40Gbps,
           fabric_rate: 40Gbps}
workloads:
  - {name: bg, type: poisson, cdf: fb_webserver, load: 0.6, load_on: fabric,
     intra_rack_fraction: 0.25, start: 0, stop: 20ms}
)",
                                        "sec43.yaml");
  const ExperimentSpec spec = build_experiment(c);
  double inter_rack_bytes = 0;
  for (const FlowSpec& f : spec.flows)
    if (f.src_host / 30 != f.dst_host / 30)  // hosts are numbered leaf by leaf
      inter_rack_bytes += static_cast<double>(f.size_bytes);
  // Over all 10 racks' uplinks (10 x 10 x 40 Gb/s) for 20 ms.
  EXPECT_NEAR(inter_rack_bytes * 8 / 0.02 / (100 * 40e9), 0.6, 0.02) << spec.flows.size();
}

// Every shipped example scenario loads and builds.
TEST(Scenarios, ShippedExamplesAreValid) {
  int files = 0;
  for (const std::string dir : {"/scenarios", "/scenarios/flb"}) {
    for (const auto& entry : fs::directory_iterator(std::string(ROCELAB_SOURCE_DIR) + dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      ScenarioConfig c = load_scenario(entry.path().string(), {});
      EXPECT_NO_THROW(build_experiment(c)) << entry.path();
    }
  }
  EXPECT_GE(files, 10);
}

TEST(BadScenarios, CommandExitsWithStatus2) {
  std::string out;
  EXPECT_EQ(run_cli("validate " + kTests + "/bad/05_misspelled_nested.yaml", &out), 2);
  EXPECT_NE(out.find("did you mean 'buffer'"), std::string::npos) << out;
  EXPECT_EQ(run_cli("run " + kTests + "/tiny.yaml --set switch.ecn.kmax=1KB -q", &out), 2);
  EXPECT_NE(out.find("--set: switch.ecn.kmax"), std::string::npos) << out;
  EXPECT_EQ(run_cli("compare " + kTests + "/tiny.yaml --schemes ecmp+dcqnc", &out), 2);
  EXPECT_NE(out.find("did you mean 'dcqcn'"), std::string::npos) << out;
  EXPECT_EQ(run_cli("validate " + kTests + "/tiny.yaml", &out), 0) << out;
}

// run and compare check the model's invariants at the end: a headroom too small for the
// link's round trip drops packets with PFC on, which they report (exit 3) after writing
// the results, with the broken invariant in summary.json.
TEST(Invariants, RunAndCompareExitNonZeroWithTheResultsWritten) {
  const fs::path d = temp_dir("invariants");
  std::string out;
  const std::string hol = std::string(ROCELAB_SOURCE_DIR) + "/scenarios/incast_hol.yaml";
  EXPECT_EQ(
      run_cli("run " + hol + " -q --set fc.headroom=100B --out " + (d / "run").string(), &out), 3)
      << out;
  EXPECT_NE(out.find("invariant broken"), std::string::npos) << out;
  const std::string summary = slurp((d / "run" / "summary.json").string());
  EXPECT_NE(summary.find("dropped with PFC on"), std::string::npos) << summary;
  EXPECT_EQ(run_cli("compare " + hol + " -q --set fc.headroom=100B --schemes ecmp+none --out " +
                        (d / "cmp").string(),
                    &out),
            3)
      << out;
  EXPECT_EQ(run_cli("run " + hol + " -q --out " + (d / "ok").string(), &out), 0) << out;
  EXPECT_NE(slurp((d / "ok" / "summary.json").string()).find("\"invariants\": \"ok\""),
            std::string::npos);
  fs::remove_all(d);
}

// A timeout in a run that lost nothing is a timer shorter than the queueing a flow met:
// run and compare say so (the resend is needless), and stay silent when packets were lost.
TEST(Timeouts, RunAndCompareNameTimeoutsThatFoundNothingLost) {
  const fs::path d = temp_dir("timeouts");
  const std::string hol = std::string(ROCELAB_SOURCE_DIR) + "/scenarios/incast_hol.yaml";
  const std::string note = "retransmission timeouts with nothing lost or out of order";
  std::string out;
  // 50 us is shorter than the incast's queueing behind PAUSEs: 579 timeouts, no drop.
  EXPECT_EQ(
      run_cli("run " + hol + " -q --set transport.rto=50us --out " + (d / "short").string(), &out),
      0)
      << out;
  EXPECT_NE(out.find(note), std::string::npos) << out;
  EXPECT_NE(out.find("transport.rto 50us, restarted by new ACKs"), std::string::npos) << out;
  const std::string summary = slurp((d / "short" / "summary.json").string());
  EXPECT_EQ(summary.find("\"timeouts\": 0,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"drops\": 0,"), std::string::npos) << summary;
  // The note is kept with the results too, for sweeps and scripts.
  const auto notes = nlohmann::json::parse(summary)["notes"];
  ASSERT_EQ(notes.size(), 1u) << summary;
  EXPECT_NE(notes[0].get<std::string>().find(note), std::string::npos) << summary;
  EXPECT_EQ(run_cli("compare " + hol + " -q --set transport.rto=50us --schemes ecmp+none --out " +
                        (d / "cmp").string(),
                    &out),
            0)
      << out;
  EXPECT_NE(out.find("ecmp+none+pfc: note: "), std::string::npos) << out;
  // The default timer (auto: the fabric's queueing bound) outlasts it: no timeout, no note.
  EXPECT_EQ(run_cli("run " + hol + " -q --out " + (d / "default").string(), &out), 0) << out;
  EXPECT_EQ(out.find("note:"), std::string::npos) << out;
  EXPECT_TRUE(
      nlohmann::json::parse(slurp((d / "default" / "summary.json").string()))["notes"].empty());
  // With packets dropped (headroom too small), timeouts may be real: no note.
  EXPECT_EQ(
      run_cli("run " + hol + " -q --set fc.headroom=100B --out " + (d / "lossy").string(), &out), 3)
      << out;
  EXPECT_EQ(slurp((d / "lossy" / "summary.json").string()).find("\"timeouts\": 0,"),
            std::string::npos);
  EXPECT_EQ(out.find(note), std::string::npos) << out;
  fs::remove_all(d);
}

TEST(Scenario, OverridesAndPresetsApplyInOrder) {
  ScenarioConfig a = load_scenario(
      kTests + "/tiny.yaml",
      {"switch.buffer=9MB", "lb.flowlet_timeout=80us", "workloads.0.load=0.6", "seed=3"});
  EXPECT_EQ(a.switch_config.buffer_bytes, 9000000);
  EXPECT_EQ(a.workloads[0].load, 0.6);
  EXPECT_EQ(a.seed, 3);
  // The preset sets defaults; the file's own buffer (2MB) still wins over it.
  ScenarioConfig p = load_scenario(kTests + "/tiny.yaml", {"preset=conweave-ns3"});
  EXPECT_EQ(p.switch_config.buffer_bytes, 2000000);
  EXPECT_EQ(p.pfc.alpha, 1.0 / 16);
  EXPECT_EQ(p.switch_config.ecn.kmin_bytes, 100000);
  EXPECT_EQ(p.wire.phy_overhead_bytes, 0u);
  // A scheme written as a scalar can still take parameters through --set.
  ScenarioConfig s = load_scenario(kTests + "/tiny.yaml", {"cc.min_rate=1Gbps"});
  EXPECT_EQ(s.cc, "dcqcn");
}

TEST(Scenario, ResolvedConfigReproducesTheRunByteForByte) {
  const fs::path d = temp_dir("roundtrip");
  ScenarioConfig c = load_scenario(kTests + "/tiny.yaml", {});
  RunOptions o;
  o.quiet = true;
  o.out_dir = (d / "first").string();
  const nlohmann::json s1 = run_scenario(c, o);
  EXPECT_TRUE(s1["complete"].get<bool>());
  EXPECT_EQ(s1["flows_completed"], s1["flows_total"]);

  ScenarioConfig again = load_scenario(o.out_dir + "/config.resolved.yaml", {});
  RunOptions o2 = o;
  o2.out_dir = (d / "second").string();
  run_scenario(again, o2);
  EXPECT_EQ(slurp(o.out_dir + "/flows.csv"), slurp(o2.out_dir + "/flows.csv"));
  EXPECT_EQ(slurp(o.out_dir + "/fct.txt"), slurp(o2.out_dir + "/fct.txt"));
  EXPECT_EQ(slurp(o.out_dir + "/config.resolved.yaml"),
            slurp(o2.out_dir + "/config.resolved.yaml"));
  EXPECT_GT(slurp(o.out_dir + "/flows.csv").size(), 1000u);
  // Time series were asked for at 20 us.
  EXPECT_TRUE(fs::exists(o.out_dir + "/ts_flow_throughput.csv"));
  EXPECT_TRUE(fs::exists(o.out_dir + "/pfc_events.csv"));
}

// Two line-rate flows of 100 packets into one port: the leaf holds about one flow's frames
// (100 x 1,082 B) when the last arrives; 1 us samples catch it within a microsecond's
// drain (12.5 KB).
TEST(Scenario, BufferSamplesCatchTheIncastPeak) {
  ScenarioConfig c = load_scenario_text(R"(
topology: {type: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 3}
cc: none
outputs: {buffer_sample_interval: 1us}
workloads:
  - {name: two, type: flows, flows: [{src: h0, dst: h2, size: 100KB},
                                     {src: h1, dst: h2, size: 100KB}]}
)",
                                        "peak.yaml");
  RunOptions o;
  o.quiet = true;
  const nlohmann::json s = run_scenario(c, o);
  const nlohmann::json& b = s["switch_buffer"];
  EXPECT_GE(b["max_kb"].get<double>(), 108.2 - 12.5 - 1.1);
  EXPECT_LE(b["max_kb"].get<double>(), 108.2);
  EXPECT_EQ(b["cdf_kb"].size(), 21u);
  EXPECT_EQ(b["cdf_kb"].back(), b["max_kb"]);
  EXPECT_EQ(s["switch_buffer_p99_kb"], b["p99_kb"]);
  EXPECT_GE(b["samples"].get<int>(), 2 * 17) << "two switches, the run lasts > 17 us";
  // h2's link carried 200 frames of 1,082 B (on the wire) of the three host links'
  // capacity over the run.
  const double secs = s["sim_time_ns"].get<double>() * 1e-9;
  EXPECT_NEAR(s["host_link_utilization"].get<double>(), 200 * 1082 * 8 / (100e9 * secs) / 3, 0.001);
}

TEST(Scenario, SummaryHasTheContractKeys) {
  ScenarioConfig c = load_scenario(kTests + "/tiny.yaml", {});
  RunOptions o;
  o.quiet = true;
  const nlohmann::json s = run_scenario(c, o);
  for (const char* k : {"flows_total",
                        "flows_completed",
                        "drops",
                        "pfc_pause_frames",
                        "afct_us",
                        "p99_fct_us",
                        "mean_slowdown",
                        "p99_slowdown",
                        "by_size",
                        "by_tag",
                        "pfc_pause_frames_by_layer",
                        "paused_links",
                        "hol_blocked_flows",
                        "hol_blocked_flow_ratio",
                        "events",
                        "sim_time_ns",
                        "wall_s",
                        "events_per_s",
                        "seed",
                        "version"})
    EXPECT_TRUE(s.contains(k)) << k;
  for (const char* b : {"small", "medium", "large"})
    for (const char* k : {"afct_us", "p99_fct_us", "mean_slowdown", "p99_slowdown"})
      EXPECT_TRUE(s["by_size"][b].contains(k)) << b << "." << k;
  EXPECT_TRUE(s["by_tag"].contains("background"));
  EXPECT_TRUE(s["by_tag"].contains("incast"));
  EXPECT_EQ(s["by_tag"]["incast"]["flows"], 8);  // 4 senders x 2 repeats
  EXPECT_EQ(s["seed"], 7);
}

TEST(Compare, WritesOneRunPerSchemeAndAgreeingCsv) {
  const fs::path d = temp_dir("compare");
  std::string out;
  ASSERT_EQ(run_cli("compare " + kTests +
                        "/tiny.yaml --schemes ecmp+none,letflow+dcqcn -q -j 2 --out " + d.string(),
                    &out),
            0)
      << out;
  EXPECT_NE(out.find("letflow+dcqcn+pfc"), std::string::npos) << out;
  std::ifstream csv(d / "compare.csv");
  std::string header, line;
  std::getline(csv, header);
  std::vector<std::string> cols;
  std::stringstream hs(header);
  for (std::string col; std::getline(hs, col, ',');) cols.push_back(col);
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> vals;
    std::stringstream ls(line);
    for (std::string v; std::getline(ls, v, ',');) vals.push_back(v);
    ASSERT_EQ(vals.size(), cols.size());
    const nlohmann::json s = nlohmann::json::parse(slurp((d / vals[0] / "summary.json").string()));
    const auto expected = headline_values(s);
    for (size_t i = 1; i < cols.size(); ++i) {
      EXPECT_EQ(expected[i - 1].first, cols[i]);
      EXPECT_EQ(expected[i - 1].second, vals[i]) << vals[0] << " " << cols[i];
    }
    ++rows;
  }
  EXPECT_EQ(rows, 2);
}

// compare --threads: each scheme's run on two threads, the same flows as on one.
TEST(Compare, ThreadsPerRunGiveTheSameRuns) {
  const fs::path d = temp_dir("compare_threads");
  const std::string args = "compare " + kTests + "/tiny.yaml --schemes ecmp+none,letflow+dcqcn -q";
  std::string out;
  ASSERT_EQ(run_cli(args + " -j 1 --out " + (d / "one").string(), &out), 0) << out;
  ASSERT_EQ(run_cli(args + " --threads 2 --out " + (d / "two").string(), &out), 0) << out;
  for (const char* scheme : {"ecmp+none+pfc", "letflow+dcqcn+pfc"}) {
    const std::string one = slurp((d / "one" / scheme / "fct.txt").string());
    EXPECT_FALSE(one.empty()) << scheme;
    EXPECT_EQ(slurp((d / "two" / scheme / "fct.txt").string()), one) << scheme;
    const nlohmann::json s =
        nlohmann::json::parse(slurp((d / "two" / scheme / "summary.json").string()));
    EXPECT_EQ(s["parallel"]["threads"], 2) << scheme;
  }
  // --partitions too: two partitions on one thread, the same flows.
  ASSERT_EQ(run_cli(args + " -j 1 --partitions 2 --out " + (d / "parts").string(), &out), 0) << out;
  for (const char* scheme : {"ecmp+none+pfc", "letflow+dcqcn+pfc"}) {
    EXPECT_EQ(slurp((d / "parts" / scheme / "fct.txt").string()),
              slurp((d / "one" / scheme / "fct.txt").string()))
        << scheme;
    const nlohmann::json s =
        nlohmann::json::parse(slurp((d / "parts" / scheme / "summary.json").string()));
    EXPECT_EQ(s["parallel"]["partitions"], 2) << scheme;
    EXPECT_EQ(s["parallel"]["threads"], 1) << scheme;
  }
  fs::remove_all(d);
}

// compare runs on the sweep runner: under mpirun its ranks share the schemes, and every
// scheme's results are those of a local compare (fct.txt: every finished flow's FCT).
#ifdef ROCELAB_TEST_MPIEXEC
TEST(Compare, MpirunWithTwoRanksGivesTheSameRuns) {
  const fs::path d = temp_dir("compare_mpi");
  const std::string args = "compare " + kTests + "/tiny.yaml --schemes ecmp+none,letflow+dcqcn -q";
  std::string out;
  ASSERT_EQ(run_cli(args + " -j 1 --out " + (d / "local").string(), &out), 0) << out;
  const std::string prefix =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none " +
      std::string(ROCELAB_TEST_MPIEXEC) + " --oversubscribe -np 2 ";
  // -j 0: rank 0 runs nothing itself, so every run comes back from rank 1 over MPI.
  ASSERT_EQ(run_cli(args + " -j 0 --out " + (d / "mpi").string(), &out, prefix), 0) << out;
  EXPECT_NE(out.find("letflow+dcqcn+pfc"), std::string::npos) << out;  // the table
  for (const char* scheme : {"ecmp+none+pfc", "letflow+dcqcn+pfc"}) {
    const std::string local = slurp((d / "local" / scheme / "fct.txt").string());
    EXPECT_FALSE(local.empty()) << scheme;
    EXPECT_EQ(slurp((d / "mpi" / scheme / "fct.txt").string()), local) << scheme;
  }
  EXPECT_TRUE(fs::exists(d / "mpi" / "compare.csv"));
  // Without --out nothing is written, by any rank.
  fs::create_directories(d / "cwd");
  ASSERT_EQ(run_cli(args + " -j 0", &out, "cd " + (d / "cwd").string() + " && " + prefix), 0)
      << out;
  EXPECT_TRUE(fs::is_empty(d / "cwd"));
  fs::remove_all(d);
}
#endif

#ifdef ROCELAB_TEST_MPIEXEC
// One run over MPI ranks (issue 52): `mpirun -np K rocelab run` writes, from rank 0 alone,
// the flows.csv and pfc_events.csv of one process, and prints its table; with 2 threads
// per rank too. tests/scenario/ranks_test.cc runs the protocol over scheme and fault cases.
TEST(Run, MpirunWithTwoAndThreeRanksGivesTheRunOfOneProcess) {
  const fs::path d = temp_dir("run_mpi");
  const std::string args = "run " + std::string(ROCELAB_SOURCE_DIR) +
                           "/scenarios/default.yaml --set stop.time=2ms -q --out ";
  std::string out;
  ASSERT_EQ(run_cli(args + (d / "one").string(), &out), 0) << out;
  const std::string prefix =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none " +
      std::string(ROCELAB_TEST_MPIEXEC) + " --oversubscribe ";
  for (const std::string ranks : {"-np 2 ", "-np 3 "}) {
    for (const std::string threads : {"", " --threads 2"}) {
      const fs::path dir = d / (std::string("mpi") + ranks[4] + (threads.empty() ? "" : "x2"));
      ASSERT_EQ(run_cli(args + dir.string() + threads, &out, prefix + ranks), 0) << out;
      // The table's row, once (a note names the scheme too, also once).
      EXPECT_NE(out.find("\necmp+dcqcn+pfc "), std::string::npos) << out;
      EXPECT_EQ(out.find("\necmp+dcqcn+pfc "), out.rfind("\necmp+dcqcn+pfc ")) << out;
      EXPECT_EQ(out.find("note:"), out.rfind("note:")) << out;
      for (const char* file : {"flows.csv", "pfc_events.csv"})
        EXPECT_EQ(slurp((dir / file).string()), slurp((d / "one" / file).string()))
            << ranks << threads << file;
      const nlohmann::json s = nlohmann::json::parse(slurp((dir / "summary.json").string()));
      EXPECT_EQ(s["parallel"]["ranks"], ranks == "-np 2 " ? 2 : 3);
      EXPECT_EQ(s["invariants"], "ok");
    }
  }
  fs::remove_all(d);
}
#endif

TEST(Import, Ns3FilesRunAsAScenario) {
  const fs::path d = temp_dir("import");
  // 2 leaves (4, 5) and one spine (6), hosts 0-3: node ids as in the HPCC files.
  std::ofstream(d / "topo.txt") << "7 3 6\n4 5 6\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n"
                                   "2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n"
                                   "4 6 100Gbps 1000ns 0\n5 6 100Gbps 1000ns 0\n";
  std::ofstream(d / "flow.txt") << "3\n0 2 3 100 50000 2.0\n1 3 3 100 20000 2.000001\n"
                                   "3 0 3 100 1000000 2.000002\n";
  std::string out;
  ASSERT_EQ(run_cli("import --topology " + (d / "topo.txt").string() + " --flows " +
                        (d / "flow.txt").string() + " --format hpcc --preset hpcc-ns3 -o " +
                        (d / "imported.yaml").string(),
                    &out),
            0)
      << out;
  ASSERT_EQ(run_cli("run " + (d / "imported.yaml").string() + " -q --set stop.time=3s --out " +
                        (d / "run").string(),
                    &out),
            0)
      << out;
  // The preset check takes its names from the registry.
  EXPECT_NE(
      run_cli("import --topology " + (d / "topo.txt").string() + " --flows " +
                  (d / "flow.txt").string() + " --preset hpcc -o " + (d / "bad.yaml").string(),
              &out),
      0);
  EXPECT_NE(out.find("hpcc-ns3"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(d / "bad.yaml"));
  const std::string fct = slurp((d / "run" / "fct.txt").string());
  EXPECT_EQ(std::count(fct.begin(), fct.end(), '\n'), 3) << fct;
  EXPECT_NE(fct.find("0b000001 0b000201"), std::string::npos) << fct;  // node 0 -> node 2
  const nlohmann::json s = nlohmann::json::parse(slurp((d / "run" / "summary.json").string()));
  EXPECT_EQ(s["flows_completed"], 3);
}

TEST(Interrupt, CtrlCStopsCleanlyAndWritesAnIncompleteSummary) {
  const fs::path d = temp_dir("interrupt");
  std::string out;
  // A run of many seconds, interrupted after one.
  const int rc = run_cli("run " + std::string(ROCELAB_SOURCE_DIR) +
                             "/scenarios/default.yaml -q --set workloads.0.stop=50ms --set "
                             "stop.time=60ms --out " +
                             d.string(),
                         &out, "timeout --preserve-status -s INT 1 ");
  EXPECT_EQ(rc, 130) << out;
  const nlohmann::json s = nlohmann::json::parse(slurp((d / "summary.json").string()));
  EXPECT_FALSE(s["complete"].get<bool>());
  EXPECT_LT(s["flows_completed"].get<uint64_t>(), s["flows_total"].get<uint64_t>());
  EXPECT_TRUE(fs::exists(d / "flows.csv"));
}

// SIGTERM during the drain: the flow is done, and a NIC that stalls until 10,000 s keeps
// its storm of PAUSEs going, so the drain that follows the run would not end. The signal
// ends it: results written, marked incomplete, the process gone within a second.
TEST(Interrupt, SigtermDuringAnEndlessDrainEndsItWithinASecond) {
  const fs::path d = temp_dir("interrupt_drain");
  std::ofstream(d / "drain.yaml")
      << "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
         "workloads: [{name: one, type: flows, flows: [{src: h0, dst: h2, size: 100KB}]}]\n"
         "events: [{type: nic_stall, host: h3, at: 1us, until: 10000s}]\n"
         "stop: {time: 20000s}\n";
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run_cli("run " + (d / "drain.yaml").string() + " -q --out " + (d / "o").string(),
                         &out, "timeout --preserve-status -k 5 -s TERM 1 ");
  const double s_taken =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(rc, 130) << out;
  EXPECT_LT(s_taken, 2.0) << "the signal came at 1 s";
  const nlohmann::json s = nlohmann::json::parse(slurp((d / "o" / "summary.json").string()));
  EXPECT_FALSE(s["complete"].get<bool>());
  EXPECT_EQ(s["flows_completed"], 1);
  EXPECT_EQ(s["invariants"], "not checked: interrupted during the drain");
  fs::remove_all(d);
}

// One request delivered twice within moments (as `timeout` delivers it: to its child,
// then to its process group) is still one request: the run writes its results, marked incomplete,
// and does not die at once.
TEST(Interrupt, ASignalDeliveredTwiceAtOnceIsOneRequest) {
  const fs::path d = temp_dir("interrupt_twice");
  const fs::path script = d / "twice.sh";
  // The second comes 20 ms after the first, once its handler has run (two sent back to back
  // merge into one pending signal), while the run is still writing its results.
  std::ofstream(script) << "\"$@\" & p=$!\nsleep 1\nkill -TERM $p\nsleep 0.02\nkill -TERM $p\n"
                           "wait $p\n";
  std::string out;
  const int rc = run_cli("run " + std::string(ROCELAB_SOURCE_DIR) +
                             "/scenarios/default.yaml -q --set workloads.0.stop=50ms --set "
                             "stop.time=60ms --out " +
                             (d / "run").string(),
                         &out, "sh " + script.string() + " ");
  EXPECT_EQ(rc, 130) << out;
  const nlohmann::json s = nlohmann::json::parse(slurp((d / "run" / "summary.json").string()));
  EXPECT_FALSE(s["complete"].get<bool>());
  EXPECT_TRUE(fs::exists(d / "run" / "flows.csv"));
  fs::remove_all(d);
}

// A run that reaches its time limit with flows unfinished says so, and how many: the ring
// of five switches deadlocks at once, and with the detector off nothing else would.
TEST(Interrupt, ATimeLimitWithFlowsUnfinishedIsNoted) {
  const fs::path d = temp_dir("unfinished");
  std::string out;
  EXPECT_EQ(run_cli("run " + std::string(ROCELAB_SOURCE_DIR) +
                        "/scenarios/faults/ring5_chords.yaml -q --set stop.time=2ms "
                        "--set faults.deadlock.detect=off --out " +
                        d.string(),
                    &out),
            0)
      << out;
  const std::string note = "5 of 5 flows had not finished when the run stopped at 2ms";
  EXPECT_NE(out.find(note), std::string::npos) << out;
  const nlohmann::json s = nlohmann::json::parse(slurp((d / "summary.json").string()));
  ASSERT_EQ(s["notes"].size(), 1u) << s["notes"];
  EXPECT_NE(s["notes"][0].get<std::string>().find(note), std::string::npos);
}

// A ring whose shortest routes close a buffer cycle deadlocks with no fault at all: the
// detector, on by default under PFC, ends the run there with the cycle; with it off the
// run goes to its time limit and says how many flows were left.
TEST(Deadlock, ADeadlockWithoutEventsIsFoundByDefault) {
  const fs::path d = temp_dir("deadlock_default");
  const std::string ring = std::string(ROCELAB_SOURCE_DIR) + "/scenarios/faults/ring5.yaml";
  std::string out;
  EXPECT_EQ(run_cli("run " + ring + " -q --out " + (d / "on").string(), &out), 3) << out;
  EXPECT_NE(out.find("PFC deadlock: a cycle of 5"), std::string::npos) << out;
  const nlohmann::json on = nlohmann::json::parse(slurp((d / "on" / "summary.json").string()));
  EXPECT_TRUE(on["faults"]["deadlock"]["detected"].get<bool>());
  EXPECT_EQ(on["faults"]["deadlock"]["cycle"].size(), 5u);
  EXPECT_LT(on["sim_time_ns"].get<double>(), 5e6) << "ended at the cycle, not at stop.time";

  EXPECT_EQ(run_cli("run " + ring +
                        " -q --set faults.deadlock.detect=off --set stop.time=3ms "
                        "--out " +
                        (d / "off").string(),
                    &out),
            0)
      << out;
  EXPECT_NE(out.find("5 of 5 flows had not finished when the run stopped at 3ms"),
            std::string::npos)
      << out;
  // A run whose default detector found nothing reports no faults section.
  ASSERT_EQ(run_cli("run " + std::string(ROCELAB_SOURCE_DIR) +
                        "/tests/scenarios/tiny.yaml -q --out " + (d / "tiny").string(),
                    &out),
            0)
      << out;
  const nlohmann::json tiny = nlohmann::json::parse(slurp((d / "tiny" / "summary.json").string()));
  EXPECT_GT(tiny["pfc_pause_frames"].get<uint64_t>(), 0u) << "PFC paused; the detector was on";
  EXPECT_FALSE(tiny.contains("faults"));
  fs::remove_all(d);
}

// Topologies, workloads and presets are found by name in their registries; a name set in
// code (not read from a file, which the reader checks) fails when the scenario is built.
TEST(Registries, UnknownNamesFailWithTheValidOnes) {
  EXPECT_EQ(
      topology_registry().names(),
      (std::vector<std::string>{"fat_tree", "flb_testbed", "leaf_spine", "ns3", "rail_optimized"}));
  EXPECT_EQ(workload_registry().names(),
            (std::vector<std::string>{"burst", "collective", "flows", "incast", "long_lived",
                                      "poisson", "random_incast", "trace"}));
  EXPECT_EQ(preset_choices(), (std::vector<std::string>{"none", "conweave-ns3", "hpcc-ns3"}));
  auto build_error = [](ScenarioConfig c) {
    try {
      build_experiment(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  ScenarioConfig c = load_scenario(kTests + "/tiny.yaml", {});
  ScenarioConfig bad_topology = c;
  bad_topology.topology.type = "torus";
  std::string err = build_error(bad_topology);
  EXPECT_NE(err.find("tiny.yaml:4: topology.type: expected one of: fat_tree, flb_testbed, "
                     "leaf_spine, ns3, rail_optimized; got 'torus'"),
            std::string::npos)
      << err;
  ScenarioConfig bad_workload = c;
  bad_workload.workloads[1].type = "incasts";
  err = build_error(bad_workload);
  EXPECT_NE(
      err.find("workloads.1.type: expected one of: burst, collective, flows, incast, long_lived, "
               "poisson, random_incast, trace; "
               "got 'incasts' (did you mean 'incast'?)"),
      std::string::npos)
      << err;
  EXPECT_THROW(apply_preset("hpcc", c), ConfigError);
}

// transport.ack_pause: auto follows the preset's simulator for the scheme: HPCC-ns3 holds
// its NIC's ACKs through a PAUSE only under --cc hp (ACK_HIGH_PRIO 0); an explicit value wins.
TEST(Presets, AckPauseAutoFollowsThePresetAndTheScheme) {
  auto resolved = [](const std::vector<std::string>& sets) {
    ScenarioConfig c = load_scenario(kTests + "/tiny.yaml", sets);
    return build_experiment(c).transport.ack_pause;
  };
  EXPECT_EQ(resolved({}), AckPause::kSend);
  EXPECT_EQ(resolved({"cc=hpcc"}), AckPause::kSend);  // no preset
  EXPECT_EQ(resolved({"preset=hpcc-ns3", "cc=hpcc"}), AckPause::kWait);
  EXPECT_EQ(resolved({"preset=hpcc-ns3"}), AckPause::kSend);  // its DCQCN
  EXPECT_EQ(resolved({"preset=hpcc-ns3", "cc=timely"}), AckPause::kSend);
  EXPECT_EQ(resolved({"preset=conweave-ns3", "cc=hpcc"}), AckPause::kSend);
  EXPECT_EQ(resolved({"preset=hpcc-ns3", "cc=hpcc", "transport.ack_pause=send"}), AckPause::kSend);
  EXPECT_EQ(resolved({"cc=hpcc", "transport.ack_pause=wait"}), AckPause::kWait);
}

// The presets' retransmission timers: ConWeave-ns3's L2Timeout (4 ms, rescheduled by each
// packet sent), none in HPCC-ns3, which rocelab accepts only with PFC on.
TEST(Presets, RetransmissionTimerFollowsTheSimulator) {
  auto built = [](const std::vector<std::string>& sets) {
    ScenarioConfig c = load_scenario(kTests + "/tiny.yaml", sets);
    return build_experiment(c).transport;
  };
  // transport.rto: auto (the default) on tiny.yaml's leaf-spine (2 MB buffers, 100 Gb/s,
  // 1 us links; leaves of 6 ports, spines of 2). One switch's drain: 2 MB x 8 / 100 Gb/s =
  // 160 us. Lossy, a host-leaf-spine-leaf-host path queues at most 3 x 160 us, + 2 x 4 x
  // 1 us of propagation = 488 us.
  EXPECT_EQ(built({"fc=none"}).rto, Delta::from_us(488));
  // Under PFC each switch counts its drain (ports - 1) times: 5 x 160 + 160 + 5 x 160 + 8.
  EXPECT_EQ(built({}).rto, Delta::from_us(1768));
  EXPECT_EQ(built({"transport.rto=auto"}).rto, Delta::from_us(1768));
  EXPECT_FALSE(built({}).rto_restarts_on_send);
  // ACKs queued with the data wait as long again on the way back: 2 x 1760 + 8.
  EXPECT_EQ(built({"switch.ack_queue=data"}).rto, Delta::from_us(3528));
  // One spine with 4 MB: the worst path crosses it (800 + 320 + 800 + 8).
  EXPECT_EQ(built({"switch.buffers=[{switch: spine1, buffer: 4MB}]"}).rto, Delta::from_us(1928));
  // 40 Gb/s fabric links: every switch has one, its slowest port (5 x 400 + 400 + 5 x 400 + 8).
  EXPECT_EQ(built({"topology.fabric_rate=40Gbps"}).rto, Delta::from_us(4408));
  // With little buffer the floor holds: twice the unloaded round trip, 2 x (8 us + 4 links x
  // (1082 + 86) B x 8 / 100 Gb/s) = 16.75 us -> 17 us (the drain, 3 x 0.8 + 8, is below it).
  EXPECT_EQ(built({"fc=none", "switch.buffer=10KB"}).rto, Delta::from_us(17));
  EXPECT_EQ(built({"transport.rto=1ms"}).rto, Delta::from_ms(1));
  EXPECT_THROW(built({"transport.rto=soon"}), ConfigError);
  EXPECT_EQ(built({"preset=conweave-ns3"}).rto, Delta::from_ms(4));
  EXPECT_TRUE(built({"preset=conweave-ns3"}).rto_restarts_on_send);
  EXPECT_EQ(built({"preset=hpcc-ns3"}).rto, Delta::zero());
  EXPECT_EQ(built({"preset=hpcc-ns3", "transport.rto=2ms"}).rto, Delta::from_ms(2));
  try {
    built({"preset=hpcc-ns3", "fc=none"});
    ADD_FAILURE() << "no timer in a lossy fabric was accepted";
  } catch (const ConfigError& e) {
    const std::string err = e.what();
    EXPECT_NE(err.find("transport.rto: 0 (no retransmission timer, the hpcc-ns3 preset's) needs "
                       "a lossless fabric (fc: pfc); with fc: none"),
              std::string::npos)
        << err;
  }
}

TEST(List, NamesEverySchemeAndWorkload) {
  std::string out;
  ASSERT_EQ(run_cli("list", &out), 0);
  for (const char* name : {"ecmp", "rps", "letflow", "dcqcn", "none", "leaf_spine", "fat_tree",
                           "flb_testbed", "ns3", "websearch", "datamining_vl2", "poisson", "incast",
                           "burst", "flows", "trace", "hpcc-ns3", "conweave-ns3"})
    EXPECT_NE(out.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace rocelab
