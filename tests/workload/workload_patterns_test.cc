#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/flow_size_cdf.h"
#include "workload/flow_spec.h"
#include "workload/patterns.h"
#include "workload/poisson.h"
#include "workload/trace.h"

namespace rocelab {
namespace {

namespace fs = std::filesystem;

// Runs `fn` and returns the message of the exception of type E it throws ("" if none).
template <typename E, typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(E, expr, substr)                                               \
  do {                                                                              \
    const std::string msg_ = error_of<E>([&] { (void)(expr); });                    \
    EXPECT_NE(msg_.find(substr), std::string::npos)                                 \
        << "expected " #E " containing '" << (substr) << "', got '" << msg_ << "'"; \
  } while (0)

Time at_ps(int64_t ps) {
  return Time{ps};
}

// ---------------------------------------------------------------- incast

TEST(Incast, TotalSizeSplitEvenlyWithRemainderToFirstSenders) {
  IncastParams p;
  p.senders = {7, 3, 9, 4};
  p.receiver = 1;
  p.total_size = 1'000'003;  // 250'000 each, 3 bytes left over
  p.start = at_ps(12'345'678'901);
  const std::vector<FlowSpec> flows = generate_incast(p);
  ASSERT_EQ(flows.size(), 4u);
  const uint64_t expected_sizes[] = {250'001, 250'001, 250'001, 250'000};
  uint64_t total = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(flows[i].src_host, p.senders[i]);
    EXPECT_EQ(flows[i].dst_host, 1u);
    EXPECT_EQ(flows[i].size_bytes, expected_sizes[i]);
    EXPECT_EQ(flows[i].start.ps, 12'345'678'901);
    EXPECT_EQ(flows[i].tag, "incast");
    total += flows[i].size_bytes;
  }
  EXPECT_EQ(total, p.total_size);
}

TEST(Incast, SizePerSender) {
  IncastParams p;
  p.senders = {2, 3, 4};
  p.receiver = 0;
  p.size_per_sender = 65'536;
  p.start = Time::zero() + Delta::from_us(10);
  p.tag = "fanin";
  const std::vector<FlowSpec> flows = generate_incast(p);
  ASSERT_EQ(flows.size(), 3u);
  for (const FlowSpec& f : flows) {
    EXPECT_EQ(f.size_bytes, 65'536u);
    EXPECT_EQ(f.start, p.start);
    EXPECT_EQ(f.tag, "fanin");
  }
}

TEST(Incast, RepeatsAndIntervalExactToThePicosecond) {
  IncastParams p;
  p.senders = {10, 11, 12, 13, 14};
  p.receiver = 15;
  p.total_size = 12;  // 3,3,2,2,2
  p.start = at_ps(999'999'999'999);
  p.interval = Delta::from_ps(1'000'000'007);  // not a round number of anything
  p.repeats = 7;
  const std::vector<FlowSpec> flows = generate_incast(p);
  ASSERT_EQ(flows.size(), 35u);
  for (uint32_t r = 0; r < 7; ++r) {
    for (size_t i = 0; i < 5; ++i) {
      const FlowSpec& f = flows[r * 5 + i];
      EXPECT_EQ(f.start.ps, 999'999'999'999 + static_cast<int64_t>(r) * 1'000'000'007);
      EXPECT_EQ(f.src_host, p.senders[i]);
      EXPECT_EQ(f.dst_host, 15u);
      EXPECT_EQ(f.size_bytes, i < 2 ? 3u : 2u);  // total split per repeat
    }
  }
}

TEST(Incast, RejectsBadParams) {
  IncastParams good;
  good.senders = {1, 2, 3};
  good.receiver = 0;
  good.size_per_sender = 1000;
  ASSERT_NO_THROW(generate_incast(good));

  IncastParams p = good;
  p.senders.push_back(0);
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "receiver");
  p = good;
  p.senders.clear();
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "senders must not be empty");
  p = good;
  p.senders.push_back(2);
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "distinct");
  p = good;
  p.repeats = 0;
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "repeats");
  p = good;
  p.repeats = 2;  // interval still 0
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "interval must be > 0");
  p = good;
  p.interval = Delta::from_ps(-1);
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "interval must be >= 0");
  p = good;
  p.total_size = 3000;  // both set
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "exactly one of size_per_sender");
  p = good;
  p.size_per_sender = 0;  // neither set
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "exactly one of size_per_sender");
  p = good;
  p.size_per_sender = 0;
  p.total_size = 2;  // a sender would get 0 bytes
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "total_size");
  p = good;
  p.repeats = 4;  // 3 * Delta::max() is past Time::never()
  p.interval = Delta::max();
  EXPECT_ERROR(std::invalid_argument, generate_incast(p), "overflows");

  // Repeats == 1 ignores the interval.
  p = good;
  p.interval = Delta::from_us(5);
  EXPECT_EQ(generate_incast(p).size(), 3u);
}

// ---------------------------------------------------------------- burst

TEST(Burst, MatchesFlbSection2) {
  // FLB section 2: at 40 ms each of H3..H16 starts 40 flows of 64 KB to R2.
  BurstParams p;
  for (uint32_t h = 3; h <= 16; ++h) p.senders.push_back(h);
  p.receiver = 102;  // R2
  p.flows_per_sender = 40;
  p.flow_size = 64 * 1024;
  p.start = Time::zero() + Delta::from_ms(40);
  const std::vector<FlowSpec> flows = generate_burst(p);
  ASSERT_EQ(flows.size(), 14u * 40u);
  std::map<uint32_t, int> per_sender;
  uint64_t bytes = 0;
  for (const FlowSpec& f : flows) {
    EXPECT_EQ(f.start.ps, 40'000'000'000);
    EXPECT_EQ(f.dst_host, 102u);
    EXPECT_EQ(f.size_bytes, 65'536u);
    EXPECT_EQ(f.tag, "burst");
    ++per_sender[f.src_host];
    bytes += f.size_bytes;
  }
  ASSERT_EQ(per_sender.size(), 14u);
  for (const auto& [host, count] : per_sender) {
    EXPECT_GE(host, 3u);
    EXPECT_LE(host, 16u);
    EXPECT_EQ(count, 40);
  }
  EXPECT_EQ(bytes, 14u * 40u * 65'536u);  // 36.7 MB
}

TEST(Burst, SenderSpacingStaggersSenders) {
  BurstParams p;
  p.senders = {5, 6, 7};
  p.receiver = 1;
  p.flows_per_sender = 2;
  p.flow_size = 100;
  p.start = at_ps(1'000'003);
  p.sender_spacing = Delta::from_ps(333'337);
  p.tag = "b";
  const std::vector<FlowSpec> flows = generate_burst(p);
  ASSERT_EQ(flows.size(), 6u);
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(flows[i].src_host, p.senders[i / 2]);
    EXPECT_EQ(flows[i].start.ps, 1'000'003 + static_cast<int64_t>(i / 2) * 333'337);
    EXPECT_EQ(flows[i].tag, "b");
  }
}

// Proteus Figs. 2 and 4: the same burst several times, `interval` apart.
TEST(Burst, RepeatsIssueTheBurstEveryInterval) {
  BurstParams p;
  p.senders = {5, 6};
  p.receiver = 1;
  p.flows_per_sender = 2;
  p.flow_size = 200'000;
  p.start = at_ps(1'000'003);
  p.sender_spacing = Delta::from_ps(7);
  p.repeats = 3;
  p.interval = Delta::from_ps(500'001);
  const std::vector<FlowSpec> flows = generate_burst(p);
  ASSERT_EQ(flows.size(), 3u * 2u * 2u);
  for (size_t i = 0; i < flows.size(); ++i) {
    const int64_t burst = static_cast<int64_t>(i / 4), sender = static_cast<int64_t>(i / 2 % 2);
    EXPECT_EQ(flows[i].src_host, p.senders[static_cast<size_t>(sender)]);
    EXPECT_EQ(flows[i].dst_host, 1u);
    EXPECT_EQ(flows[i].size_bytes, 200'000u);
    EXPECT_EQ(flows[i].start.ps, 1'000'003 + burst * 500'001 + sender * 7) << i;
  }
}

TEST(Burst, RejectsBadParams) {
  BurstParams good;
  good.senders = {1, 2};
  good.receiver = 0;
  good.flows_per_sender = 3;
  good.flow_size = 10;
  ASSERT_EQ(generate_burst(good).size(), 6u);
  BurstParams p = good;
  p.senders = {1, 0};
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "receiver");
  p = good;
  p.senders.clear();
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "senders");
  p = good;
  p.flows_per_sender = 0;
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "flows_per_sender");
  p = good;
  p.flow_size = 0;
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "flow_size");
  p = good;
  p.sender_spacing = Delta::from_ps(-5);
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "sender_spacing");
  p = good;
  p.start = at_ps(-1);
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "start");
  p = good;
  p.repeats = 0;
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "repeats must be >= 1");
  p = good;
  p.repeats = 2;
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "interval must be > 0");
  p.interval = Delta::from_ps(-3);
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "interval must be > 0");
  p.repeats = 4;  // the last burst 3 x Delta::max() on: past Time::never()
  p.interval = Delta::max();
  EXPECT_ERROR(std::invalid_argument, generate_burst(p), "overflows; reduce interval");
  p.repeats = 2;
  p.interval = Delta::from_ps(10);
  EXPECT_EQ(generate_burst(p).size(), 12u);
}

// ---------------------------------------------------------------- explicit

TEST(Workload, ExplicitFlowsPassThrough) {
  const std::vector<ExplicitFlow> in = {
      {4, 5, 1'000, at_ps(300), {}},
      {5, 4, 2'000, at_ps(100), {}},  // earlier start after a later one: order is kept
      {1, 9, 3, at_ps(100), 2},       // a pinned path passes through too
  };
  const std::vector<FlowSpec> out = generate_explicit(in, "manual");
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].src_host, in[i].src);
    EXPECT_EQ(out[i].dst_host, in[i].dst);
    EXPECT_EQ(out[i].size_bytes, in[i].size_bytes);
    EXPECT_EQ(out[i].start, in[i].start);
    EXPECT_EQ(out[i].tag, "manual");
    EXPECT_EQ(out[i].path, in[i].path);
  }
  EXPECT_TRUE(generate_explicit({}, "x").empty());

  std::vector<ExplicitFlow> bad = in;
  bad[2].dst = 1;
  EXPECT_ERROR(std::invalid_argument, generate_explicit(bad, "t"), "flow 2 (1->1)");
  bad = in;
  bad[1].size_bytes = 0;
  EXPECT_ERROR(std::invalid_argument, generate_explicit(bad, "t"), "flow 1 (5->4): size_bytes");
  bad = in;
  bad[0].start = at_ps(-7);
  EXPECT_ERROR(std::invalid_argument, generate_explicit(bad, "t"), "flow 0 (4->5): start");
}

// ---------------------------------------------------------------- trace CSV

class TraceCsvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("rocelab_trace_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // The message of the runtime_error that loading `text` throws.
  std::string load_error(const std::string& text, std::string* path_out = nullptr) {
    const std::string path = write("bad.csv", text);
    if (path_out) *path_out = path;
    return error_of<std::runtime_error>([&] { load_flow_trace_csv(path, "t"); });
  }

  fs::path dir_;
};

TEST_F(TraceCsvTest, RoundTripsGeneratedFlows) {
  // Flows from the other generators, written out of time order with the columns in an
  // unusual order plus an ignored column, must load back identically (picoseconds via
  // fractional ns), stably sorted by start.
  IncastParams ip;
  ip.senders = {1, 2, 3};
  ip.receiver = 0;
  ip.total_size = 100'000;
  ip.start = at_ps(5'000'123);
  ip.interval = Delta::from_ps(2'000'001);
  ip.repeats = 3;
  std::vector<FlowSpec> flows = generate_incast(ip);
  for (const FlowSpec& f :
       generate_explicit({{7, 8, 4'294'967'296'000ULL, at_ps(6'000'000), {}}}, "explicit")) {
    flows.push_back(f);
  }
  std::reverse(flows.begin(), flows.end());

  std::string csv = "# exported flows\nsize_bytes,comment,tag,start_ns,dst,src\n";
  for (const FlowSpec& f : flows) {
    char start_ns[64];
    std::snprintf(start_ns, sizeof start_ns, "%lld.%03lld",
                  static_cast<long long>(f.start.ps / 1000),
                  static_cast<long long>(f.start.ps % 1000));
    csv += std::to_string(f.size_bytes) + ",x y," + f.tag + "," + start_ns + "," +
           std::to_string(f.dst_host) + "," + std::to_string(f.src_host) + "\n";
  }
  const std::vector<FlowSpec> back = load_flow_trace_csv(write("trace.csv", csv), "default");
  std::stable_sort(flows.begin(), flows.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  EXPECT_EQ(flows[3].tag, "explicit");  // sorted in between the repeats
  EXPECT_EQ(flows[4].src_host, 3u);     // reversed file order kept among equal starts
  ASSERT_EQ(back.size(), flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(back[i].src_host, flows[i].src_host);
    EXPECT_EQ(back[i].dst_host, flows[i].dst_host);
    EXPECT_EQ(back[i].size_bytes, flows[i].size_bytes);
    EXPECT_EQ(back[i].start, flows[i].start);
    EXPECT_EQ(back[i].tag, flows[i].tag);
  }
}

TEST_F(TraceCsvTest, TagColumnCommentsBlanksAndStableSort) {
  const std::string path = write("t.csv",
                                 "\xEF\xBB\xBF# comment before the header\r\n"
                                 "\r\n"
                                 " start_ns , src ,dst,size_bytes,tag\r\n"
                                 "300,1,2,1000,\r\n"
                                 "   # indented comment\r\n"
                                 "100,3,4,2000,victim\r\n"
                                 "\t\r\n"
                                 "300, 5 ,6,3000,\"quoted, with comma\"\r\n"
                                 "100,7,8,4000,\r\n"
                                 "2.5e3,9,10,5,\r\n"
                                 "0.0005,11,12,6,\r\n");
  const std::vector<FlowSpec> flows = load_flow_trace_csv(path, "trace");
  ASSERT_EQ(flows.size(), 6u);
  // Sorted by start; equal starts keep file order.
  const uint32_t want_src[] = {11, 3, 7, 1, 5, 9};
  const int64_t want_start_ps[] = {1, 100'000, 100'000, 300'000, 300'000, 2'500'000};
  const char* want_tag[] = {"trace", "victim", "trace", "trace", "quoted, with comma", "trace"};
  for (size_t i = 0; i < flows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(flows[i].src_host, want_src[i]);
    EXPECT_EQ(flows[i].dst_host, want_src[i] + 1);
    EXPECT_EQ(flows[i].start.ps, want_start_ps[i]);
    EXPECT_EQ(flows[i].tag, want_tag[i]);
  }
  EXPECT_EQ(flows[1].size_bytes, 2000u);

  // Header only: no flows, not an error.
  EXPECT_TRUE(
      load_flow_trace_csv(write("empty.csv", "src,dst,size_bytes,start_ns\n"), "t").empty());
}

TEST_F(TraceCsvTest, MalformedInputNamesFileAndLine) {
  std::string path;
  struct Case {
    std::string text;
    int line;
    std::string what;
  };
  const Case cases[] = {
      {"# c\nsrc,dst,size_bytes\n1,2,3\n", 2, "missing column 'start_ns'"},
      {"src,dst,bytes,start_ns\n", 1, "missing column 'size_bytes'"},
      {"src,dst,size_bytes,start_ns,src\n", 1, "column 'src' twice"},
      {"src,dst,size_bytes,start_ns\n1,2,3,4\n\n1,2,abc,4\n", 4, "'size_bytes' is not a number"},
      {"src,dst,size_bytes,start_ns\n1,2,3,4\n1,2,3,12ns\n", 3, "'start_ns' is not a number"},
      {"src,dst,size_bytes,start_ns\n1,2,3,-4\n", 2, "'start_ns' is negative"},
      {"src,dst,size_bytes,start_ns\n-1,2,3,4\n", 2, "'src' is negative"},
      {"src,dst,size_bytes,start_ns\n1,2,-3,4\n", 2, "'size_bytes' is negative"},
      {"src,dst,size_bytes,start_ns\n1,2,0,4\n", 2, "'size_bytes' is out of range"},
      {"src,dst,size_bytes,start_ns\n1,4294967296,3,4\n", 2, "'dst' is out of range"},
      {"src,dst,size_bytes,start_ns\n# ok\n5,5,3,4\n", 3, "src and dst are both 5"},
      {"src,dst,size_bytes,start_ns\n1,2,3\n", 2, "expected 4 fields"},
      {"src,dst,size_bytes,start_ns\n1,2,,4\n", 2, "'size_bytes' is empty"},
      {"src,dst,size_bytes,start_ns,tag\n1,2,3,4,\"open\n", 2, "unterminated quoted field"},
      {"src,dst,size_bytes,start_ns\n1,2,3,0x10\n", 2, "'start_ns' is not a number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string msg = load_error(c.text, &path);
    const std::string prefix = path + ":" + std::to_string(c.line) + ": ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "message '" << msg << "' should start with " << prefix;
    EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
  }

  // No header at all, and a missing file.
  const std::string msg = load_error("# only a comment\n\n", &path);
  EXPECT_EQ(msg.rfind(path + ": no header line", 0), 0u) << msg;
  const std::string missing = (dir_ / "nope.csv").string();
  EXPECT_ERROR(std::runtime_error, load_flow_trace_csv(missing, "t"), missing + ": cannot open");
}

// ---------------------------------------------------------------- lognormal arrivals

// Offered load of `flows` over [p.start, p.stop) as a fraction of the hosts' capacity.
double offered_load(const std::vector<FlowSpec>& flows, const PoissonParams& p) {
  double bytes = 0;
  for (const FlowSpec& f : flows) bytes += static_cast<double>(f.size_bytes);
  return bytes * 8 /
         ((p.stop - p.start).seconds() * static_cast<double>(p.host_rate_bps) *
          static_cast<double>(p.hosts.size()));
}

PoissonParams small_flow_params(ArrivalProcess arrivals, Delta window) {
  PoissonParams p;
  for (uint32_t h = 0; h < 16; ++h) {
    p.hosts.push_back(h);
    p.host_rack.push_back(h / 4);
  }
  p.host_rate_bps = gbps(100);
  p.load = 0.6;
  p.start = Time::zero() + Delta::from_ms(1);
  p.stop = p.start + window;
  p.arrivals = arrivals;
  return p;
}

// Sizes uniform in [1000, 3000] bytes: mean 2000, little variance, so the load error is
// dominated by the arrival process. Lognormal gaps with sigma 2 have CV^2 = e^4 - 1 ~ 54,
// so the relative error of the flow count is ~7.3 / sqrt(flows): over 40 ms (2.4M flows) the
// load's standard deviation across seeds is ~0.5%, putting the 2% bound > 4 sigma away.
const FlowSizeCdf& small_flows() {
  static const FlowSizeCdf cdf = FlowSizeCdf::from_points({{1000, 0}, {3000, 100}}, "small");
  return cdf;
}

TEST(Poisson, LognormalAndPoissonOfferedLoadMatchTarget) {
  for (ArrivalProcess arrivals : {ArrivalProcess::kPoisson, ArrivalProcess::kLognormal}) {
    SCOPED_TRACE(arrivals == ArrivalProcess::kPoisson ? "poisson" : "lognormal");
    // Poisson converges much faster; lognormal needs ~2.4M flows for a ~0.5% spread.
    const Delta window = Delta::from_ms(arrivals == ArrivalProcess::kPoisson ? 10 : 40);
    const PoissonParams p = small_flow_params(arrivals, window);
    RandomStream rng(2024, "poisson");
    const std::vector<FlowSpec> flows = generate_poisson(p, small_flows(), rng);
    ASSERT_GT(flows.size(), arrivals == ArrivalProcess::kPoisson ? 500'000u : 2'000'000u);
    EXPECT_NEAR(offered_load(flows, p), 0.6, 0.6 * 0.02) << flows.size() << " flows";
  }
}

TEST(Poisson, LognormalGapsHaveSameMeanAndAreBurstier) {
  const Delta window = Delta::from_ms(20);
  std::map<ArrivalProcess, double> cv2;
  std::map<ArrivalProcess, double> mean_gap;
  for (ArrivalProcess arrivals : {ArrivalProcess::kPoisson, ArrivalProcess::kLognormal}) {
    PoissonParams p = small_flow_params(arrivals, window);
    p.hosts = {0, 1};
    p.host_rack = {0, 0};
    RandomStream rng(99, "poisson");
    const std::vector<FlowSpec> flows = generate_poisson(p, small_flows(), rng);
    // Gaps of host 0 (flows are sorted by start).
    double sum = 0, sum_sq = 0, n = 0;
    Time prev = Time::never();
    for (const FlowSpec& f : flows) {
      if (f.src_host != 0) continue;
      if (prev != Time::never()) {
        const double g = (f.start - prev).seconds();
        sum += g;
        sum_sq += g * g;
        ++n;
      }
      prev = f.start;
    }
    ASSERT_GT(n, 10'000);
    mean_gap[arrivals] = sum / n;
    cv2[arrivals] = (sum_sq / n) / (mean_gap[arrivals] * mean_gap[arrivals]) - 1;
  }
  const double expected_gap = 8.0 * 2000 / (0.6 * 100e9);  // 0.267 us
  EXPECT_NEAR(mean_gap[ArrivalProcess::kPoisson] / expected_gap, 1.0, 0.03);
  EXPECT_NEAR(mean_gap[ArrivalProcess::kLognormal] / expected_gap, 1.0, 0.1);
  EXPECT_NEAR(cv2[ArrivalProcess::kPoisson], 1.0, 0.1);  // exponential: CV = 1
  EXPECT_GT(cv2[ArrivalProcess::kLognormal], 10.0);      // e^4 - 1 ~ 54, heavy-tailed
}

TEST(Poisson, LognormalIsDeterministicAndValidatesSigma) {
  PoissonParams p = small_flow_params(ArrivalProcess::kLognormal, Delta::from_ms(1));
  RandomStream a(5, "poisson"), b(5, "poisson");
  const auto fa = generate_poisson(p, small_flows(), a);
  const auto fb = generate_poisson(p, small_flows(), b);
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t i = 0; i < fa.size(); ++i) {
    EXPECT_EQ(fa[i].start, fb[i].start);
    EXPECT_EQ(fa[i].src_host, fb[i].src_host);
    EXPECT_EQ(fa[i].dst_host, fb[i].dst_host);
    EXPECT_EQ(fa[i].size_bytes, fb[i].size_bytes);
  }
  // sigma 0: evenly spaced arrivals with the Poisson mean gap.
  p.lognormal_sigma = 0;
  p.hosts = {0, 1};
  p.host_rack = {0, 0};
  RandomStream c(5, "poisson");
  Time prev = Time::never();
  for (const FlowSpec& f : generate_poisson(p, small_flows(), c)) {
    if (f.src_host != 0) continue;
    if (prev != Time::never()) {
      EXPECT_NEAR((f.start - prev).ps, 266'667, 1);
    }
    prev = f.start;
  }
  for (double sigma : {-0.5, 5.5, std::nan("")}) {
    p.lognormal_sigma = sigma;
    EXPECT_ERROR(std::invalid_argument, generate_poisson(p, small_flows(), c), "lognormal_sigma");
  }
  // Ignored for Poisson arrivals.
  p.arrivals = ArrivalProcess::kPoisson;
  EXPECT_NO_THROW(generate_poisson(p, small_flows(), c));
}

}  // namespace
}  // namespace rocelab
