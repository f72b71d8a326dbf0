// Unit strings of scenario files, parsed exactly (decimal digits, no floating point) and
// written back in the largest unit that represents the value exactly.
//   bytes: 1500, 64KB, 12MB, 1.5GB (powers of 1000); 256KiB, 9MiB (powers of 1024); B
//   rates: 100Gbps, 40Gb/s, 25e9, 100Mbps, 1Tbps (bits per second)
//   durations: 1us, 500ns, 2.5ms, 10s, 250ps, 0 (a bare number other than 0 needs a unit)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace rocelab {

// Each returns nullopt (and an explanation in *why) for malformed or out-of-range text.
std::optional<int64_t> parse_bytes(std::string_view text, std::string* why);
std::optional<BitsPerSec> parse_rate(std::string_view text, std::string* why);
std::optional<Delta> parse_duration(std::string_view text, std::string* why);
// A plain decimal number ("0.125", "1e-3", "1/8" is also accepted).
std::optional<double> parse_real(std::string_view text, std::string* why);
std::optional<int64_t> parse_integer(std::string_view text, std::string* why);

std::string format_bytes(int64_t bytes);
std::string format_rate(BitsPerSec rate);
std::string format_duration(Delta d);
std::string format_real(double x);  // shortest text that reads back as the same double

}  // namespace rocelab
