#include "workload/trace.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

namespace rocelab {

namespace {

constexpr const char* kRequiredColumns = "src,dst,size_bytes,start_ns";

class TraceError {
 public:
  TraceError(const std::string& path, size_t line) : path_(path), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line_) + ": " + what);
  }

 private:
  const std::string& path_;
  size_t line_;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

bool is_blank_or_comment(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

// Splits one CSV line (no line break inside) into trimmed, unquoted fields.
std::vector<std::string> split_fields(const std::string& line, const TraceError& err) {
  std::vector<std::string> fields;
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && is_space(line[i])) ++i;
    std::string field;
    if (i < n && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      if (!closed) err.fail("unterminated quoted field " + std::to_string(fields.size() + 1));
      while (i < n && is_space(line[i])) ++i;
      if (i < n && line[i] != ',') {
        err.fail("unexpected text after quoted field " + std::to_string(fields.size() + 1));
      }
    } else {
      const size_t begin = i;
      while (i < n && line[i] != ',') ++i;
      size_t end = i;
      while (end > begin && is_space(line[end - 1])) --end;
      field = line.substr(begin, end - begin);
    }
    fields.push_back(std::move(field));
    if (i >= n) break;
    ++i;  // the comma
  }
  return fields;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Unsigned decimal integer in [min, max].
uint64_t parse_uint(const std::string& value, const std::string& column, uint64_t min, uint64_t max,
                    const TraceError& err) {
  const std::string quoted = "'" + value + "'";
  if (value.empty()) err.fail("column '" + column + "' is empty; expected an integer");
  if (value[0] == '-') {
    err.fail("column '" + column + "' is negative (" + quoted +
             "); expected an integer >= " + std::to_string(min));
  }
  const std::string digits = value[0] == '+' ? value.substr(1) : value;
  if (!all_digits(digits)) {
    err.fail("column '" + column + "' is not a number (" + quoted +
             "); expected a non-negative integer");
  }
  uint64_t v = 0;
  for (char c : digits) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      err.fail("column '" + column + "' is out of range (" + quoted + "); expected at most " +
               std::to_string(max));
    }
    v = v * 10 + d;
  }
  if (v < min || v > max) {
    err.fail("column '" + column + "' is out of range (" + quoted + "); expected " +
             std::to_string(min) + ".." + std::to_string(max));
  }
  return v;
}

// Non-negative nanoseconds to exact picoseconds: plain decimals are converted digit by
// digit (rounding half up below 1 ps), anything else strtod accepts (exponents) via double.
Time parse_start_ns(const std::string& value, const TraceError& err) {
  const std::string quoted = "'" + value + "'";
  constexpr int64_t kMaxPs = Time::never().ps;
  if (value.empty()) err.fail("column 'start_ns' is empty; expected a number of nanoseconds");
  if (value[0] == '-') {
    err.fail("column 'start_ns' is negative (" + quoted + "); expected a time >= 0");
  }
  const std::string body = value[0] == '+' ? value.substr(1) : value;
  const size_t dot = body.find('.');
  const std::string int_part = body.substr(0, dot);
  const std::string frac_part = dot == std::string::npos ? "" : body.substr(dot + 1);
  const bool plain = (int_part.empty() || all_digits(int_part)) &&
                     (frac_part.empty() || all_digits(frac_part)) &&
                     !(int_part.empty() && frac_part.empty());
  if (plain) {
    __int128 ps = 0;
    for (char c : int_part) {
      ps = ps * 10 + (c - '0');
      if (ps > kMaxPs) err.fail("column 'start_ns' is too large (" + quoted + ")");
    }
    ps *= 1000;
    int64_t scale = 100;
    for (size_t k = 0; k < frac_part.size() && k < 3; ++k, scale /= 10) {
      ps += static_cast<__int128>(frac_part[k] - '0') * scale;
    }
    if (frac_part.size() > 3 && frac_part[3] >= '5') ++ps;
    if (ps > kMaxPs) err.fail("column 'start_ns' is too large (" + quoted + ")");
    return Time{static_cast<int64_t>(ps)};
  }
  // Otherwise only decimal scientific notation (no hex, inf or nan).
  const bool scientific = value.find_first_of("eE") != std::string::npos &&
                          value.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  errno = 0;
  const double ns = scientific ? std::strtod(value.c_str(), &end) : 0.0;
  if (!scientific || end == value.c_str() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(ns)) {
    err.fail("column 'start_ns' is not a number (" + quoted +
             "); expected a non-negative number of nanoseconds");
  }
  if (ns < 0) err.fail("column 'start_ns' is negative (" + quoted + "); expected a time >= 0");
  const double ps = std::round(ns * 1000.0);
  if (ps > static_cast<double>(kMaxPs)) {
    err.fail("column 'start_ns' is too large (" + quoted + ")");
  }
  return Time{static_cast<int64_t>(ps)};
}

struct Columns {
  size_t count = 0;
  std::optional<size_t> src, dst, size_bytes, start_ns, tag;
};

Columns parse_header(const std::string& line, const TraceError& err) {
  const std::vector<std::string> names = split_fields(line, err);
  Columns cols;
  cols.count = names.size();
  const std::pair<const char*, std::optional<size_t> Columns::*> known[] = {
      {"src", &Columns::src},
      {"dst", &Columns::dst},
      {"size_bytes", &Columns::size_bytes},
      {"start_ns", &Columns::start_ns},
      {"tag", &Columns::tag},
  };
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& [name, member] : known) {
      if (names[i] != name) continue;
      if ((cols.*member).has_value()) {
        err.fail("header names column '" + names[i] + "' twice (fields " +
                 std::to_string(*(cols.*member) + 1) + " and " + std::to_string(i + 1) + ")");
      }
      cols.*member = i;
    }
  }
  for (const auto& [name, member] : known) {
    if (std::string(name) == "tag") continue;
    if (!(cols.*member).has_value()) {
      err.fail(std::string("header is missing column '") + name +
               "'; expected a header with at least " + kRequiredColumns + " (any order), got '" +
               line + "'");
    }
  }
  return cols;
}

}  // namespace

std::vector<FlowSpec> load_flow_trace_csv(const std::string& path, const std::string& tag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open flow trace");

  std::vector<FlowSpec> flows;
  std::optional<Columns> cols;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (is_blank_or_comment(line)) continue;
    const TraceError err(path, line_no);
    if (!cols) {
      cols = parse_header(line, err);
      continue;
    }
    const std::vector<std::string> fields = split_fields(line, err);
    if (fields.size() != cols->count) {
      err.fail("expected " + std::to_string(cols->count) + " fields as in the header, got " +
               std::to_string(fields.size()));
    }
    FlowSpec f;
    constexpr uint64_t kMaxNode = std::numeric_limits<uint32_t>::max();
    f.src_host = static_cast<uint32_t>(parse_uint(fields[*cols->src], "src", 0, kMaxNode, err));
    f.dst_host = static_cast<uint32_t>(parse_uint(fields[*cols->dst], "dst", 0, kMaxNode, err));
    f.size_bytes = parse_uint(fields[*cols->size_bytes], "size_bytes", 1,
                              std::numeric_limits<uint64_t>::max(), err);
    f.start = parse_start_ns(fields[*cols->start_ns], err);
    if (f.src_host == f.dst_host) {
      err.fail("src and dst are both " + std::to_string(f.src_host) + "; expected distinct hosts");
    }
    f.tag = cols->tag && !fields[*cols->tag].empty() ? fields[*cols->tag] : tag;
    flows.push_back(std::move(f));
  }
  if (in.bad())
    throw std::runtime_error(path + ": read error after line " + std::to_string(line_no));
  if (!cols) {
    throw std::runtime_error(path + ": no header line; expected a header with at least " +
                             std::string(kRequiredColumns));
  }

  std::stable_sort(flows.begin(), flows.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return flows;
}

}  // namespace rocelab
