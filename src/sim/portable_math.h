// log, exp and cos that give the same bits on every platform. The C library's versions
// differ between implementations (glibc, musl, macOS, MSVC) in the last bit for some inputs,
// which is enough to move a random draw and with it a whole run. These are built only from
// operations IEEE 754 rounds exactly (+ - * / sqrt, comparisons, exact scaling by powers of
// two); they need round-to-nearest (the default) and no fused multiply-add
// (-ffp-contract=off, set in CMakeLists.txt).
//
// Accuracy: within about one ulp of the true value (the tests check a relative error below
// 1e-14 against the C library over many inputs).
#pragma once

namespace rocelab::pmath {

// Natural logarithm: -inf at 0, NaN below 0 and for NaN, +inf at +inf.
double log(double x);
// e^x: +inf above about 709.78, 0 below about -745.13, NaN for NaN.
double exp(double x);
// Cosine of x radians for |x| <= 1e6, where the argument reduction is exact; NaN outside
// (rather than a silently inaccurate value) and for NaN.
double cos(double x);

}  // namespace rocelab::pmath
