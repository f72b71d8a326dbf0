#include "scenario/results/text_lines.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>

namespace rocelab {
namespace {

std::string printf_fixed(double v, int precision) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

// flows.csv's slowdown went through printf's %.6f: the same text, exact ties (k / 128 has
// a 5 in the seventh decimal) rounded to even as printf rounds them.
TEST(TextLines, FixedPointAsPrintf) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> ratio(0.5, 50.0);
  for (int i = 0; i < 20000; ++i) {
    for (const double v : {ratio(rng), static_cast<double>(i) / 128, -ratio(rng) / 7}) {
      std::ostringstream out;
      TextLines(out).put_fixed(v, 6);
      ASSERT_EQ(out.str(), printf_fixed(v, 6)) << v;
    }
  }
  std::ostringstream out;
  TextLines(out).put_fixed(1e300, 2).put(' ').put_fixed(0.5, 0).put(' ').put_fixed(1.5, 0);
  EXPECT_EQ(out.str(), printf_fixed(1e300, 2) + " 0 2");
}

TEST(TextLines, IntegersTimesAndHex) {
  std::ostringstream out;
  {
    TextLines lines(out);
    lines.put_int(0).put(' ').put_int(UINT64_MAX).put(' ').put_signed(INT64_MIN).put(' ');
    lines.put_ns(1234567).put(' ').put_ns(5).put(' ').put_ns(-1001).put(' ').put_ns(0);
    lines.end_line();
    lines.put_hex(0x0b012c01u, 8).put(' ').put_hex(0x2au, 8).put(' ').put_hex(0xabcdef12u, 4);
    lines.end_line();
  }  // written out when it goes
  EXPECT_EQ(out.str(),
            "0 18446744073709551615 -9223372036854775808 1234.567 0.005 -1.001 0.000\n"
            "0b012c01 0000002a abcdef12\n");
}

// Lines are held until 64 KiB are buffered, and the rest at flush: nothing lost, in order.
TEST(TextLines, WritesEveryLineInOrderAcrossFlushes) {
  std::ostringstream out;
  std::string want;
  {
    TextLines lines(out);
    for (int i = 0; i < 30000; ++i) {
      lines.put_int(static_cast<uint64_t>(i)).put(",x");
      lines.end_line();
      want += std::to_string(i) + ",x\n";
      if (i == 100) {
        EXPECT_TRUE(out.str().empty());  // still buffered
      }
    }
  }
  EXPECT_EQ(out.str(), want);
}

}  // namespace
}  // namespace rocelab
