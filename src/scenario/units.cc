#include "scenario/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace rocelab {

namespace {

using i128 = __int128;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "12", "2.5", "1e9", "3.25e-3" -> mantissa * 10^exp10, exactly. Leading digits only; the
// rest of the text (the unit) is returned in *rest.
bool parse_decimal(std::string_view s, i128* mantissa, int* exp10, std::string_view* rest) {
  size_t i = 0;
  i128 m = 0;
  int e = 0, digits = 0;
  auto push = [&](char c) {
    if (m > (i128{1} << 100)) return false;  // far beyond any sensible value
    m = m * 10 + (c - '0');
    ++digits;
    return true;
  };
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    if (!push(s[i++])) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (!push(s[i++])) return false;
      --e;
    }
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+')) {
    ++i;
    bool neg = false;
    if (s[i] == '-' || s[i] == '+') neg = s[i++] == '-';
    int x = 0;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      x = x * 10 + (s[i++] - '0');
      if (x > 100) return false;
    }
    e += neg ? -x : x;
  }
  *mantissa = m;
  *exp10 = e;
  *rest = trim(s.substr(i));
  return true;
}

// value = mantissa * 10^exp10 * unit, rounded to the nearest integer; nullopt on overflow
// or (when exact) a fraction.
std::optional<int64_t> scale(i128 m, int e, int64_t unit, bool exact, std::string* why,
                             std::string_view text) {
  i128 v = m * unit;
  while (e > 0) {
    if (v > (i128{1} << 100)) {
      if (why) *why = "'" + std::string(text) + "' is too large";
      return std::nullopt;
    }
    v *= 10;
    --e;
  }
  i128 div = 1;
  while (e < 0) {
    if (div > (i128{1} << 100)) {
      v = 0;
      div = 1;
      break;
    }
    div *= 10;
    ++e;
  }
  if (exact && v % div != 0) {
    if (why) *why = "'" + std::string(text) + "' is not a whole number of the base unit";
    return std::nullopt;
  }
  v = (v + div / 2) / div;
  if (v > std::numeric_limits<int64_t>::max() / 4) {
    if (why) *why = "'" + std::string(text) + "' is too large";
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

struct Unit {
  std::string_view name;
  int64_t factor;
};

std::optional<int64_t> parse_with_units(std::string_view text, const std::vector<Unit>& units,
                                        bool bare_allowed, bool exact, std::string_view what,
                                        std::string* why) {
  const std::string_view s = trim(text);
  i128 m;
  int e;
  std::string_view unit;
  if (s.empty() || s.front() == '-' || !parse_decimal(s, &m, &e, &unit)) {
    if (why) *why = "expected " + std::string(what) + ", got '" + std::string(text) + "'";
    return std::nullopt;
  }
  if (unit.empty()) {
    if (!bare_allowed && m != 0) {
      if (why)
        *why = "expected " + std::string(what) + " with a unit, got '" + std::string(text) + "'";
      return std::nullopt;
    }
    return scale(m, e, 1, exact, why, text);
  }
  for (const Unit& u : units)
    if (u.name == unit) return scale(m, e, u.factor, exact, why, text);
  if (why)
    *why = "unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "' (expected " +
           std::string(what) + ")";
  return std::nullopt;
}

const std::vector<Unit> kByteUnits = {
    {"B", 1},           {"KB", 1000},     {"kB", 1000},     {"MB", 1000000},
    {"GB", 1000000000}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", int64_t{1} << 30}};
const std::vector<Unit> kRateUnits = {
    {"bps", 1},           {"Kbps", 1000},         {"kbps", 1000},
    {"Mbps", 1000000},    {"Gbps", 1000000000},   {"Tbps", 1000000000000},
    {"b/s", 1},           {"Kb/s", 1000},         {"Mb/s", 1000000},
    {"Gb/s", 1000000000}, {"Tb/s", 1000000000000}};
const std::vector<Unit> kTimeUnits = {
    {"ps", 1}, {"ns", 1000}, {"us", 1000000}, {"ms", 1000000000}, {"s", 1000000000000}};

template <class Fmt>
std::string format_exact(int64_t v, const std::vector<Unit>& largest_first, Fmt fallback) {
  if (v == 0) return fallback(0);
  for (const Unit& u : largest_first)
    if (u.factor > 0 && v % u.factor == 0)
      return std::to_string(v / u.factor) + std::string(u.name);
  return fallback(v);
}

}  // namespace

std::optional<int64_t> parse_bytes(std::string_view text, std::string* why) {
  return parse_with_units(text, kByteUnits, true, true, "a byte size like 1500, 64KB or 9MiB", why);
}

std::optional<BitsPerSec> parse_rate(std::string_view text, std::string* why) {
  return parse_with_units(text, kRateUnits, true, false, "a rate like 100Gbps", why);
}

std::optional<Delta> parse_duration(std::string_view text, std::string* why) {
  auto v = parse_with_units(text, kTimeUnits, false, false, "a duration like 1us or 2.5ms", why);
  if (!v) return std::nullopt;
  return Delta{*v};
}

std::optional<double> parse_real(std::string_view text, std::string* why) {
  const std::string s(trim(text));
  const size_t slash = s.find('/');
  if (slash != std::string::npos) {
    auto a = parse_real(s.substr(0, slash), why);
    auto b = parse_real(s.substr(slash + 1), why);
    if (!a || !b || *b == 0) {
      if (why) *why = "expected a number or a fraction like 1/8, got '" + s + "'";
      return std::nullopt;
    }
    return *a / *b;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    if (why) *why = "expected a number, got '" + s + "'";
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> parse_integer(std::string_view text, std::string* why) {
  const std::string_view s = trim(text);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    if (why)
      *why = ec == std::errc::result_out_of_range
                 ? "'" + std::string(s) + "' is too large"
                 : "expected an integer, got '" + std::string(s) + "'";
    return std::nullopt;
  }
  return v;
}

std::string format_bytes(int64_t bytes) {
  static const std::vector<Unit> order = {{"GB", 1000000000}, {"GiB", int64_t{1} << 30},
                                          {"MB", 1000000},    {"MiB", 1 << 20},
                                          {"KB", 1000},       {"KiB", 1 << 10}};
  return format_exact(bytes, order, [](int64_t v) { return std::to_string(v) + "B"; });
}

std::string format_rate(BitsPerSec rate) {
  static const std::vector<Unit> order = {
      {"Tbps", 1000000000000}, {"Gbps", 1000000000}, {"Mbps", 1000000}, {"Kbps", 1000}};
  return format_exact(rate, order, [](int64_t v) { return std::to_string(v) + "bps"; });
}

std::string format_duration(Delta d) {
  static const std::vector<Unit> order = {
      {"s", 1000000000000}, {"ms", 1000000000}, {"us", 1000000}, {"ns", 1000}};
  return format_exact(
      d.ps, order, [](int64_t v) { return v == 0 ? std::string("0") : std::to_string(v) + "ps"; });
}

std::string format_real(double x) {
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

}  // namespace rocelab
