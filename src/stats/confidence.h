// Mean and 95% confidence interval of a few independent runs (seeds), Student's t.
#pragma once

#include <cstddef>
#include <vector>

namespace rocelab {

struct MeanInterval {
  size_t n = 0;
  double mean = 0;
  double stddev = 0;     // sample standard deviation (n - 1); 0 when n < 2
  double ci95_half = 0;  // t(0.975, n - 1) * stddev / sqrt(n); 0 when n < 2
  double low() const { return mean - ci95_half; }
  double high() const { return mean + ci95_half; }
};

// Two-sided 95% quantile of Student's t with `dof` degrees of freedom (dof >= 1).
double student_t975(size_t dof);

MeanInterval mean_interval(const std::vector<double>& samples);

}  // namespace rocelab
