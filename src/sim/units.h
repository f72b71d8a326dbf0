// Unit strings of scenario files, parsed exactly (decimal digits, no floating point) and
// written back in the largest unit that represents the value exactly.
//   bytes: 1500, 64KB, 12MB, 1.5GB (powers of 1000); 256KiB, 9MiB (powers of 1024); B
//   rates: 100Gbps, 40Gb/s, 25e9, 100Mbps, 1Tbps (bits per second)
//   durations: 1us, 500ns, 2.5ms, 10s, 250ps, 0 (a bare number other than 0 needs a unit)
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace rocelab {

// Why a quantity was refused, for readers that word their own messages (the ns-3 files).
enum class UnitError { kNone, kSyntax, kNoUnit, kUnknownUnit, kFraction, kTooLarge };

// The scenario files' rules, which the readers of other formats change: the ns-3 files
// write units in any case ("100gbps"), always with a unit, and rates in whole bits/s.
struct UnitRules {
  bool any_case = false;       // unit names compared without regard to case
  bool unit_required = false;  // a bare number, 0 too, is refused
  bool whole = false;          // a fraction of the base unit is refused (bytes: always)
  int64_t max = std::numeric_limits<int64_t>::max() / 4;  // beyond: "too large"
};

// Each returns nullopt (and an explanation in *why, the kind in *error) for malformed or
// out-of-range text. Values are exact: the decimal text times the unit, rounded half up
// to the base unit (byte, bit/s, picosecond).
std::optional<int64_t> parse_bytes(std::string_view text, std::string* why);
std::optional<BitsPerSec> parse_rate(std::string_view text, std::string* why,
                                     const UnitRules& rules = {}, UnitError* error = nullptr);
std::optional<Delta> parse_duration(std::string_view text, std::string* why,
                                    const UnitRules& rules = {}, UnitError* error = nullptr);
// A number without a unit times `factor`, by the same rules ("2.000001" seconds x 10^12
// -> picoseconds; "0.000000" -> 0).
std::optional<int64_t> parse_scaled(std::string_view text, int64_t factor, const UnitRules& rules,
                                    UnitError* error = nullptr);
// The unit as written after the number ("100GBps" -> "GBps"); empty when the text does
// not start with a number.
std::string_view unit_of(std::string_view text);
// A plain decimal number ("0.125", "1e-3", "1/8" is also accepted).
std::optional<double> parse_real(std::string_view text, std::string* why);
std::optional<int64_t> parse_integer(std::string_view text, std::string* why);

std::string format_bytes(int64_t bytes);
std::string format_rate(BitsPerSec rate);
std::string format_duration(Delta d);
std::string format_real(double x);  // shortest text that reads back as the same double

}  // namespace rocelab
