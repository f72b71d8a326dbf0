#include "scenario/build/fault_build.h"

#include <algorithm>

#include "scenario/config/yaml_params.h"
#include "sim/units.h"

namespace rocelab {

namespace {

uint32_t node_named(const TopologySpec& topo, const std::string& name, const std::string& key) {
  uint32_t planes = 1;
  for (uint32_t i = 0; i < topo.nodes.size(); ++i) {
    if (topo.nodes[i].name == name) return i;
    planes = std::max<uint32_t>(planes, topo.nodes[i].plane + 1u);
  }
  // A plane's switches are <name>_p<k>: say which planes there are.
  const size_t at = name.rfind("_p");
  if (planes > 1 && at != std::string::npos && at + 2 < name.size() &&
      name.find_first_not_of("0123456789", at + 2) == std::string::npos)
    throw ConfigError(key + ": the topology has " + std::to_string(planes) + " planes (0 to " +
                      std::to_string(planes - 1) + "); '" + name + "' names plane " +
                      name.substr(at + 2) + ", which is none of them");
  throw ConfigError(key + ": the topology has no node named '" + name + "'");
}

void resolve_link(const EventConfig& ec, const TopologySpec& topo, const std::string& key,
                  FaultEvent& e) {
  const uint32_t a = node_named(topo, ec.a, key + ".a");
  const uint32_t b = node_named(topo, ec.b, key + ".b");
  const bool forward = ec.direction != "b_to_a";  // what a sends to b
  const bool backward = ec.direction != "a_to_b";
  for (uint32_t l = 0; l < topo.links.size(); ++l) {
    const LinkSpec& link = topo.links[l];
    const bool same = link.a == a && link.b == b;
    if (!same && !(link.a == b && link.b == a)) continue;
    e.links.push_back(l);
    // The port sending from the link's end a carries what a sends when a is `a`.
    if (same ? forward : backward) e.directions.emplace_back(l, true);
    if (same ? backward : forward) e.directions.emplace_back(l, false);
    if (ec.type == "link_rate" && ec.rate_bps > link.rate_bps)
      throw ConfigError(key + ".rate: " + format_rate(ec.rate_bps) + " is above the link's " +
                        format_rate(link.rate_bps) + " (" + ec.a + "-" + ec.b + ")");
  }
  if (e.links.empty())
    throw ConfigError(key + ": no link between '" + ec.a + "' and '" + ec.b + "'");
  e.label = ec.a + "-" + ec.b;
}

}  // namespace

FaultsConfig build_faults(const ScenarioConfig& c, const TopologySpec& topo, Time stop,
                          Priority data_priority) {
  FaultsConfig f;
  f.watchdog = c.faults.watchdog;
  // BFC and SFQ carry every data queue in one PFC class, whose PAUSE holds them all: the
  // watchdog and the detector, which follow pauses queue by queue, do not see those.
  const bool per_queue_pfc = c.fc == "pfc" || c.fc == "none";
  if (!per_queue_pfc && f.watchdog.enabled)
    throw ConfigError(
        "faults.pfc_watchdog.enabled: the watchdog follows PFC queue by queue, "
        "and fc: " +
        c.fc + " holds every queue with one PAUSE; use fc: pfc");
  if (!per_queue_pfc && c.faults.deadlock == "on")
    throw ConfigError("faults.deadlock.detect: the detector follows PFC queue by queue, and fc: " +
                      c.fc + " holds every queue with one PAUSE; use fc: pfc (auto: off here)");
  // Auto: on wherever PFC can pause a queue, so that a deadlock ends a run with its cycle
  // rather than at the time limit. It schedules nothing while no switch-to-switch queue is
  // paused.
  const bool detect =
      per_queue_pfc && (c.faults.deadlock == "on" ||
                        (c.faults.deadlock == "auto" && (c.fc == "pfc" || !c.events.empty())));
  if (detect) {
    f.deadlock.check_interval = c.faults.deadlock_check_interval;
    f.deadlock.persist = c.faults.deadlock_persist;
  }
  f.detector_only =
      detect && c.faults.deadlock == "auto" && c.events.empty() && !f.watchdog.enabled;
  for (size_t i = 0; i < c.events.size(); ++i) {
    const EventConfig& ec = c.events[i];
    const std::string key = "events." + std::to_string(i);
    FaultEvent e;
    e.at = Time::zero() + ec.at;
    if (stop != Time::never() && e.at >= stop)
      throw ConfigError(key + ".at: " + format_duration(ec.at) +
                        " is not before the run's end (stop.time " +
                        format_duration(stop - Time::zero()) + ")");
    e.until = ec.until > Delta::zero() ? Time::zero() + ec.until : Time::never();
    e.detection_delay = c.faults.detection_delay;
    e.failover_delay =
        c.transport.failover_auto ? c.faults.detection_delay : c.transport.failover_delay;
    if (ec.type == "nic_stall") {
      e.kind = FaultEvent::Kind::kNicStall;
      e.host = node_named(topo, ec.host, key + ".host");
      if (topo.nodes[e.host].kind != NodeKind::kHost)
        throw ConfigError(key + ".host: '" + ec.host + "' is a switch; a NIC stall needs a host");
      e.priority = ec.priority >= 0 ? static_cast<Priority>(ec.priority) : data_priority;
      e.label = ec.host;
    } else {
      e.kind = ec.type == "link_down"   ? FaultEvent::Kind::kLinkDown
               : ec.type == "link_rate" ? FaultEvent::Kind::kLinkRate
                                        : FaultEvent::Kind::kLinkLoss;
      resolve_link(ec, topo, key, e);
      e.rate_bps = ec.rate_bps;
      e.loss_rate = ec.loss_rate;
    }
    f.events.push_back(std::move(e));
  }
  return f;
}

}  // namespace rocelab
