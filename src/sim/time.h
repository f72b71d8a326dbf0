// Strong time types: all simulated time is an integer count of picoseconds.
// Time is a point, Delta a duration: Time - Time = Delta, Time + Delta = Time.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace rocelab {

struct Delta {
  int64_t ps = 0;

  static constexpr Delta from_ps(int64_t v) { return Delta{v}; }
  static constexpr Delta from_ns(int64_t v) { return Delta{v * 1000}; }
  static constexpr Delta from_us(int64_t v) { return Delta{v * 1000 * 1000}; }
  static constexpr Delta from_ms(int64_t v) { return Delta{v * 1000 * 1000 * 1000}; }
  static constexpr Delta from_seconds(double s) {
    return Delta{static_cast<int64_t>(s * 1e12 + 0.5)};
  }
  static constexpr Delta zero() { return Delta{0}; }
  static constexpr Delta max() { return Delta{std::numeric_limits<int64_t>::max() / 4}; }

  constexpr double seconds() const { return static_cast<double>(ps) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr double ns() const { return static_cast<double>(ps) * 1e-3; }

  constexpr auto operator<=>(const Delta&) const = default;
  constexpr Delta operator+(Delta o) const { return Delta{ps + o.ps}; }
  constexpr Delta operator-(Delta o) const { return Delta{ps - o.ps}; }
  constexpr Delta operator*(int64_t k) const { return Delta{ps * k}; }
  constexpr Delta operator/(int64_t k) const { return Delta{ps / k}; }
  constexpr Delta& operator+=(Delta o) {
    ps += o.ps;
    return *this;
  }
  constexpr Delta& operator-=(Delta o) {
    ps -= o.ps;
    return *this;
  }
};

struct Time {
  int64_t ps = 0;

  static constexpr Time zero() { return Time{0}; }
  static constexpr Time never() { return Time{std::numeric_limits<int64_t>::max() / 2}; }

  constexpr double seconds() const { return static_cast<double>(ps) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr int64_t ns_floor() const { return ps / 1000; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Delta d) const { return Time{ps + d.ps}; }
  constexpr Time operator-(Delta d) const { return Time{ps - d.ps}; }
  constexpr Delta operator-(Time o) const { return Delta{ps - o.ps}; }
  constexpr Time& operator+=(Delta d) {
    ps += d.ps;
    return *this;
  }
};

// Rates are integer bits per second; 400 Gb/s and below give exact picoseconds per byte.
using BitsPerSec = int64_t;

constexpr BitsPerSec gbps(int64_t g) {
  return g * 1000 * 1000 * 1000;
}
constexpr BitsPerSec mbps(int64_t m) {
  return m * 1000 * 1000;
}

// Serialization time of `bytes` at `rate_bps`, rounded up to the next picosecond.
constexpr Delta serialization_delay(int64_t bytes, BitsPerSec rate_bps) {
  // Below 2 MiB (every frame) the product fits 64 bits: a 64-bit division, not a call to
  // libgcc's 128-bit one. Same result.
  if (bytes >= 0 && bytes < (int64_t{1} << 21) && rate_bps > 0 && rate_bps < (int64_t{1} << 60)) {
    const uint64_t bits_ps = static_cast<uint64_t>(bytes) * 8 * 1000000000000ULL;
    const auto rate = static_cast<uint64_t>(rate_bps);
    return Delta{static_cast<int64_t>((bits_ps + rate - 1) / rate)};
  }
  const __int128 bits_ps = static_cast<__int128>(bytes) * 8 * 1000000000000LL;
  return Delta{static_cast<int64_t>((bits_ps + rate_bps - 1) / rate_bps)};
}

// Bytes a link of `rate_bps` carries in `d` (floor), e.g. for bandwidth-delay products.
constexpr int64_t bytes_in(Delta d, BitsPerSec rate_bps) {
  return static_cast<int64_t>(static_cast<__int128>(d.ps) * rate_bps / (8 * 1000000000000LL));
}

}  // namespace rocelab
