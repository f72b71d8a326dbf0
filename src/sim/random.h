// Named random streams derived from one scenario seed. The generator (xoshiro256**) and
// the distributions are written here, not taken from <random>, and the distributions use
// sim/portable_math.h instead of the C library's log/exp/cos, so that the same seed gives
// the same numbers with every standard library.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocelab {

// SplitMix64 step: used to expand seeds.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Stateless 64-bit mixer, for hashes (ECMP, flow ids).
constexpr uint64_t mix64(uint64_t x) {
  uint64_t s = x;
  return splitmix64(s);
}

// FNV-1a of a name: stable across platforms.
constexpr uint64_t hash_name(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

class RandomStream {
 public:
  RandomStream() : RandomStream(0, "default") {}
  // The stream named `name` (optionally with an index, e.g. per switch) under `seed`.
  RandomStream(uint64_t seed, std::string_view name, uint64_t index = 0);

  uint64_t next_u64();
  // Uniform in [0, 1).
  double uniform();
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below n / 2^64).
  uint64_t below(uint64_t n);
  double exponential(double mean);
  double normal(double mean, double stddev);
  // Lognormal whose underlying normal has parameters (mu, sigma).
  double lognormal(double mu, double sigma);

 private:
  uint64_t s_[4];
};

}  // namespace rocelab
