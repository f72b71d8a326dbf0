// The rocelab Python package's statistics (python/rocelab/stats.py: figures, reports,
// validation/compare.py) agree with src/stats/, which writes sweep.csv and summary.json.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../cli_util.h"
#include "stats/confidence.h"
#include "stats/fct_summary.h"

namespace rocelab {
namespace {

std::string python_says(const std::string& code) {
  const auto dir = test::temp_dir("pystats");
  const std::string out = (dir / "out.txt").string();
  const std::string cmd = "PYTHONPATH=" + std::string(ROCELAB_SOURCE_DIR) +
                          "/python /usr/bin/python3 -B -c '" + code + "' > " + out + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << test::slurp(out);
  return test::slurp(out);
}

TEST(PythonStats, StudentTAndIntervalsMatchTheWriters) {
  const std::string text = python_says(
      "from rocelab.stats import t975, mean_ci\n"
      "for d in range(0, 61): print(repr(t975(d)))\n"
      "print(repr(mean_ci([3.0, 1.5, 7.25, 2.0])[1]))\n"
      "print(repr(mean_ci([5.0])[1]))");
  std::istringstream in(text);
  for (size_t dof = 0; dof <= 60; ++dof) {
    double t = -1;
    in >> t;
    EXPECT_NEAR(t, student_t975(dof), 1e-12) << "dof " << dof;
  }
  double half = -1, single = -1;
  in >> half >> single;
  EXPECT_NEAR(half, mean_interval({3.0, 1.5, 7.25, 2.0}).ci95_half, 1e-12);
  EXPECT_EQ(single, 0.0);
}

TEST(PythonStats, PercentileIsNearestRankAsTheSummaries) {
  // Hand-computed nearest ranks of 1..10: p50 -> 5th, p99 -> 10th, p1 -> 1st, p0 -> 1st.
  EXPECT_EQ(python_says("from rocelab.stats import percentile\n"
                        "xs = list(range(1, 11))\n"
                        "print(*[percentile(xs, p) for p in (50, 99, 1, 0, 100)])"),
            "5 10 1 1 10\n");
  const std::vector<double> xs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (double p : {50.0, 99.0, 1.0, 0.0, 100.0, 37.5})
    EXPECT_EQ(python_says("from rocelab.stats import percentile\n"
                          "print(percentile(list(range(1, 11)), " +
                          std::to_string(p) + "))"),
              std::to_string(static_cast<int>(percentile(xs, p))) + "\n")
        << "p" << p;
}

}  // namespace
}  // namespace rocelab
