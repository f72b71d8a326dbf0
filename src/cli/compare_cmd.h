// `rocelab compare`: one scenario under several schemes, on the sweep runner (local threads,
// or MPI ranks under mpirun): a sweep of one point and one seed whose runs land in
// DIR/<lb+cc+fc>/, with DIR/compare.csv and a table on stdout instead of sweep.csv.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/sweep_cmd.h"

namespace rocelab {

struct CompareRequest {
  std::string scenario_path;
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  std::string schemes;  // "LB+CC[+FC],..."
};

// The exit status: 0, 3 when a run failed or broke an invariant, 130 when interrupted.
int run_compare(const CompareRequest& request, SweepOptions options, int* argc, char*** argv);

}  // namespace rocelab
