// A figure a scheme reports for summary.json (reroutes, pause frames, table use), combined
// over switches: summed, or the maximum.
#pragma once

#include <string>

namespace rocelab {

struct SchemeStat {
  std::string name;
  double value;
  bool take_max = false;
};

}  // namespace rocelab
