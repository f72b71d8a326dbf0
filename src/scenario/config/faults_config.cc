#include "scenario/config/faults_config.h"

namespace rocelab {

namespace {
const std::string kEventTypes[] = {"link_down", "link_rate", "link_loss", "nic_stall"};
const std::string kDirections[] = {"both", "a_to_b", "b_to_a"};
const std::string kDeadlockModes[] = {"auto", "on", "off"};
const std::string kWatchdogActions[] = {"drop", "forward"};

void describe_event(ParamVisitor& v, EventConfig& e) {
  v.choice("type", e.type, kEventTypes,
           "link_down: the link fails; link_rate: it runs slower; link_loss: it loses frames "
           "(bit errors); nic_stall: a host's NIC stops draining and PAUSEs its switch");
  v.duration("at", e.at, Delta::zero(), Delta::max(), "when it starts");
  v.duration("until", e.until, Delta::zero(), Delta::max(), "when it ends; 0 = never");
  v.require(e.until == Delta::zero() || e.until > e.at, "until", "must be after `at`");
  const bool link = e.type != "nic_stall";
  v.text("a", e.a, "link events: a node at one end of the link");
  v.text("b", e.b, "link events: the node at the other end");
  v.require(!link || (!e.a.empty() && !e.b.empty()), link && e.a.empty() ? "a" : "b",
            "a link event names both ends of its link (a and b)");
  v.choice("direction", e.direction, kDirections,
           "which directions of the link the fault takes (a_to_b: what a sends to b)");
  v.rate("rate", e.rate_bps, 0, kNoLimit, "link_rate: the rate it falls to");
  v.require(e.type != "link_rate" || e.rate_bps > 0, "rate", "link_rate needs a rate");
  v.real("loss_rate", e.loss_rate, 0, 1, "link_loss: probability that a frame is lost");
  v.require(e.type != "link_loss" || e.loss_rate > 0, "loss_rate",
            "link_loss needs a loss_rate above 0");
  v.text("host", e.host, "nic_stall: the host whose NIC stalls");
  v.require(e.type != "nic_stall" || !e.host.empty(), "host", "nic_stall names its host");
  v.require(e.type != "nic_stall" || e.until > Delta::zero(), "until",
            "a nic_stall needs an end: a NIC that never drains again holds its flows, and its "
            "PAUSEs, forever");
  v.integer("priority", e.priority, -1, 7,
            "nic_stall: the priority its PAUSEs hold; -1 = transport.data_priority");
}
}  // namespace

void describe_events(ParamVisitor& v, std::vector<EventConfig>& events) {
  size_t n = events.size();
  v.list(
      "events", n, [&](size_t k) { events.resize(k); },
      [&](ParamVisitor& item, size_t i) { describe_event(item, events[i]); },
      "timed faults: links that fail, slow down or lose frames; NICs that stall");
}

void describe(ParamVisitor& v, FaultsSettings& f) {
  v.duration("detection_delay", f.detection_delay, Delta::zero(), Delta::max(),
             "from a link's failure (or repair) to routing's convergence over the links left");
  v.section(
      "pfc_watchdog",
      [&](ParamVisitor& s) {
        s.flag("enabled", f.watchdog.enabled, "switches run a PFC watchdog on every queue");
        s.duration("detection_time", f.watchdog.detection_time, Delta::from_ns(1), Delta::max(),
                   "a queue paused this long without a break is in a storm (SONiC: 200ms)");
        s.duration("restoration_time", f.watchdog.restoration_time, Delta::from_ns(1), Delta::max(),
                   "the action ends once no PAUSE came for the queue for this long (SONiC: "
                   "200ms)");
        s.choice("action", f.watchdog.action, kWatchdogActions,
                 "drop: the queue's packets and arrivals are dropped, its PAUSEs ignored; "
                 "forward: its PAUSEs are ignored");
      },
      "the switch PFC watchdog");
  v.section(
      "deadlock",
      [&](ParamVisitor& s) {
        s.choice("detect", f.deadlock, kDeadlockModes,
                 "look for cycles of paused queues (auto: under fc: pfc, or when the scenario has "
                 "events)");
        s.duration("check_interval", f.deadlock_check_interval, Delta::from_ns(1), Delta::max(),
                   "how often to look while switch-to-switch queues are paused");
        s.duration("persist", f.deadlock_persist, Delta::zero(), Delta::max(),
                   "every queue of a cycle must have been paused this long");
      },
      "the PFC deadlock detector: a run that deadlocks ends with the cycle");
}

}  // namespace rocelab
