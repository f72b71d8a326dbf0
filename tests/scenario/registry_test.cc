// Properties every registered scheme must have, whatever its family (load balancer,
// congestion control, flow control, switch feature, host path policy, loss recovery,
// egress scheduler): its scenario round-trips through config.resolved.yaml, it keeps the
// model's invariants on a small loaded fabric with an incast, it allocates nothing per
// packet once warm, and it has its page in docs/schemes/. A new scheme is checked by
// registering it; nothing here names one (but for the companions a few need).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "cc/cc_registry.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/scenario_config.h"
#include "scenario/config/switch_features.h"
#include "test_util.h"
#include "transport/host_path.h"
#include "transport/loss_recovery.h"

// Counts heap allocations made by this test binary (not under sanitizers, which own new).
#if !defined(__SANITIZE_ADDRESS__)
// The replacement pair is malloc/free on purpose; GCC cannot see that new maps to malloc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<uint64_t> g_allocations{0};
}
void* operator new(size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
#define ROCELAB_COUNTS_ALLOCATIONS 1
#endif

namespace rocelab {
namespace {

// A registered scheme: its family as the docs name it, and the scenario settings that
// select it (with the companions a scheme declares it needs).
struct Registered {
  std::string family;
  std::string name;
  std::vector<std::string> sets;
};

void PrintTo(const Registered& r, std::ostream* os) {
  *os << r.family << ": " << r.name;
}

template <class R>
void add_family(std::vector<Registered>& out, const std::string& family, const R& registry) {
  for (const std::string& name : registry.names()) {
    Registered r{family, name, {family + "=" + name}};
    if (family == "switch.features") {
      // RED/ECN is switched by its own key, not listed in switch.features (it runs first).
      r.sets = {name == "ecn" ? "switch.ecn.enabled=true" : "switch.features=[" + name + "]"};
    }
    // A loss recovery is exercised only by out-of-order data: packets are sprayed.
    if (family == "transport.recovery") r.sets.push_back("lb=rps");
    // MP-RDMA is a transport of its own: its receiver and no congestion control.
    if (name == "mprdma") r.sets.insert(r.sets.end(), {"cc=none", "transport.recovery=bitmap"});
    out.push_back(r);
  }
}

std::vector<Registered> every_registered_scheme() {
  std::vector<Registered> out;
  add_family(out, "lb", lb_registry());
  add_family(out, "cc", cc_registry());
  add_family(out, "fc", fc_registry());
  add_family(out, "switch.features", switch_feature_registry());
  add_family(out, "transport.path_policy", host_path_registry());
  add_family(out, "transport.recovery", loss_recovery_registry());
  add_family(out, "switch.scheduler", scheduler_registry());
  return out;
}

// A small loaded fabric: Poisson background and a 4-to-1 incast into a host that also
// receives background flows, so queues, ECN, PAUSEs and reordering all happen.
const char* const kScenario = R"(name: registry-property
seed: 11
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4, link_delay: 1us}
switch: {buffer: 2MB}
workloads:
  - {name: background, type: poisson, cdf: fb_webserver, load: 0.5, stop: 300us}
  - {name: incast, type: incast, senders: h4..h7, receiver: h0, total_size: 800KB, start: 50us,
     interval: 100us, repeats: 2}
)";

// Whether the scenario selects the scheme (read back from its fields, not its text).
bool selects(const ScenarioConfig& c, const Registered& r) {
  const auto& f = r.family;
  if (f == "lb") return c.lb == r.name;
  if (f == "cc") return c.cc == r.name;
  if (f == "fc") return c.fc == r.name;
  if (f == "switch.scheduler") return c.scheduler == r.name;
  if (f == "transport.path_policy") return c.transport.path_policy == r.name;
  if (f == "transport.recovery") return c.transport.recovery == r.name;
  if (f == "switch.features") {
    if (r.name == "ecn") return c.switch_config.ecn.enabled;
    return std::find(c.switch_features.begin(), c.switch_features.end(), r.name) !=
           c.switch_features.end();
  }
  return false;
}

ScenarioConfig scenario_with(const Registered& r) {
  return load_scenario_text(kScenario, "registry-property.yaml", r.sets);
}

class EveryRegisteredScheme : public ::testing::TestWithParam<Registered> {};

TEST_P(EveryRegisteredScheme, RoundTripsThroughTheResolvedYaml) {
  ScenarioConfig c = scenario_with(GetParam());
  const std::string resolved = resolved_yaml(c);
  ScenarioConfig again = load_scenario_text(resolved, "config.resolved.yaml");
  EXPECT_EQ(resolved_yaml(again), resolved);
  EXPECT_TRUE(selects(again, GetParam())) << "the resolved file no longer selects it";
}

// The page in docs/schemes/ whose 'Registered as:' line names the scheme ("" if none).
// The pages of docs/schemes/ whose 'Registered as:' line names the scheme.
std::vector<std::filesystem::path> pages_registering(const Registered& r) {
  const std::string want = "`" + r.family + ": " + r.name + "`";
  std::vector<std::filesystem::path> pages;
  for (const auto& f :
       std::filesystem::directory_iterator(std::string(ROCELAB_SOURCE_DIR) + "/docs/schemes")) {
    std::ifstream in(f.path());
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Registered as:", 0) == 0 && line.find(want) != std::string::npos)
        pages.push_back(f.path());
  }
  return pages;
}

// The text of the scheme's page ("" if none).
std::string page_of(const Registered& r) {
  const auto pages = pages_registering(r);
  if (pages.empty()) return "";
  std::stringstream all;
  all << std::ifstream(pages.front()).rdbuf();
  return all.str();
}

// Whether a page names a figure: in full, as a numbered family by its stem (`x_00..16`), or
// abbreviated after a name with the same head (`lbodsn_fcn_in_flight`, `_unknown_flow`;
// `proteus_select_{noncongested,congested}`).
bool named_on(const std::string& page, const std::string& name) {
  std::string stem = name;
  while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back()))) stem.pop_back();
  if (page.find(stem) != std::string::npos) return true;
  for (size_t i = name.find('_'); i != std::string::npos; i = name.find('_', i + 1)) {
    const std::string head = name.substr(0, i), tail = name.substr(i);
    if (page.find("`" + head) == std::string::npos) continue;
    if (page.find("`" + tail + "`") != std::string::npos) return true;
    if (page.find(head + "_{") != std::string::npos &&
        page.find(tail.substr(1)) != std::string::npos)
      return true;
  }
  return false;
}

// The figures the scheme reported (lb_stats, fc_stats, feature_stats; the path policy's
// go to lb_stats): summary.json defers their meaning to the scheme's page.
std::vector<std::string> figures_of(Experiment& exp, const Registered& r) {
  std::vector<SchemeStat> stats;
  Network& net = exp.network();
  for (NodeId s : net.switches()) {
    if (r.family == "lb")
      if (LoadBalancer* lb = net.switch_at(s).load_balancer()) lb->add_stats(stats);
    if (r.family == "fc") net.switch_at(s).flow_control().add_stats(stats);
    if (r.family == "switch.features")
      for (const auto& f : net.switch_at(s).features()) f->add_stats(stats);
  }
  if (r.family == "transport.path_policy") exp.transport().path_policy().add_stats(stats);
  std::vector<std::string> names;
  for (const auto& [name, v] : combine(stats)) names.push_back(name);
  return names;
}

TEST_P(EveryRegisteredScheme, KeepsTheInvariantsUnderLoadAndIncast) {
  ScenarioConfig c = scenario_with(GetParam());
  Experiment exp(build_experiment(c));
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
  EXPECT_GT(exp.transport().flow_count(), 20u);
  if (GetParam().family == "transport.recovery") {
    EXPECT_GT(exp.transport().counters().out_of_order_packets, 0u) << "the recovery had work";
  }
  // Each figure it reports is named on its page.
  const std::string page = page_of(GetParam());
  for (const std::string& name : figures_of(exp, GetParam()))
    EXPECT_TRUE(named_on(page, name))
        << name << " (summary.json) is not named on the scheme's docs/schemes/ page";
}

// The scenario above is a test of something: under the defaults (ECMP, DCQCN, PFC) its
// incast pauses links.
TEST(RegistryProperty, TheScenarioPausesUnderTheDefaults) {
  ScenarioConfig c = load_scenario_text(kScenario, "registry-property.yaml");
  Experiment exp(build_experiment(c));
  test::run_checked(exp, Time{Delta::from_ms(500).ps});
  EXPECT_GT(exp.network().counters().pause_frames, 0u);
}

TEST_P(EveryRegisteredScheme, HasItsPageInDocsSchemes) {
  EXPECT_EQ(pages_registering(GetParam()).size(), 1u)
      << GetParam().family << ": " << GetParam().name
      << " should be in one page's 'Registered as:' line";
}

#ifdef ROCELAB_COUNTS_ALLOCATIONS
// Once pools, rings and tables have grown, simulating allocates nothing per packet or
// event: long flows across the racks and a 2-to-1, warmed up for 6 ms, then counted.
TEST_P(EveryRegisteredScheme, AllocatesNothingPerPacketOnceWarm) {
  ScenarioConfig c = scenario_with(GetParam());
  ExperimentSpec spec = build_experiment(c);
  spec.flows.clear();
  for (uint32_t i = 0; i < 4; ++i) spec.flows.push_back(test::flow(i, 4 + (i + 1) % 4, 1u << 30));
  spec.flows.push_back(test::flow(5, 4, 1u << 30));
  spec.stop = Time::never();
  Experiment exp(spec);
  exp.run(Time{Delta::from_ms(6).ps});
  const uint64_t before = g_allocations.load();
  const uint64_t events_before = exp.sim().events_processed();
  exp.run(Time{Delta::from_ms(8).ps});
  const uint64_t events = exp.sim().events_processed() - events_before;
  EXPECT_GT(events, 100000u);
  // A container reaching a new high-water mark grows once: a handful per run at most.
  EXPECT_LE(g_allocations.load() - before, events / 20000);
}
#endif

INSTANTIATE_TEST_SUITE_P(Registries, EveryRegisteredScheme,
                         ::testing::ValuesIn(every_registered_scheme()),
                         [](const ::testing::TestParamInfo<Registered>& info) {
                           std::string id = info.param.family + "_" + info.param.name;
                           for (char& ch : id)
                             if (ch == '.') ch = '_';
                           return id;
                         });

#ifdef ROCELAB_COUNTS_ALLOCATIONS
// Every load balancer with every congestion control (and the spraying host path): once
// pools, rings and tables have grown, simulating allocates nothing per packet or event.
TEST(Performance, NoAllocationInTheSteadyStateForAnyScheme) {
  for (const std::string& lb : lb_registry().names()) {
    for (const std::string& cc : cc_registry().names()) {
      ExperimentSpec spec;
      spec.topology = test::small_leaf_spine(2, 2, 4);
      spec.lb = lb;
      spec.cc = cc;
      if (lb == "ecmp") spec.transport.path_policy = "spray";
      // Cross-rack flows, and 2-to-1 on host 4: queues, ECN, CNPs, CNMs, PAUSEs.
      for (uint32_t i = 0; i < 4; ++i)
        spec.flows.push_back(test::flow(i, 4 + (i + 1) % 4, 1u << 30));
      spec.flows.push_back(test::flow(5, 4, 1u << 30));
      Experiment exp(spec);
      exp.run(Time{Delta::from_ms(6).ps});  // warm-up: pools, rings and the heap reach size
      const uint64_t before = g_allocations.load();
      const uint64_t events_before = exp.sim().events_processed();
      exp.run(Time{Delta::from_ms(8).ps});
      EXPECT_GT(exp.sim().events_processed() - events_before, 100000u) << lb << "+" << cc;
      // Containers that reach a new high-water mark grow once (a queue's ring, a bucket of
      // the event list, the packet pool): a handful of allocations per run while queues
      // still grow (DCQCN under a window cap, or no congestion control, after 6 ms).
      // Allocation per packet or per event would be one per event or more: over 100,000.
      const uint64_t events = exp.sim().events_processed() - events_before;
      EXPECT_LE(g_allocations.load() - before, events / 20000) << lb << "+" << cc;
    }
  }
}

#endif

}  // namespace
}  // namespace rocelab
