// Collective metrics (AI training traffic): per collective its completion time, slowdown
// against the collective alone at line rate, NCCL's algorithm and bus bandwidth, and its
// worst step's straggler; per job the completion time and iterations. Written to
// collectives.csv and the summary's `collectives` section (docs/output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/build/experiment.h"

namespace rocelab {

struct CollectiveResult {
  const CollectiveSpec* spec = nullptr;
  bool complete = false;  // every flow delivered
  Time start;             // its first flow's start
  Time end;               // its last flow's delivery
  Delta ideal;            // alone at line rate (lower bound; see collectives.cc)
  uint32_t steps = 0;
  // The step whose last delivery lagged its median delivery most, the rank (receiving
  // host) that lagged, and by how much.
  uint32_t straggler_step = 0;
  uint32_t straggler_host = 0;
  Delta straggler_lag;
  Delta cct() const { return end - start; }
  double slowdown() const;
  // nccl-tests' bandwidths, 1e9 bytes per second, of one group: its share of the size over
  // the CCT, and that times busbw_factor of its rank count. With one group (no per_nic)
  // exactly nccl-tests'; with per_nic, what the NICs carry (the NVLink part is not
  // modelled), so busbw is comparable to one NIC's line rate.
  double algbw_GBps() const;
  double busbw_GBps() const;
};

std::vector<CollectiveResult> collective_results(Experiment& exp);
// The summary's `collectives` section (null without collectives).
nlohmann::json collectives_summary(const std::vector<CollectiveResult>& results);
void write_collectives_csv(const std::string& path, Experiment& exp,
                           const std::vector<CollectiveResult>& results);

}  // namespace rocelab
