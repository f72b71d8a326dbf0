// summary.json's `faults`: what the scripted faults lost, by cause; how routing, the PFC
// watchdog and the stalled NICs acted; the flows that crossed a fault; a deadlock's cycle.
#pragma once

#include <nlohmann/json.hpp>

#include "scenario/build/experiment.h"

namespace rocelab {

// Null when the run has no faults (Experiment::faults).
nlohmann::json faults_summary(Experiment& exp);

}  // namespace rocelab
