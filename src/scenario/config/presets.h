// Presets by name (the scenario's `preset`, `rocelab import --preset`): the settings of an
// ns-3 reference simulator, applied before the scenario file is read. Adding one is a
// function (plus, if it sets scheme parameters, one per scheme family) and one line in
// preset_registry().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "net/load_balancer.h"
#include "scenario/config/scenario_config.h"
#include "sim/registry.h"
#include "transport/congestion_control.h"

namespace rocelab {

struct Preset {
  // The preset's defaults for the scenario.
  std::function<void(ScenarioConfig&)> apply;
  // Its values for a load balancer's / congestion control's parameters, applied whenever
  // they are made (the scheme is picked after the preset); empty when it has none.
  std::function<void(LbConfig&)> lb;
  std::function<void(CcConfig&)> cc;
  // Whether the simulator's NIC holds its ACKs while its data class is paused, under
  // congestion control `cc` (transport.ack_pause: auto); empty: it never does.
  std::function<bool(const std::string& cc)> acks_wait;
};

// transport.ack_pause: auto under `preset` and congestion control `cc`: kWait or kSend.
AckPause resolve_ack_pause(AckPause mode, const std::string& preset, const std::string& cc);

const Registry<Preset>& preset_registry();
// The names a scenario may give: "none" (rocelab's own defaults) and every preset.
std::vector<std::string> preset_choices();

}  // namespace rocelab
