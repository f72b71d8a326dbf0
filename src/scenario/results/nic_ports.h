// summary.json's figures of NICs with several ports (topology.planes, topology.dual_tor):
// what each port index carried and how often it was paused, and per plane what its
// switches carried and paused.
#pragma once

#include <nlohmann/json.hpp>

#include "scenario/build/experiment.h"

namespace rocelab {

// `by_nic_port` and, with planes, `by_plane`, into `summary`; nothing for NICs of one port
// (single-port summaries keep their keys).
void add_nic_port_figures(Experiment& exp, nlohmann::json& summary);

}  // namespace rocelab
