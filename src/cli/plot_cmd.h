// `rocelab plot` and `rocelab report`: the module rocelab.plot of the Python package the
// binary carries (python/rocelab/), run with Debian's python3 (and python3-matplotlib for
// the figures).
#pragma once

#include <string>

namespace rocelab {

// mode: "plot" or "report". Returns the script's exit status.
int run_plot_script(const std::string& mode, const std::string& dir, const std::string& out);

}  // namespace rocelab
