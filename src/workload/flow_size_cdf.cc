#include "workload/flow_size_cdf.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace rocelab {

namespace {

constexpr const char* kExpected =
    "expected 'size_bytes cumulative_percent' with size >= 0 and percent in [0,100]";

// `where` is "file:line" or "name: point N"; every message starts with it.
[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// Parses one finite double starting at `p`; returns false on junk, NaN or infinity.
bool parse_double(const char*& p, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(p, &end);
  if (end == p || errno == ERANGE || !std::isfinite(out)) return false;
  p = end;
  return true;
}

// Two numbers and nothing else on the line.
bool parse_point(const std::string& line, double& size_bytes, double& percent) {
  const char* p = line.c_str();
  if (!parse_double(p, size_bytes) || !parse_double(p, percent)) return false;
  while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
  return *p == '\0';
}

bool is_blank_or_comment(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

// Throws unless `pts` is a valid CDF; `where(i)` locates point i (0-based) for messages.
void validate(const std::vector<std::pair<double, double>>& pts,
              const std::function<std::string(size_t)>& where) {
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto [size_bytes, percent] = pts[i];
    if (!std::isfinite(size_bytes) || !std::isfinite(percent) || size_bytes < 0 || percent < 0 ||
        percent > 100) {
      fail(where(i),
           std::string(kExpected) + ", got '" + fmt(size_bytes) + " " + fmt(percent) + "'");
    }
    if (i > 0 && size_bytes < pts[i - 1].first) {
      fail(where(i), "size " + fmt(size_bytes) + " is below the previous size " +
                         fmt(pts[i - 1].first) + "; expected non-decreasing sizes");
    }
    if (i > 0 && percent < pts[i - 1].second) {
      fail(where(i), "percent " + fmt(percent) + " is below the previous percent " +
                         fmt(pts[i - 1].second) + "; expected non-decreasing percents");
    }
  }
  if (pts.back().second != 100) {
    fail(where(pts.size() - 1), "last percent is " + fmt(pts.back().second) + ", expected 100");
  }
  if (pts.back().first <= 0) {
    fail(where(pts.size() - 1), "largest size is 0; expected a positive size");
  }
}

}  // namespace

FlowSizeCdf FlowSizeCdf::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open CDF file");

  std::vector<std::pair<double, double>> pts;
  std::vector<int> line_nos;  // source line of each point, for error messages
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (is_blank_or_comment(line)) continue;
    double size_bytes = 0;
    double percent = 0;
    if (!parse_point(line, size_bytes, percent)) {
      fail(path + ":" + std::to_string(line_no), std::string(kExpected) + ", got '" + line + "'");
    }
    pts.emplace_back(size_bytes, percent);
    line_nos.push_back(line_no);
  }
  if (in.bad()) fail(path, "read error");
  if (pts.empty()) {
    fail(path, "no points (empty file); expected lines 'size_bytes cumulative_percent'");
  }

  // Check here too so that errors name the file line rather than the point index.
  validate(pts, [&](size_t i) { return path + ":" + std::to_string(line_nos[i]); });
  // Labels want the workload's name, not where the file happened to live.
  return from_points(std::move(pts), std::filesystem::path(path).stem().string());
}

FlowSizeCdf FlowSizeCdf::from_points(std::vector<std::pair<double, double>> pts, std::string name) {
  if (pts.empty()) fail(name, "no points; expected 'size_bytes cumulative_percent' pairs");
  validate(pts, [&](size_t i) { return name + ": point " + std::to_string(i + 1); });

  FlowSizeCdf cdf;
  cdf.name_ = std::move(name);
  // Point mass at the first size, then each segment contributes its share times its midpoint
  // (uniform within the segment under linear interpolation).
  double mean = pts[0].first * pts[0].second / 100.0;
  for (size_t i = 1; i < pts.size(); ++i) {
    const double share = (pts[i].second - pts[i - 1].second) / 100.0;
    mean += share * 0.5 * (pts[i].first + pts[i - 1].first);
  }
  cdf.mean_bytes_ = mean;

  cdf.size_bytes_.reserve(pts.size());
  cdf.percent_.reserve(pts.size());
  for (const auto& [size_bytes, percent] : pts) {
    cdf.size_bytes_.push_back(size_bytes);
    cdf.percent_.push_back(percent);
  }
  return cdf;
}

uint64_t FlowSizeCdf::sample(RandomStream& rng) const {
  const double u = rng.uniform() * 100.0;
  // First point whose percent exceeds u; the segment (i-1, i) then has positive width.
  const auto it = std::upper_bound(percent_.begin(), percent_.end(), u);
  double size_bytes;
  if (it == percent_.begin()) {
    size_bytes = size_bytes_.front();  // the point mass at the first size
  } else if (it == percent_.end()) {
    size_bytes = size_bytes_.back();  // u == 100 cannot happen, but be safe
  } else {
    const size_t i = static_cast<size_t>(it - percent_.begin());
    const double frac = (u - percent_[i - 1]) / (percent_[i] - percent_[i - 1]);
    size_bytes = size_bytes_[i - 1] + frac * (size_bytes_[i] - size_bytes_[i - 1]);
  }
  const auto rounded = static_cast<uint64_t>(std::llround(size_bytes));
  return std::max<uint64_t>(rounded, 1);
}

}  // namespace rocelab
