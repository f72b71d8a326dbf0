// The scenario's faults as the user writes them: `events:` (timed link failures, degraded
// and lossy links, NIC stalls) and `faults:` (routing's detection delay, the switch PFC
// watchdog, the deadlock detector). scenario/build/fault_build.h turns them into
// net/faults.h's FaultsConfig.
#pragma once

#include <string>
#include <vector>

#include "net/faults.h"
#include "sim/params.h"

namespace rocelab {

struct EventConfig {
  std::string type = "link_down";  // link_down | link_rate | link_loss | nic_stall
  Delta at;
  Delta until;                     // 0: to the end of the run
  std::string a, b;                // link events: the link(s) between these nodes
  std::string direction = "both";  // both | a_to_b | b_to_a
  BitsPerSec rate_bps = 0;         // link_rate
  double loss_rate = 0;            // link_loss
  std::string host;                // nic_stall
  int64_t priority = -1;           // nic_stall: -1 = the transport's data priority
};

struct FaultsSettings {
  // Local loss-of-signal detection and a hardware ECMP update at the switches next to the
  // failure take about a millisecond; fabric-wide BGP convergence takes 100 ms and more
  // (docs/studies/faults.md). One delay for the whole fabric: the stated reading.
  Delta detection_delay = Delta::from_ms(1);
  PfcWatchdogConfig watchdog;
  std::string deadlock = "auto";  // auto (on under PFC, or with events) | on | off
  Delta deadlock_check_interval = Delta::from_us(100);
  Delta deadlock_persist = Delta::from_us(500);
};

void describe_events(ParamVisitor& v, std::vector<EventConfig>& events);
void describe(ParamVisitor& v, FaultsSettings& f);

}  // namespace rocelab
