#include "net/ns3_ecmp_hash.h"
#include "scenario/build/ns3_topology.h"
#include "scenario/results/ns3_fct.h"
#include "workload/ns3_flows.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "sim/units.h"

namespace rocelab {
namespace {

namespace fs = std::filesystem;

// A scratch directory removed at the end of each test.
class Ns3FormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("rocelab_ns3_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out << text;
    return p.string();
  }

  fs::path dir_;
};

// The message of the std::runtime_error `fn` throws, or "" when it does not throw.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// 4 hosts (0-3) on 2 leaves (4, 5), 2 spines (6, 7), one core (8) above the spines.
constexpr const char* kLeafSpine =
    "9 5 10\r\n"
    "4 5 6 7 8   \r\n"
    "0 4 100Gbps 1000ns 0\r\n"
    "1 4 100Gbps 1000ns 0.000000\r\n"
    "2 5 100gbps 1us 0\r\n"
    "3 5 100Gb/s 1000ns 0\r\n"
    "4 6 400Gbps 2.5us 0\r\n"
    "4 7 400Gbps 2500ns 0\r\n"
    "5 6 400Gbps 2500ns 0\r\n"
    "5 7 400Gbps 2500ns 0\r\n"
    "6 8 1.6Tbps 0.001ms 0\r\n"
    "8 7 1600000Mbps 1000000ps 0 \t\r\n"
    "\r\n"
    "   \r\n";

TEST_F(Ns3FormatTest, ReadsLeafSpineTopology) {
  const TopologySpec t = read_ns3_topology(write("topo.txt", kLeafSpine));
  ASSERT_EQ(t.nodes.size(), 9u);
  ASSERT_EQ(t.links.size(), 10u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.nodes[i].kind, NodeKind::kHost);
    EXPECT_EQ(t.nodes[i].layer, Layer::kHost);
    EXPECT_EQ(t.nodes[i].name, "h" + std::to_string(i));
  }
  for (uint32_t i = 4; i < 9; ++i) {
    EXPECT_EQ(t.nodes[i].kind, NodeKind::kSwitch);
    EXPECT_EQ(t.nodes[i].name, "s" + std::to_string(i));
  }
  EXPECT_EQ(t.nodes[4].layer, Layer::kEdge);
  EXPECT_EQ(t.nodes[5].layer, Layer::kEdge);
  EXPECT_EQ(t.nodes[6].layer, Layer::kAggregation);
  EXPECT_EQ(t.nodes[7].layer, Layer::kAggregation);
  EXPECT_EQ(t.nodes[8].layer, Layer::kCore);
  EXPECT_EQ(t.hosts(), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(t.switches(), (std::vector<uint32_t>{4, 5, 6, 7, 8}));

  EXPECT_EQ(t.links[0].a, 0u);
  EXPECT_EQ(t.links[0].b, 4u);
  EXPECT_EQ(t.links[0].rate_bps, 100'000'000'000);
  EXPECT_EQ(t.links[0].delay.ps, 1'000'000);
  EXPECT_EQ(t.links[2].rate_bps, gbps(100));  // lowercase
  EXPECT_EQ(t.links[2].delay, Delta::from_us(1));
  EXPECT_EQ(t.links[3].rate_bps, gbps(100));  // Gb/s
  EXPECT_EQ(t.links[4].rate_bps, gbps(400));
  EXPECT_EQ(t.links[4].delay.ps, 2'500'000);  // 2.5us exactly
  EXPECT_EQ(t.links[5].delay.ps, 2'500'000);
  EXPECT_EQ(t.links[8].rate_bps, gbps(1600));  // 1.6Tbps exactly
  EXPECT_EQ(t.links[8].delay, Delta::from_us(1));
  EXPECT_EQ(t.links[9].a, 8u);
  EXPECT_EQ(t.links[9].b, 7u);
  EXPECT_EQ(t.links[9].rate_bps, gbps(1600));
  EXPECT_EQ(t.links[9].delay, Delta::from_us(1));
}

// The forks' own files end with a description after the declared links (ConWeave-ns3
// config/leaf_spine_128_100G_OS2.txt); ns-3 reads what the header declares.
TEST_F(Ns3FormatTest, IgnoresTextAfterTheDeclaredRecords) {
  const std::string topo = write("described.txt",
                                 "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0.000000\n\n\n"
                                 "First line: total node #, switch node #, link #\n"
                                 "src0 dst0 rate delay error_rate\n"
                                 "topology from Hermes (SIGCOMM'17) - oversubscription=2\n");
  std::string note;
  const TopologySpec t = read_ns3_topology(topo, &note);
  EXPECT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.links.size(), 2u);
  EXPECT_NE(note.find("lines 7-9 after the 2 links the header declares are ignored"),
            std::string::npos)
      << note;
  // HPCC-ns3's mix/topology.txt goes on with links of a larger fabric, its mix/flow.txt with
  // flows beyond its count: ns-3 reads what is declared.
  const std::string more = write("more_links.txt",
                                 "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n"
                                 "2 7 25Gbps 0.001ms 0\n");
  EXPECT_EQ(read_ns3_topology(more).links.size(), 2u);
  const std::string flows =
      write("described_flows.txt", "1\n0 1 3 1000 2.0\n1 0 3 1000 2.0\nmade by traffic_gen\n");
  EXPECT_EQ(read_ns3_flows(flows, Ns3FlowFormat::kAuto, "trace", &note).size(), 1u);
  EXPECT_NE(note.find("lines 3-4 after the 1 flows"), std::string::npos) << note;
  std::string none;
  read_ns3_topology(write("exact.txt", "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"), &none);
  EXPECT_EQ(none, "");
}

// fct.txt rows join with the forks' own on (src, dst, sport, dport).
TEST_F(Ns3FormatTest, FlowsGetTheForksPortNumbers) {
  const std::string hpcc = write("hpcc_ports.txt",
                                 "4\n0 2 3 100 10 2\n1 3 3 101 10 2\n0 2 3 100 10 2.1\n"
                                 "0 3 3 7 10 2.2\n");
  const std::vector<FlowSpec> h = read_ns3_flows(hpcc, Ns3FlowFormat::kHpcc);
  const uint16_t hpcc_sports[] = {10000, 10000, 10001, 10000};  // per (src, dst) pair
  const uint16_t hpcc_dports[] = {100, 101, 100, 7};
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(h[i].sport, hpcc_sports[i]) << "flow " << i;
    EXPECT_EQ(h[i].dport, hpcc_dports[i]) << "flow " << i;
  }
  const std::string conweave =
      write("conweave_ports.txt", "4\n5 9 3 10 2\n9 5 3 10 2\n5 7 3 10 2.1\n6 9 3 0 2.2\n");
  const std::vector<FlowSpec> c = read_ns3_flows(conweave, Ns3FlowFormat::kConweave);
  const uint16_t conweave_sports[] = {10000, 10000, 10001, 10000};  // per source host
  const uint16_t conweave_dports[] = {100, 100, 100, 101};          // per destination host
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(c[i].sport, conweave_sports[i]) << "flow " << i;
    EXPECT_EQ(c[i].dport, conweave_dports[i]) << "flow " << i;
  }
  EXPECT_EQ(c[3].size_bytes, 1u) << "ConWeave sends 1 byte for a 0-byte flow";
}

TEST_F(Ns3FormatTest, TopologyWithoutSwitches) {
  // The switch-id line may be empty or absent when there are no switches.
  for (const char* text : {"2 0 1\n\n0 1 25Gbps 1us 0\n", "2 0 1\n0 1 25Gbps 1us 0"}) {
    const TopologySpec t = read_ns3_topology(write("two.txt", text));
    ASSERT_EQ(t.nodes.size(), 2u);
    EXPECT_EQ(t.nodes[1].kind, NodeKind::kHost);
    ASSERT_EQ(t.links.size(), 1u);
    EXPECT_EQ(t.links[0].rate_bps, gbps(25));
  }
}

// The files' quantities go through scenario/units with the files' rules: units in any
// case, which scenario files do not accept (they stay exact: "100gbps" is refused there),
// every rate and delay with its unit, error rates as any spelling of 0, start times as
// bare decimal seconds of any length.
TEST_F(Ns3FormatTest, ReadsTheUnitFormsScenarioFilesRefuse) {
  const std::string path = write("cases.txt",
                                 "3 1 2\n2\n"
                                 "0 2 10mb/s 1US 0e0\n"
                                 "1 2 2.5tbPS 0.001MS 0.0000\n");
  const TopologySpec t = read_ns3_topology(path);
  EXPECT_EQ(t.links[0].rate_bps, mbps(10));
  EXPECT_EQ(t.links[0].delay, Delta::from_us(1));
  EXPECT_EQ(t.links[1].rate_bps, gbps(2500));
  EXPECT_EQ(t.links[1].delay, Delta::from_us(1));
  std::string why;
  for (const char* rate : {"100gbps", "10mb/s", "2.5tbPS"})
    EXPECT_FALSE(parse_rate(rate, &why)) << rate;
  for (const char* delay : {"1US", "0.001MS"}) EXPECT_FALSE(parse_duration(delay, &why)) << delay;

  const std::string flows = write("starts.txt",
                                  "3\n"
                                  "0 1 3 10 +2.5\n"
                                  "0 1 3 10 1e-3\n"
                                  "0 1 3 10 2.00000000000000000000000000000000000000049\n");
  const std::vector<FlowSpec> f = read_ns3_flows(flows, Ns3FlowFormat::kConweave);
  EXPECT_EQ(f[0].start.ps, 2'500'000'000'000);
  EXPECT_EQ(f[1].start.ps, 1'000'000'000);
  EXPECT_EQ(f[2].start.ps, 2'000'000'000'000);
}

TEST_F(Ns3FormatTest, ReadsHpccFlows) {
  const std::string path = write("flow.txt",
                                 "4\n"
                                 "0 2 3 100 1000 2.000001234\n"
                                 "1 3 3 101 5000000 2\n"
                                 "3 0 3 100 0 2.0000000000005\r\n"
                                 "2 1 3 100 77 0.0000000000004999 \n"
                                 "\n");
  const std::vector<FlowSpec> flows = read_ns3_flows(path, Ns3FlowFormat::kHpcc, "hpcc");
  ASSERT_EQ(flows.size(), 4u);
  EXPECT_EQ(flows[0].src_host, 0u);
  EXPECT_EQ(flows[0].dst_host, 2u);
  EXPECT_EQ(flows[0].size_bytes, 1000u);
  EXPECT_EQ(flows[0].start.ps, 2'000'001'234'000);
  EXPECT_EQ(flows[0].tag, "hpcc");
  EXPECT_EQ(flows[1].src_host, 1u);
  EXPECT_EQ(flows[1].size_bytes, 5'000'000u);
  EXPECT_EQ(flows[1].start.ps, 2'000'000'000'000);
  EXPECT_EQ(flows[2].size_bytes, 0u);
  EXPECT_EQ(flows[2].start.ps, 2'000'000'000'001);  // half a picosecond rounds up
  EXPECT_EQ(flows[3].start.ps, 0);                  // 0.4999 ps rounds down
  EXPECT_EQ(read_ns3_flows(path, Ns3FlowFormat::kAuto).size(), 4u);
  EXPECT_EQ(read_ns3_flows(path, Ns3FlowFormat::kAuto)[0].tag, "trace");
}

TEST_F(Ns3FormatTest, ReadsConweaveFlows) {
  const std::string path = write("flow.txt",
                                 "3\n"
                                 "5 9 3 24576 2.000001234\n"
                                 "9 5 3 1 2.123456789012\n"
                                 "6 7 3 100 12345.000000001\n");
  for (Ns3FlowFormat f : {Ns3FlowFormat::kConweave, Ns3FlowFormat::kAuto}) {
    const std::vector<FlowSpec> flows = read_ns3_flows(path, f);
    ASSERT_EQ(flows.size(), 3u);
    EXPECT_EQ(flows[0].src_host, 5u);
    EXPECT_EQ(flows[0].dst_host, 9u);
    EXPECT_EQ(flows[0].size_bytes, 24576u);
    EXPECT_EQ(flows[0].start.ps, 2'000'001'234'000);
    EXPECT_EQ(flows[1].start.ps, 2'123'456'789'012);
    EXPECT_EQ(flows[2].start.ps, 12'345'000'000'001'000);
    EXPECT_EQ(flows[2].tag, "trace");
  }
  const std::string err = error_of([&] { read_ns3_flows(path, Ns3FlowFormat::kHpcc); });
  EXPECT_EQ(err.rfind(path + ":2: expected 6 fields", 0), 0u) << err;
}

TEST_F(Ns3FormatTest, EmptyFlowFile) {
  EXPECT_TRUE(read_ns3_flows(write("f.txt", "0\n"), Ns3FlowFormat::kAuto).empty());
}

struct BadFile {
  const char* name;
  const char* text;
  int line;
  const char* message;  // a substring of the error
};

TEST_F(Ns3FormatTest, RejectsMalformedTopologies) {
  const std::vector<BadFile> corpus = {
      {"empty", "", 1, "file is empty"},
      {"header_fields", "3 1\n2\n", 1, "node_count switch_count link_count"},
      {"header_junk", "3 x 2\n2\n", 1, "non-negative integers"},
      {"too_many_switches", "2 3 1\n0 1 2\n", 1, "exceeds node_count"},
      {"switch_count_mismatch", "4 2 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", 2,
       "expected 2 switch ids"},
      {"duplicate_switch", "4 2 2\n2 2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", 2,
       "duplicate switch id 2"},
      {"switch_out_of_range", "3 1 2\n3\n", 2, "switch ids in [0, 3)"},
      {"error_rate", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0.01\n", 4,
       "not modelled"},
      {"error_rate_junk", "3 1 2\n2\n0 2 100Gbps 1000ns none\n1 2 100Gbps 1000ns 0\n", 3,
       "error_rate"},
      {"no_such_node", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n", 4,
       "node ids in [0, 3)"},
      {"self_link", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n2 2 100Gbps 1000ns 0\n", 4, "itself"},
      {"too_few_links", "3 1 3\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n\n", 1,
       "declares 3 links but only 2"},
      {"link_fields", "3 1 2\n2\n0 2 100Gbps 1000ns\n", 3, "expected link"},
      {"rate_unit", "3 1 2\n2\n0 2 100Gbs 1000ns 0\n", 3, "expected a link rate"},
      {"rate_bytes", "3 1 2\n2\n0 2 100GBps 1000ns 0\n", 3, "byte rate"},
      {"rate_no_unit", "3 1 2\n2\n0 2 100 1000ns 0\n", 3, "expected a link rate"},
      {"rate_fraction", "3 1 2\n2\n0 2 1.5bps 1000ns 0\n", 3, "whole number of bits"},
      {"rate_zero", "3 1 2\n2\n0 2 0Gbps 1000ns 0\n", 3, "positive"},
      {"delay_unit", "3 1 2\n2\n0 2 100Gbps 1000xs 0\n", 3, "expected a link delay"},
      {"delay_no_unit", "3 1 2\n2\n0 2 100Gbps 1000 0\n", 3, "expected a link delay"},
      {"delay_negative", "3 1 2\n2\n0 2 100Gbps -5ns 0\n", 3, "expected a link delay"},
      {"multi_homed_host",
       "4 2 4\n2 3\n0 2 100Gbps 1us 0\n0 3 100Gbps 1us 0\n1 2 100Gbps 1us 0\n2 3 100Gbps 1us 0\n",
       4, "host 0 already has a link (line 3)"},
      {"host_without_link", "4 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", 2,
       "node 3 is not listed as a switch"},
      {"isolated_switch", "4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", 2,
       "switch 3 is not connected to any host"},
      // Blank lines and CRLF do not disturb line numbers.
      {"blank_lines", "\n3 1 2\n\n2\n\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 5\n", 7,
       "not modelled"},
      {"crlf", "3 1 2\r\n2\r\n0 2 100Gbps 1000ns 0\r\n1 2 100Gbps 1000ns 5\r\n", 4, "not modelled"},
  };
  for (const BadFile& bad : corpus) {
    SCOPED_TRACE(bad.name);
    const std::string path = write(std::string(bad.name) + ".txt", bad.text);
    const std::string err = error_of([&] { read_ns3_topology(path); });
    const std::string prefix = path + ":" + std::to_string(bad.line) + ": ";
    EXPECT_EQ(err.rfind(prefix, 0), 0u) << "want prefix '" << prefix << "', got: " << err;
    EXPECT_NE(err.find(bad.message), std::string::npos) << err;
  }
}

TEST_F(Ns3FormatTest, RejectsMalformedFlows) {
  const std::vector<BadFile> corpus = {
      {"empty", "\n\n", 2, "file is empty"},
      {"header_junk", "two\n", 1, "flow count"},
      {"header_fields", "2 3\n", 1, "flow count"},
      {"too_few", "3\n0 1 3 100 10 2\n1 0 3 100 10 2\n", 1, "says 3 flows but only 2"},
      {"same_endpoints", "2\n0 1 3 100 10 2\n4 4 3 100 10 2\n", 3, "both node 4"},
      {"negative_size", "1\n0 1 3 100 -5 2\n", 2, "size in bytes"},
      {"bad_size", "1\n0 1 3 100 1e6 2\n", 2, "size in bytes"},
      {"negative_start", "1\n0 1 3 100 5 -2\n", 2, "non-negative"},
      {"bad_start", "1\n0 1 3 100 5 2.0.1\n", 2, "start time in seconds"},
      {"start_unit", "1\n0 1 3 100 5 2s\n", 2, "start time in seconds"},
      {"bad_node", "1\nx 1 3 100 5 2\n", 2, "node ids"},
      {"bad_dport", "1\n0 1 3 70000 5 2\n", 2, "dport"},
      {"bad_pg", "1\n0 1 p 100 5 2\n", 2, "pg"},
      {"auto_fields", "1\n0 1 3 5\n", 2, "expected 6 fields"},
      {"auto_mismatch", "2\n0 1 3 100 5 2\n1 0 3 5 2\n", 3, "like line 2"},
      {"auto_mismatch_cw", "2\n0 1 3 5 2\r\n\n1 0 3 100 5 2\r\n", 4, "expected 5 fields"},
  };
  for (const BadFile& bad : corpus) {
    SCOPED_TRACE(bad.name);
    const std::string path = write(std::string(bad.name) + ".txt", bad.text);
    const std::string err = error_of([&] { read_ns3_flows(path, Ns3FlowFormat::kAuto); });
    const std::string prefix = path + ":" + std::to_string(bad.line) + ": ";
    EXPECT_EQ(err.rfind(prefix, 0), 0u) << "want prefix '" << prefix << "', got: " << err;
    EXPECT_NE(err.find(bad.message), std::string::npos) << err;
  }
}

TEST_F(Ns3FormatTest, MissingFileThrows) {
  const std::string path = (dir_ / "absent.txt").string();
  EXPECT_NE(error_of([&] { read_ns3_topology(path); }).find(path), std::string::npos);
  EXPECT_NE(error_of([&] { read_ns3_flows(path, Ns3FlowFormat::kAuto); }).find(path),
            std::string::npos);
}

TEST(Ns3Fct, NodeIpMatchesHpcc) {
  EXPECT_EQ(ns3_node_ip(0), 0x0b000001u);
  EXPECT_EQ(ns3_node_ip(1), 0x0b000101u);
  EXPECT_EQ(ns3_node_ip(255), 0x0b00ff01u);
  EXPECT_EQ(ns3_node_ip(256), 0x0b010001u);
  EXPECT_EQ(ns3_node_ip(300), 0x0b012c01u);
}

TEST(Ns3Fct, WritesHpccAndConweaveStyles) {
  const std::vector<FctLine> lines = {
      {300, 1, 10000, 100, 24576, 2000001234, 53210, 4321},
      {0, 256, 10001, 101, 1000000, 2000000000, 1000000, 90000},
  };
  std::ostringstream hpcc;
  write_ns3_fct(hpcc, lines);
  EXPECT_EQ(hpcc.str(),
            "0b012c01 0b000101 10000 100 24576 2000001234 53210 4321\n"
            "0b000001 0b010001 10001 101 1000000 2000000000 1000000 90000\n");
  std::ostringstream cw;
  write_ns3_fct(cw, lines, Ns3FctStyle::kConweave);
  EXPECT_EQ(cw.str(),
            "300 1 10000 100 24576 2000001234 53210 4321\n"
            "0 256 10001 101 1000000 2000000000 1000000 90000\n");
}

}  // namespace
}  // namespace rocelab
