// A figure a scheme reports for summary.json (reroutes, pause frames, table use), combined
// over switches: summed, or the maximum.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace rocelab {

struct SchemeStat {
  std::string name;
  double value;
  bool take_max = false;
};

// One figure per name, over every reporter.
inline std::map<std::string, double> combine(const std::vector<SchemeStat>& stats) {
  std::map<std::string, double> out;
  for (const SchemeStat& s : stats) {
    double& v = out[s.name];
    v = s.take_max ? std::max(v, s.value) : v + s.value;
  }
  return out;
}

}  // namespace rocelab
