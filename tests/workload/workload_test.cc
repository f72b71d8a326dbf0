#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/flow_size_cdf.h"
#include "workload/flow_spec.h"
#include "workload/poisson.h"

namespace rocelab {
namespace {

namespace fs = std::filesystem;

fs::path workloads_dir() {
  return fs::path(ROCELAB_SOURCE_DIR) / "workloads";  // the repository's own copies
}

FlowSizeCdf load_workload(const std::string& file) {
  return FlowSizeCdf::load((workloads_dir() / file).string());
}

// Means from the table in workloads/README.md (rounded to whole bytes).
const std::map<std::string, double> kReadmeMeanBytes = {
    {"websearch.cdf", 1711250},        {"datamining_vl2.cdf", 12658199},
    {"datamining_xpass.cdf", 7487884}, {"fb_webserver.cdf", 62483},
    {"fb_cachefollower.cdf", 687658},  {"fb_hadoop_homa.cdf", 134854},
    {"fb_hadoop_hpcc.cdf", 120421},    {"fb_hadoop2015.cdf", 121849},
    {"alistorage2019.cdf", 40870},     {"google_rpc2008.cdf", 2892},
    {"solar2022.cdf", 39424},
};

TEST(FlowSizeCdf, ParsesEveryWorkloadFile) {
  int num_files = 0;
  for (const auto& entry : fs::directory_iterator(workloads_dir())) {
    if (entry.path().extension() != ".cdf") continue;
    ++num_files;
    SCOPED_TRACE(entry.path().string());
    const FlowSizeCdf cdf = FlowSizeCdf::load(entry.path().string());
    EXPECT_EQ(cdf.name(), entry.path().stem().string());
    EXPECT_GT(cdf.num_points(), 1u);
    EXPECT_GT(cdf.mean_bytes(), 0);
    // Every file should be covered by the README table.
    EXPECT_TRUE(kReadmeMeanBytes.count(entry.path().filename().string()));
  }
  EXPECT_EQ(num_files, static_cast<int>(kReadmeMeanBytes.size()));
}

TEST(FlowSizeCdf, MeanMatchesReadme) {
  for (const auto& [file, mean_bytes] : kReadmeMeanBytes) {
    SCOPED_TRACE(file);
    EXPECT_NEAR(load_workload(file).mean_bytes(), mean_bytes, 1.0);
  }
}

TEST(FlowSizeCdf, SampleMeanMatchesAnalyticMean) {
  for (const std::string file : {"websearch.cdf", "fb_webserver.cdf"}) {
    SCOPED_TRACE(file);
    const FlowSizeCdf cdf = load_workload(file);
    RandomStream rng(42, "cdf_test");
    constexpr int kSamples = 2'000'000;
    double sum_bytes = 0;
    for (int i = 0; i < kSamples; ++i) sum_bytes += static_cast<double>(cdf.sample(rng));
    const double sample_mean = sum_bytes / kSamples;
    EXPECT_NEAR(sample_mean / cdf.mean_bytes(), 1.0, 0.02) << "sample mean " << sample_mean;
  }
}

TEST(FlowSizeCdf, InterpolatesAndHonoursPointMass) {
  // 40% exactly 100 B, then uniform on [100, 300].
  const FlowSizeCdf cdf = FlowSizeCdf::from_points({{100, 40}, {300, 100}}, "toy");
  EXPECT_EQ(cdf.name(), "toy");
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 0.4 * 100 + 0.6 * 200);
  RandomStream rng(1, "toy");
  int at_first = 0;
  constexpr int kSamples = 100'000;
  for (int i = 0; i < kSamples; ++i) {
    const uint64_t size_bytes = cdf.sample(rng);
    EXPECT_GE(size_bytes, 100u);
    EXPECT_LE(size_bytes, 300u);
    if (size_bytes == 100) ++at_first;
  }
  EXPECT_NEAR(static_cast<double>(at_first) / kSamples, 0.4, 0.01);
}

TEST(FlowSizeCdf, SamplesAtLeastOneByte) {
  const FlowSizeCdf cdf = FlowSizeCdf::from_points({{0, 50}, {1, 100}}, "tiny");
  RandomStream rng(3, "tiny");
  for (int i = 0; i < 1000; ++i) EXPECT_GE(cdf.sample(rng), 1u);
}

TEST(FlowSizeCdf, FromPointsRejectsBadInput) {
  using Pts = std::vector<std::pair<double, double>>;
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{}, "x"), std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{0, 0}, {10, 99}}, "x"), std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{10, 0}, {5, 100}}, "x"), std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{0, 50}, {10, 40}, {20, 100}}, "x"),
               std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{-1, 0}, {10, 100}}, "x"), std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{0, 0}, {10, 101}}, "x"), std::runtime_error);
  EXPECT_THROW(FlowSizeCdf::from_points(Pts{{0, 100}}, "x"), std::runtime_error);
  EXPECT_NO_THROW(FlowSizeCdf::from_points(Pts{{500, 100}}, "x"));
}

class MalformedCdfTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& p : written_) fs::remove(p);
  }

  std::string write(const std::string& file, const std::string& contents) {
    const fs::path p = fs::temp_directory_path() / ("rocelab_workload_test_" + file);
    std::ofstream(p) << contents;
    written_.push_back(p);
    return p.string();
  }

  // The error message must name the file and (when given) the line.
  void expect_error(const std::string& file, const std::string& contents, int line,
                    const std::string& fragment) {
    SCOPED_TRACE(file);
    const std::string path = write(file, contents);
    try {
      FlowSizeCdf::load(path);
      ADD_FAILURE() << "no exception for " << file;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      const std::string where = line > 0 ? path + ":" + std::to_string(line) + ":" : path + ":";
      EXPECT_EQ(msg.rfind(where, 0), 0u) << msg;
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    }
  }

  std::vector<fs::path> written_;
};

TEST_F(MalformedCdfTest, ReportsFileAndLine) {
  expect_error("empty.cdf", "", 0, "empty");
  expect_error("only_comments.cdf", "# nothing\n\n", 0, "empty");
  expect_error("junk.cdf", "0 0\n100 50\nabc\n200 100\n", 3, "got 'abc'");
  expect_error("trailing.cdf", "0 0\n100 50x\n200 100\n", 2, "expected 'size_bytes");
  expect_error("one_field.cdf", "0 0\n100\n200 100\n", 2, "expected 'size_bytes");
  expect_error("three_fields.cdf", "0 0\n100 50 7\n200 100\n", 2, "expected 'size_bytes");
  // Comments and blanks still count towards line numbers.
  expect_error("size_down.cdf", "# header\n0 0\n\n200 50\n100 100\n", 5, "non-decreasing sizes");
  expect_error("pct_down.cdf", "0 0\n100 60\n200 50\n300 100\n", 3, "non-decreasing percents");
  expect_error("not_100.cdf", "0 0\n100 50\n200 99.5\n", 3, "expected 100");
  expect_error("negative.cdf", "-5 0\n100 100\n", 1, "size >= 0");
  expect_error("pct_over.cdf", "0 0\n100 150\n", 2, "percent in [0,100]");
  expect_error("nan.cdf", "0 0\nnan 50\n100 100\n", 2, "expected 'size_bytes");
  EXPECT_THROW(FlowSizeCdf::load("/nonexistent/rocelab/none.cdf"), std::runtime_error);
}

TEST_F(MalformedCdfTest, AcceptsCommentsBlanksAndCrlf) {
  const std::string path = write("ok.cdf", "# comment\r\n\r\n0 0\r\n  # indented\n100 100");
  const FlowSizeCdf cdf = FlowSizeCdf::load(path);
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 50);
}

PoissonParams sixteen_hosts(double load, Time stop) {
  PoissonParams p;
  for (uint32_t i = 0; i < 16; ++i) {
    p.hosts.push_back(100 + i);  // node ids need not be indices
    p.host_rack.push_back(i / 4);
  }
  p.host_rate_bps = gbps(100);
  p.load = load;
  p.start = Time::zero() + Delta::from_ms(1);
  p.stop = stop;
  return p;
}

TEST(Poisson, OfferedLoadMatchesTarget) {
  const FlowSizeCdf cdf = load_workload("fb_webserver.cdf");
  const PoissonParams p = sixteen_hosts(0.5, Time::zero() + Delta::from_ms(101));
  RandomStream rng(7, "poisson");
  const std::vector<FlowSpec> flows = generate_poisson(p, cdf, rng);
  ASSERT_GT(flows.size(), 50'000u);

  double total_bytes = 0;
  std::map<uint32_t, double> bytes_by_src;
  for (const FlowSpec& f : flows) {
    EXPECT_GE(f.start, p.start);
    EXPECT_LT(f.start, p.stop);
    EXPECT_NE(f.src_host, f.dst_host);
    EXPECT_EQ(f.tag, "background");
    total_bytes += static_cast<double>(f.size_bytes);
    bytes_by_src[f.src_host] += static_cast<double>(f.size_bytes);
  }
  const double window_sec = (p.stop - p.start).seconds();
  const double offered =
      total_bytes * 8 /
      (window_sec * static_cast<double>(p.host_rate_bps) * static_cast<double>(p.hosts.size()));
  EXPECT_NEAR(offered, 0.5, 0.5 * 0.02) << flows.size() << " flows";
  EXPECT_EQ(bytes_by_src.size(), p.hosts.size());  // every host sends
}

TEST(Poisson, SortedByStartThenSrc) {
  const FlowSizeCdf cdf = load_workload("websearch.cdf");
  const PoissonParams p = sixteen_hosts(0.3, Time::zero() + Delta::from_ms(50));
  RandomStream rng(11, "poisson");
  const std::vector<FlowSpec> flows = generate_poisson(p, cdf, rng);
  ASSERT_FALSE(flows.empty());
  for (size_t i = 1; i < flows.size(); ++i) {
    const FlowSpec& a = flows[i - 1];
    const FlowSpec& b = flows[i];
    EXPECT_TRUE(a.start < b.start || (a.start == b.start && a.src_host <= b.src_host));
  }
}

TEST(Poisson, UniformDestinationsWhenNoRackPreference) {
  const FlowSizeCdf cdf = load_workload("fb_webserver.cdf");
  const PoissonParams p = sixteen_hosts(0.5, Time::zero() + Delta::from_ms(21));
  RandomStream rng(5, "poisson");
  const std::vector<FlowSpec> flows = generate_poisson(p, cdf, rng);
  size_t intra = 0;
  for (const FlowSpec& f : flows) {
    ASSERT_NE(f.src_host, f.dst_host);
    if ((f.src_host - 100) / 4 == (f.dst_host - 100) / 4) ++intra;
  }
  // 3 of the 15 other hosts share the sender's rack.
  EXPECT_NEAR(static_cast<double>(intra) / static_cast<double>(flows.size()), 3.0 / 15.0, 0.01);
}

TEST(Poisson, IntraRackFraction) {
  const FlowSizeCdf cdf = load_workload("fb_webserver.cdf");
  PoissonParams p = sixteen_hosts(0.5, Time::zero() + Delta::from_ms(21));
  p.intra_rack_fraction = 0.25;
  RandomStream rng(9, "poisson");
  const std::vector<FlowSpec> flows = generate_poisson(p, cdf, rng);
  ASSERT_GT(flows.size(), 10'000u);
  size_t intra = 0;
  for (const FlowSpec& f : flows) {
    ASSERT_NE(f.src_host, f.dst_host);
    if ((f.src_host - 100) / 4 == (f.dst_host - 100) / 4) ++intra;
  }
  EXPECT_NEAR(static_cast<double>(intra) / static_cast<double>(flows.size()), 0.25, 0.01);
}

TEST(Poisson, IntraRackFallsBackWhenAClassIsEmpty) {
  const FlowSizeCdf cdf = load_workload("fb_webserver.cdf");
  // Host 0 is alone in rack 0, so it can only send off-rack even with fraction 1.
  PoissonParams p;
  p.hosts = {0, 1, 2};
  p.host_rack = {0, 1, 1};
  p.host_rate_bps = gbps(100);
  p.load = 0.5;
  p.start = Time::zero();
  p.stop = Time::zero() + Delta::from_ms(1);
  p.intra_rack_fraction = 1.0;
  RandomStream rng(2, "poisson");
  for (const FlowSpec& f : generate_poisson(p, cdf, rng)) {
    if (f.src_host == 0) {
      EXPECT_NE(f.dst_host, 0u);
    } else {
      EXPECT_EQ(f.dst_host, 3 - f.src_host);  // 1 <-> 2, their rack mate
    }
  }
  // Fraction 0 with a single rack: everything must fall back to same-rack.
  p.host_rack = {0, 0, 0};
  p.intra_rack_fraction = 0;
  RandomStream rng2(2, "poisson");
  const auto flows = generate_poisson(p, cdf, rng2);
  EXPECT_FALSE(flows.empty());
  for (const FlowSpec& f : flows) EXPECT_NE(f.src_host, f.dst_host);
}

TEST(Poisson, SameSeedSameOutput) {
  const FlowSizeCdf cdf = load_workload("websearch.cdf");
  PoissonParams p = sixteen_hosts(0.4, Time::zero() + Delta::from_ms(20));
  p.intra_rack_fraction = 0.5;
  p.tag = "bg";
  RandomStream rng_a(123, "poisson");
  RandomStream rng_b(123, "poisson");
  RandomStream rng_c(124, "poisson");
  const auto a = generate_poisson(p, cdf, rng_a);
  const auto b = generate_poisson(p, cdf, rng_b);
  const auto c = generate_poisson(p, cdf, rng_c);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].src_host, b[i].src_host);
    EXPECT_EQ(a[i].dst_host, b[i].dst_host);
    EXPECT_EQ(a[i].size_bytes, b[i].size_bytes);
    EXPECT_EQ(a[i].start, b[i].start);
    EXPECT_EQ(a[i].tag, "bg");
  }
  bool differs = a.size() != c.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].start != c[i].start;
  EXPECT_TRUE(differs);
}

TEST(Poisson, RejectsBadParams) {
  const FlowSizeCdf cdf = load_workload("websearch.cdf");
  PoissonParams p = sixteen_hosts(0.5, Time::zero() + Delta::from_ms(2));
  RandomStream rng(1, "poisson");
  PoissonParams bad = p;
  bad.host_rack.pop_back();
  EXPECT_THROW(generate_poisson(bad, cdf, rng), std::invalid_argument);
  bad = p;
  bad.load = 0;
  EXPECT_THROW(generate_poisson(bad, cdf, rng), std::invalid_argument);
  bad = p;
  bad.hosts = {1};
  bad.host_rack = {0};
  EXPECT_THROW(generate_poisson(bad, cdf, rng), std::invalid_argument);
  bad = p;
  bad.intra_rack_fraction = 1.5;
  EXPECT_THROW(generate_poisson(bad, cdf, rng), std::invalid_argument);
  // An empty window is not an error, just no flows.
  bad = p;
  bad.stop = bad.start;
  EXPECT_TRUE(generate_poisson(bad, cdf, rng).empty());
}

}  // namespace
}  // namespace rocelab
