// A figure a scheme reports for summary.json (reroutes, pause frames, table use), combined
// over switches: summed, or the maximum.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/ranks.h"

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

// As bytes, for a run over several ranks (sim/ranks.h).
inline void write_stats(ByteWriter& out, const std::vector<SchemeStat>& stats) {
  out.put(static_cast<uint64_t>(stats.size()));
  for (const SchemeStat& s : stats) {
    out.put(static_cast<uint64_t>(s.name.size()));
    out.put_raw(s.name.data(), s.name.size());
    out.put(s.value);
    out.put(s.take_max);
  }
}
inline std::vector<SchemeStat> read_stats(ByteReader& in) {
  std::vector<SchemeStat> stats(in.get<uint64_t>());
  for (SchemeStat& s : stats) {
    s.name.resize(in.get<uint64_t>());
    in.get_raw(s.name.data(), s.name.size());
    s.value = in.get<double>();
    s.take_max = in.get<bool>();
  }
  return stats;
}

}  // namespace rocelab
