// Flow controls and egress schedulers by name (`fc.name`, `switch.scheduler`).
#pragma once

#include <functional>
#include <memory>

#include "net/egress_scheduler.h"
#include "net/flow_control.h"
#include "sim/registry.h"

namespace rocelab {

using FlowControlFactory = std::function<std::shared_ptr<FlowControlConfig>()>;
const Registry<FlowControlFactory>& fc_registry();

using SchedulerFactory = std::function<std::shared_ptr<const SchedulerConfig>()>;
const Registry<SchedulerFactory>& scheduler_registry();

}  // namespace rocelab
