#include "sim/portable_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "sim/random.h"

namespace rocelab {
namespace {

constexpr double kMaxRelError = 1e-14;

// Largest relative difference from the C library's function over `n` inputs from `gen`.
double max_rel_error(int n, const std::function<double()>& gen, double (*ours)(double),
                     double (*libm)(double), double* worst_x) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double x = gen();
    const double want = libm(x);
    const double err = want == 0 ? std::abs(ours(x)) : std::abs(ours(x) - want) / std::abs(want);
    if (!(err <= worst)) {  // also catches NaN
      worst = err;
      *worst_x = x;
    }
  }
  return worst;
}

double libm_log(double x) {
  return std::log(x);
}
double libm_exp(double x) {
  return std::exp(x);
}
double libm_cos(double x) {
  return std::cos(x);
}

TEST(PortableMath, LogMatchesLibmOverItsRange) {
  RandomStream rng(5, "pmath-log");
  double x = 0;
  // Every binade from the subnormals to the largest doubles.
  auto wide = [&] {
    return std::ldexp(1.0 + rng.uniform(), static_cast<int>(rng.below(2098)) - 1074);
  };
  EXPECT_LT(max_rel_error(200000, wide, pmath::log, libm_log, &x), kMaxRelError) << x;
  // Close to 1, where log is close to 0 and cancellation would show.
  auto near_one = [&] { return 1.0 + (rng.uniform() - 0.5) * 1e-6; };
  EXPECT_LT(max_rel_error(100000, near_one, pmath::log, libm_log, &x), kMaxRelError) << x;
  // (0, 1]: the inputs exponential() and normal() pass.
  auto unit = [&] { return 1.0 - rng.uniform(); };
  EXPECT_LT(max_rel_error(100000, unit, pmath::log, libm_log, &x), kMaxRelError) << x;
}

TEST(PortableMath, ExpMatchesLibmOverItsRange) {
  RandomStream rng(5, "pmath-exp");
  double x = 0;
  // Up to where e^x leaves the normal doubles (about -708.4 and 709.78).
  auto wide = [&] { return -708.0 + rng.uniform() * 1417.0; };
  EXPECT_LT(max_rel_error(200000, wide, pmath::exp, libm_exp, &x), kMaxRelError) << x;
  auto small = [&] { return (rng.uniform() - 0.5) * 1e-3; };
  EXPECT_LT(max_rel_error(100000, small, pmath::exp, libm_exp, &x), kMaxRelError) << x;
}

TEST(PortableMath, CosMatchesLibmOverItsRange) {
  RandomStream rng(5, "pmath-cos");
  double x = 0;
  // [0, 2 pi): the arguments normal() passes.
  auto turn = [&] { return 2.0 * std::numbers::pi * rng.uniform(); };
  EXPECT_LT(max_rel_error(200000, turn, pmath::cos, libm_cos, &x), kMaxRelError) << x;
  auto wide = [&] { return (rng.uniform() - 0.5) * 2e6; };
  EXPECT_LT(max_rel_error(200000, wide, pmath::cos, libm_cos, &x), kMaxRelError) << x;
  // The doubles nearest the zeros (n + 1/2) pi, where a sloppy reduction shows as a large
  // relative error.
  for (int n = 0; n < 300000; n += 997) {
    const double z = (n + 0.5) * std::numbers::pi;
    for (double y : {z, std::nextafter(z, 0.0), std::nextafter(z, 1e7)}) {
      EXPECT_LT(std::abs(pmath::cos(y) - std::cos(y)) / std::abs(std::cos(y)), kMaxRelError) << y;
    }
  }
}

TEST(PortableMath, SpecialValues) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(pmath::log(1.0), 0.0);
  EXPECT_EQ(pmath::log(0.0), -kInf);
  EXPECT_EQ(pmath::log(kInf), kInf);
  EXPECT_TRUE(std::isnan(pmath::log(-1.0)));
  EXPECT_TRUE(std::isnan(pmath::log(kNaN)));
  // ln 2 correctly rounded, and log of the smallest subnormal, 2^-1074 (-744.44007...).
  EXPECT_EQ(pmath::log(2.0), 0x1.62e42fefa39efp-1);
  EXPECT_EQ(pmath::log(0x1p-1074), -0x1.74385446d71c3p+9);

  EXPECT_EQ(pmath::exp(0.0), 1.0);
  EXPECT_EQ(pmath::exp(1.0), 0x1.5bf0a8b145769p+1);  // e correctly rounded
  // The largest x with a finite e^x is the double just below ln(DBL_MAX).
  EXPECT_EQ(pmath::exp(0x1.62e42fefa39efp+9), 0x1.fffffffffff2ap+1023);
  EXPECT_EQ(pmath::exp(0x1.62e42fefa39fp+9), kInf);
  // Subnormal results are rounded once: e^-740 = 4.2e-322 = 85 * 2^-1074.
  EXPECT_EQ(pmath::exp(-740.0), 85 * 0x1p-1074);
  EXPECT_EQ(pmath::exp(-746.0), 0.0);
  EXPECT_EQ(pmath::exp(-kInf), 0.0);
  EXPECT_EQ(pmath::exp(kInf), kInf);
  EXPECT_TRUE(std::isnan(pmath::exp(kNaN)));

  EXPECT_EQ(pmath::cos(0.0), 1.0);
  EXPECT_EQ(pmath::cos(std::numbers::pi), -1.0);
  // cos of the double nearest pi/2 is pi/2 minus that double, 6.123e-17.
  EXPECT_EQ(pmath::cos(std::numbers::pi / 2), 0x1.1a62633145c07p-54);
  EXPECT_EQ(pmath::cos(-1e6), pmath::cos(1e6));
  EXPECT_TRUE(std::isnan(pmath::cos(1.000001e6)));  // outside the exact reduction
  EXPECT_TRUE(std::isnan(pmath::cos(kInf)));
  EXPECT_TRUE(std::isnan(pmath::cos(kNaN)));
}

}  // namespace
}  // namespace rocelab
