#include "sim/random.h"

#include <cmath>
#include <numbers>

#include "sim/portable_math.h"

namespace rocelab {

namespace {
constexpr uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
}  // namespace

RandomStream::RandomStream(uint64_t seed, std::string_view name, uint64_t index) {
  uint64_t state = seed ^ hash_name(name) ^ mix64(index + 0x51ed27);
  for (auto& word : s_) word = splitmix64(state);
}

uint64_t RandomStream::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

uint64_t RandomStream::below(uint64_t n) {
  const unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
  return static_cast<uint64_t>(m >> 64);
}

double RandomStream::exponential(double mean) {
  // 1 - U is in (0, 1], so the log is finite.
  return -mean * pmath::log(1.0 - uniform());
}

double RandomStream::normal(double mean, double stddev) {
  // Box-Muller; one value per call keeps the stream position simple to reason about.
  // sqrt is correctly rounded everywhere (IEEE 754); log and cos are ours (portable_math.h).
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * pmath::log(u1)) * pmath::cos(2.0 * std::numbers::pi * u2);
}

double RandomStream::lognormal(double mu, double sigma) {
  return pmath::exp(normal(mu, sigma));
}

}  // namespace rocelab
