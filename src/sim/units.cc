#include "sim/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace rocelab {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A decimal number as digits and a power of ten: "12.50e3" -> {"1250", 1}. Digits are
// kept as text, so that no length of mantissa loses precision; zero has no digits.
struct Decimal {
  std::string digits;  // without leading zeros
  int exp10 = 0;
};

// Exponents past this are refused: far beyond any value an int64_t holds, and they keep
// the digit strings below short.
constexpr int kMaxExponent = 1000;

// Reads the number at the start of `s`: digits [. digits] [(e|E) [+|-] digits], at least
// one mantissa digit; an e not followed by a digit or sign belongs to the unit. The rest
// of the text (the unit) goes to *rest, trimmed.
bool read_decimal(std::string_view s, Decimal* d, std::string_view* rest) {
  size_t i = 0;
  int mantissa_digits = 0;
  d->digits.clear();
  d->exp10 = 0;
  auto push = [&](char c) {
    ++mantissa_digits;
    if (c != '0' || !d->digits.empty()) d->digits += c;
  };
  while (i < s.size() && is_digit(s[i])) push(s[i++]);
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      push(s[i]);
      --d->exp10;
    }
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (is_digit(s[i + 1]) || s[i + 1] == '-' || s[i + 1] == '+')) {
    ++i;
    bool neg = false;
    if (s[i] == '-' || s[i] == '+') neg = s[i++] == '-';
    if (i >= s.size() || !is_digit(s[i])) return false;
    int x = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      x = x * 10 + (s[i] - '0');
      if (x > kMaxExponent) return false;
    }
    d->exp10 += neg ? -x : x;
  }
  *rest = trim(s.substr(i));
  return true;
}

// The number and the unit of a quantity; false when it does not start with a non-negative
// number.
bool split_quantity(std::string_view text, Decimal* d, std::string_view* unit) {
  const std::string_view s = trim(text);
  return !s.empty() && s.front() != '-' && read_decimal(s, d, unit);
}

// digits x factor, as digits.
std::string times(const std::string& digits, int64_t factor) {
  std::string out;
  uint64_t carry = 0;
  for (size_t k = digits.size(); k-- > 0;) {
    const uint64_t t =
        static_cast<uint64_t>(digits[k] - '0') * static_cast<uint64_t>(factor) + carry;
    out += static_cast<char>('0' + t % 10);
    carry = t / 10;
  }
  for (; carry > 0; carry /= 10) out += static_cast<char>('0' + carry % 10);
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  return std::string(out.rbegin(), out.rend());
}

// d x factor without strings when it is a whole number for sure: at most 19 digits, no
// exponent above zero, and 10^-exp10 dividing factor (decimals no finer than the unit, as in
// a flow file's seconds to 9 places). nullopt: not that case.
std::optional<unsigned __int128> scale_exactly(const Decimal& d, int64_t factor) {
  if (d.digits.size() > 19 || factor <= 0 || d.exp10 > 0 || d.exp10 < -18) return std::nullopt;
  uint64_t divisor = 1;
  for (int k = d.exp10; k < 0; ++k) divisor *= 10;
  if (static_cast<uint64_t>(factor) % divisor != 0) return std::nullopt;
  uint64_t mantissa = 0;
  for (char c : d.digits) mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
  // Below 10^19 x 2^63: no overflow in 128 bits.
  return static_cast<unsigned __int128>(mantissa) * (static_cast<uint64_t>(factor) / divisor);
}

// d x factor rounded half up to an integer (or, when whole, only if it is one), at most max.
std::optional<int64_t> scale(const Decimal& d, int64_t factor, bool whole, int64_t max,
                             UnitError* error) {
  if (d.digits.empty() || factor == 0) return 0;
  if (const auto exact = scale_exactly(d, factor)) {
    if (*exact > static_cast<unsigned __int128>(max)) {
      *error = UnitError::kTooLarge;
      return std::nullopt;
    }
    return static_cast<int64_t>(*exact);
  }
  std::string kept = times(d.digits, factor);
  bool round_up = false;
  if (d.exp10 < 0) {
    // The digits dropped below the units place: any nonzero one is a fraction; the first
    // decides the rounding.
    const size_t drop = static_cast<size_t>(-d.exp10);
    const size_t keep = kept.size() > drop ? kept.size() - drop : 0;
    const std::string_view dropped = std::string_view(kept).substr(keep);
    if (dropped.find_first_not_of('0') != std::string_view::npos) {
      if (whole) {
        *error = UnitError::kFraction;
        return std::nullopt;
      }
      round_up = drop == dropped.size() && dropped[0] >= '5';
    }
    kept.resize(keep);
  } else if (kept.size() + static_cast<size_t>(d.exp10) <= 20) {
    kept.append(static_cast<size_t>(d.exp10), '0');
  } else {
    *error = UnitError::kTooLarge;
    return std::nullopt;
  }
  // 20 digits hold any int64_t; more are too large for any max.
  if (kept.size() > 20) {
    *error = UnitError::kTooLarge;
    return std::nullopt;
  }
  unsigned __int128 v = 0;
  for (char c : kept) v = v * 10 + static_cast<unsigned>(c - '0');
  if (round_up) ++v;
  if (v > static_cast<unsigned __int128>(max)) {
    *error = UnitError::kTooLarge;
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

struct Unit {
  std::string_view name;
  int64_t factor;
};

bool same_unit(std::string_view a, std::string_view b, bool any_case) {
  if (!any_case) return a == b;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// How one kind of quantity is written: its units, and what a number without one means.
struct Quantity {
  const std::vector<Unit>& units;
  bool bare_allowed;  // a number without a unit (else only 0)
  bool whole;         // no fraction of the base unit
  std::string_view what;
  int64_t bare_factor = 1;  // what a number without a unit counts
};

std::optional<int64_t> parse_with_units(std::string_view text, const Quantity& q,
                                        const UnitRules& rules, std::string* why,
                                        UnitError* error) {
  UnitError local;
  if (!error) error = &local;
  *error = UnitError::kNone;
  Decimal d;
  std::string_view unit;
  if (!split_quantity(text, &d, &unit)) {
    *error = UnitError::kSyntax;
    if (why) *why = "expected " + std::string(q.what) + ", got '" + std::string(text) + "'";
    return std::nullopt;
  }
  std::optional<int64_t> v;
  if (unit.empty()) {
    if (rules.unit_required || (!q.bare_allowed && !d.digits.empty())) {
      *error = UnitError::kNoUnit;
      if (why)
        *why = "expected " + std::string(q.what) + " with a unit, got '" + std::string(text) + "'";
      return std::nullopt;
    }
    v = scale(d, q.bare_factor, q.whole || rules.whole, rules.max, error);
  } else {
    const auto u = std::find_if(q.units.begin(), q.units.end(), [&](const Unit& u) {
      return same_unit(u.name, unit, rules.any_case);
    });
    if (u == q.units.end()) {
      *error = UnitError::kUnknownUnit;
      if (why)
        *why = "unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
               "' (expected " + std::string(q.what) + ")";
      return std::nullopt;
    }
    v = scale(d, u->factor, q.whole || rules.whole, rules.max, error);
  }
  if (!v && why)
    *why = *error == UnitError::kFraction
               ? "'" + std::string(text) + "' is not a whole number of the base unit"
               : "'" + std::string(text) + "' is too large";
  return v;
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
const std::vector<Unit> kNoUnits;

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
  static const Quantity q{kByteUnits, true, true, "a byte size like 1500, 64KB or 9MiB"};
  return parse_with_units(text, q, UnitRules{}, why, nullptr);
}

std::optional<BitsPerSec> parse_rate(std::string_view text, std::string* why,
                                     const UnitRules& rules, UnitError* error) {
  static const Quantity q{kRateUnits, true, false, "a rate like 100Gbps"};
  return parse_with_units(text, q, rules, why, error);
}

std::optional<Delta> parse_duration(std::string_view text, std::string* why, const UnitRules& rules,
                                    UnitError* error) {
  static const Quantity q{kTimeUnits, false, false, "a duration like 1us or 2.5ms"};
  auto v = parse_with_units(text, q, rules, why, error);
  if (!v) return std::nullopt;
  return Delta{*v};
}

std::optional<int64_t> parse_scaled(std::string_view text, int64_t factor, const UnitRules& rules,
                                    UnitError* error) {
  const Quantity q{kNoUnits, true, false, "a number", factor};
  return parse_with_units(text, q, rules, nullptr, error);
}

std::string_view unit_of(std::string_view text) {
  Decimal d;
  std::string_view unit;
  return split_quantity(text, &d, &unit) ? unit : std::string_view();
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
