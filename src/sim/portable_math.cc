#include "sim/portable_math.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace rocelab::pmath {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ln 2 = kLn2Hi + kLn2Lo: kLn2Hi has 32 significant bits, so k * kLn2Hi is exact for every
// exponent k a double can have, and the reduction x - k * ln 2 loses nothing.
constexpr double kLn2Hi = 0x1.62e42ffp-1;
constexpr double kLn2Lo = -0x1.718432a1b0e26p-35;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;

// pi / 2 = kPio2_1 + kPio2_2 + kPio2_3 (about 119 bits): the first two have 33 significant
// bits, so n times them is exact for n < 2^20 quarter turns.
constexpr double kPio2_1 = 0x1.921fb544p+0;
constexpr double kPio2_2 = 0x1.0b4611a6p-34;
constexpr double kPio2_3 = 0x1.3198a2e037073p-69;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
// |x| <= 1e6 keeps n below 2^20 (636,620 quarter turns).
constexpr double kCosMaxArg = 1e6;

// e^x overflows above ln(DBL_MAX) (this is the largest double below it) and rounds to 0
// below ln(2^-1075) ~ -745.13; below -746 the scaling would leave int range for huge |x|.
constexpr double kExpMax = 0x1.62e42fefa39efp+9;
constexpr double kExpMin = -746.0;

// 1 / n!, correctly rounded: n! itself is an exact double for n <= 22.
constexpr double inv_factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}

// Horner's rule, highest coefficient last in `c`.
template <std::size_t N>
constexpr double horner(const std::array<double, N>& c, double x) {
  double p = c[N - 1];
  for (std::size_t i = N - 1; i-- > 0;) p = p * x + c[i];
  return p;
}

// log: R(z) = sum_{i>=1} 2 z^i / (2i + 1), z = s^2 <= 0.0295; the 13th term is below
// 2^-60 of the result.
constexpr std::array<double, 12> kLogCoeffs = [] {
  std::array<double, 12> c{};
  for (int i = 0; i < 12; ++i) c[i] = 2.0 / (2 * (i + 1) + 1);
  return c;
}();

// exp: e^r = 1 + r + r^2 q(r), q(r) = sum_{n>=2} r^(n-2) / n!; |r| <= 0.35 makes the
// r^16 / 16! term below 2^-62.
constexpr std::array<double, 14> kExpCoeffs = [] {
  std::array<double, 14> c{};
  for (int n = 2; n < 16; ++n) c[n - 2] = inv_factorial(n);
  return c;
}();

// cos r = 1 - z/2 + z^2 qc(z), sin r = r + r z qs(z), z = r^2, |r| <= pi/4: the first
// omitted terms (r^20 / 20!, r^21 / 21!) are below 2^-67.
constexpr std::array<double, 8> kCosCoeffs = [] {
  std::array<double, 8> c{};
  for (int n = 2; n < 10; ++n) c[n - 2] = (n % 2 == 0 ? 1.0 : -1.0) * inv_factorial(2 * n);
  return c;
}();
constexpr std::array<double, 9> kSinCoeffs = [] {
  std::array<double, 9> c{};
  for (int n = 1; n < 10; ++n) c[n - 1] = (n % 2 == 0 ? 1.0 : -1.0) * inv_factorial(2 * n + 1);
  return c;
}();

// 2^k for a normal exponent, built from its bits.
double pow2(int k) {
  return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52);
}

// v * 2^k for v in [0.5, 2]: the first product is exact, the second rounds once, so a
// result in the subnormal range is rounded only once.
double scale(double v, int k) {
  if (k > 1000) {
    v *= pow2(k - 1000);
    k = 1000;
  } else if (k < -1000) {
    v *= pow2(k + 1000);
    k = -1000;
  }
  return v * pow2(k);
}

// cos(r + rlo) and sin(r + rlo) for |r| <= pi/4, rlo a correction below half an ulp of r.
double cos_kernel(double r, double rlo) {
  const double z = r * r;
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  // (1 - w) - hz recovers what rounding 1 - hz lost; d/dr cos r = -sin r ~ -r.
  return w + (((1.0 - w) - hz) + (z * z * horner(kCosCoeffs, z) - r * rlo));
}

double sin_kernel(double r, double rlo) {
  const double z = r * r;
  // d/dr sin r = cos r ~ 1 - z/2.
  return r + (r * z * horner(kSinCoeffs, z) + (rlo - 0.5 * z * rlo));
}

}  // namespace

double log(double x) {
  if (!(x > 0)) return x == 0 ? -kInf : kNaN;
  if (x == kInf) return x;
  uint64_t bits = std::bit_cast<uint64_t>(x);
  int k = 0;
  if (bits < (uint64_t{1} << 52)) {  // subnormal: make it normal first (exact)
    x *= 0x1p54;
    k = -54;
    bits = std::bit_cast<uint64_t>(x);
  }
  // x = 2^k m, m in [sqrt(2)/2, sqrt(2)), so f = m - 1 is small and exact (Sterbenz).
  k += static_cast<int>(bits >> 52) - 1023;
  double m = std::bit_cast<double>((bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1023} << 52));
  if (m >= kSqrt2) {
    m *= 0.5;
    ++k;
  }
  const double f = m - 1.0;
  // log(1 + f) = 2 atanh(s) with s = f / (2 + f), |s| <= 0.172, which rearranges to
  // f - f^2/2 + s (f^2/2 + R(s^2)): the large terms f and f^2/2 are exact or nearly so and
  // the series only corrects them.
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double big_r = z * horner(kLogCoeffs, z);
  const double hfsq = 0.5 * f * f;
  const double dk = k;
  return dk * kLn2Hi - ((hfsq - (s * (hfsq + big_r) + dk * kLn2Lo)) - f);
}

double exp(double x) {
  if (x != x) return x;
  if (x > kExpMax) return kInf;
  if (x < kExpMin) return 0.0;
  // x = k ln 2 + r, |r| <= ln(2)/2 (plus rounding); x - k kLn2Hi is exact.
  const double kd = static_cast<double>(static_cast<int>(x * kInvLn2 + (x < 0 ? -0.5 : 0.5)));
  const double hi = x - kd * kLn2Hi;
  const double lo = kd * kLn2Lo;
  const double r = hi - lo;
  const double c = (hi - r) - lo;  // what rounding r lost: e^(r + c) ~ e^r (1 + c)
  const double e = 1.0 + (r + (r * r * horner(kExpCoeffs, r) + c * (1.0 + r)));
  return scale(e, static_cast<int>(kd));
}

double cos(double x) {
  // Also NaN for infinite or NaN x: the comparison is false for NaN.
  if (!(x >= -kCosMaxArg && x <= kCosMaxArg)) return kNaN;
  // x = n pi/2 + r, |r| <= pi/4, n rounded half away from zero (|n| < 2^20 here).
  const double t = x * kTwoOverPi;
  const double nd = static_cast<double>(static_cast<int>(t + (t < 0 ? -0.5 : 0.5)));
  // a is exact: n kPio2_1 is, and x is within a factor 2 of it (Sterbenz).
  const double a = x - nd * kPio2_1;
  const double nb = -(nd * kPio2_2);  // exact
  // r0 + e = a + nb exactly (Knuth's two-sum), then the third part of pi/2.
  const double r0 = a + nb;
  const double bv = r0 - a;
  const double av = r0 - bv;
  const double e = (a - av) + (nb - bv);
  const double lo0 = e - nd * kPio2_3;
  const double r = r0 + lo0;
  const double rlo = lo0 - (r - r0);
  switch (static_cast<int>(nd) & 3) {
    case 0:
      return cos_kernel(r, rlo);
    case 1:
      return -sin_kernel(r, rlo);
    case 2:
      return -cos_kernel(r, rlo);
    default:
      return sin_kernel(r, rlo);
  }
}

}  // namespace rocelab::pmath
