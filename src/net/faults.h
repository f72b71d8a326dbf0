// Scripted faults and the mechanisms that answer them: links that fail, slow down or lose
// packets; a NIC that stops draining and storms its switch with PAUSE frames; the switch
// PFC watchdog; and a detector of PFC deadlocks (a cycle of paused queues that persists).
// Routing learns of a failure, and of its repair, after a detection delay, and converges
// to shortest paths over the links left (Routing::build with links down).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "net/egress_port.h"
#include "sim/lane.h"
#include "sim/simulator.h"

namespace rocelab {

class Network;

struct FaultEvent {
  enum class Kind : uint8_t {
    kLinkDown,  // the link fails (until: it comes back)
    kLinkRate,  // the link runs at rate_bps (until: its own rate again)
    kLinkLoss,  // each frame is lost with loss_rate (bit errors)
    kNicStall,  // host's NIC stops draining: it PAUSEs its switch and loses what arrives
  };
  Kind kind = Kind::kLinkDown;
  Time at;
  Time until = Time::never();  // never: to the end of the run
  // Link events: every link between two nodes (TopologySpec::links indices), and the
  // directions the fault takes, as (link, from the link's end a: else from its end b).
  std::vector<uint32_t> links;
  std::vector<std::pair<uint32_t, bool>> directions;
  std::string label;  // "leaf0-spine3": for reports
  BitsPerSec rate_bps = 0;
  double loss_rate = 0;
  uint32_t host = 0;      // kNicStall
  Priority priority = 3;  // kNicStall: the class its PAUSEs hold
  // kLinkDown: from the failure (and from the repair) to routing's convergence.
  Delta detection_delay;
  // kLinkDown of a host link whose NIC has other ports: from the failure (and the repair)
  // to the NIC moving the port's QPs (nic.failover_delay).
  Delta failover_delay;
};

// A switch PFC watchdog, as switch vendors document it (SONiC pfcwd, Arista EOS, Cisco NX-OS
// "PFC watchdog"): a queue held by PFC for detection_time without a break is declared in a
// storm; its action then runs until no PAUSE for it has come for restoration_time.
struct PfcWatchdogConfig {
  bool enabled = false;
  Delta detection_time = Delta::from_ms(200);    // SONiC pfcwd default
  Delta restoration_time = Delta::from_ms(200);  // SONiC pfcwd default
  std::string action = "drop";                   // drop | forward (ignore the PAUSEs)
};

struct DeadlockConfig {
  Delta check_interval;  // 0: no detector
  // A cycle counts once every queue in it has been paused this long without a break.
  Delta persist = Delta::from_us(500);
};

struct FaultsConfig {
  std::vector<FaultEvent> events;
  PfcWatchdogConfig watchdog;
  DeadlockConfig deadlock;
  // Nothing but the detector that runs by default under PFC: summary.json gets its faults
  // section only if it finds a deadlock.
  bool detector_only = false;
  bool active() const {
    return !events.empty() || watchdog.enabled || deadlock.check_interval > Delta::zero();
  }
};

// What happened, for summary.json's `faults` and the tests.
struct RoutingChange {
  Time time;
  uint32_t event;  // index in FaultsConfig::events
  bool links_up;   // the repair converged (false: the failure did)
};
// A NIC port's link failed and its QPs moved to other ports (or it came back).
struct NicFailover {
  Time time;
  NodeId host;
  uint32_t port = 0;
  bool down = true;        // the failure (false: the repair; no QP moves back)
  uint64_t qps_moved = 0;  // started, unfinished QPs moved off it (over every rank)
};

struct WatchdogAction {
  Time time;
  NodeId node;
  PortId port;
  uint32_t queue;
  bool storm;  // detected (true) or restored
};
struct Deadlock {
  Time formed;    // the latest pause start among the cycle's queues
  Time detected;  // the check that found it
  struct Queue {
    NodeId node;
    PortId port;
    NodeId peer;
    uint32_t queue;
  };
  std::vector<Queue> cycle;  // each waits for the next; the last for the first
};

class FaultInjector final : public EventHandler, public PauseObserver {
 public:
  FaultInjector(Network& net, const FaultsConfig& cfg);
  ~FaultInjector() override;

  void on_event(uint32_t kind, uint64_t arg) override;
  void on_pause_change(EgressPort& port, size_t queue, bool paused) override;
  // A lane per partition of a parallel run (Experiment::set_threads); the watchdog's logs
  // of the partitions merged into watchdog_actions() (between runs).
  void set_lanes(uint32_t partitions);
  void fold_lanes();
  // Over several ranks, after the run: every rank's watchdog actions, in one process's
  // order (a collective).
  void gather_over_ranks(RankGroup& ranks);
  void on_ignored_pause(EgressPort& port, size_t queue) override;

  const FaultsConfig& config() const { return cfg_; }
  const std::vector<RoutingChange>& routing_changes() const { return routing_changes_; }
  // Who moves a NIC's QPs off a failed port (the transport): it returns how many it moved
  // on this rank. Without one, a host link's failure moves nothing.
  using NicPortHandler = std::function<uint64_t(NodeId host, uint32_t port, bool down)>;
  void set_nic_port_handler(NicPortHandler h) { on_nic_port_ = std::move(h); }
  const std::vector<NicFailover>& nic_failovers() const { return nic_failovers_; }
  const std::vector<WatchdogAction>& watchdog_actions() const { return watchdog_log_; }
  // When the detector looked for a cycle (after the first pause since the last look).
  const std::vector<Time>& deadlock_checks() const { return deadlock_checks_; }
  uint64_t storm_pause_frames() const { return storm_pause_frames_; }
  // Set when the detector found a deadlock: the simulator was stopped there.
  const Deadlock* deadlock() const { return deadlock_.cycle.empty() ? nullptr : &deadlock_; }
  std::string describe(const Deadlock& d) const;

 private:
  enum Kind : uint32_t {
    kStart,
    kEnd,
    kConverge,
    kStormPause,
    kWatchdog,
    kRestore,
    kCheck,
    kPauseLapse,
    kFailover
  };
  // Failovers of the NIC ports that event i's links take down (down) or bring back.
  void schedule_failovers(uint32_t event, bool down);
  void failover(uint32_t link, bool down);
  void start(uint32_t event);
  void end(uint32_t event);
  void refresh_direction(uint32_t link, bool from_a);
  bool host_stalled(uint32_t host) const;
  void mark_queued_flows(const EgressPort& port);
  void set_nic_stalled(uint32_t host, bool stalled);
  void converge(uint32_t event, bool links_up);
  void storm_pause(uint32_t event, bool xoff);
  // Watchdog state per (switch port, queue), keyed port_key * 32 + queue.
  struct Watch {
    uint32_t generation = 0;
    bool storm = false;
    Time last_ignored_pause;
  };
  Watch& watch(const EgressPort& port, size_t queue);
  size_t port_key(const EgressPort& port) const;
  void watchdog_fire(uint64_t key, uint32_t generation);
  void restore_fire(uint64_t key);
  void check_deadlock();
  // A paused switch-to-switch queue that counts for the detector, and where its packets
  // came in (ingress port, priority).
  struct Held {
    NodeId node;
    PortId port;
    uint32_t queue = 0;
    Time pause_started;
    std::vector<std::pair<PortId, Priority>> from;
  };
  std::vector<Held> held_queues(Time now, Time& next_due) const;
  void gather_held(std::vector<Held>& held, Time& next_due) const;

  Network& net_;
  FaultsConfig cfg_;
  uint32_t handler_;                // global events: scripted faults, the detector's looks
  uint32_t node_handler_;           // the watchdog's timers, at their switch (kAnyLp)
  std::vector<uint8_t> link_down_;  // by link: routing treats it as failed
  std::vector<RoutingChange> routing_changes_;
  NicPortHandler on_nic_port_;
  std::vector<NicFailover> nic_failovers_;
  std::vector<WatchdogAction> watchdog_log_;
  struct KeyedAction {
    EventKey key;  // of the event that did it: the serial order
    WatchdogAction action;
  };
  PerLane<std::vector<KeyedAction>> watchdog_lanes_;
  std::vector<KeyedAction> pending_actions_;  // folded, not yet gathered over ranks
  void log_watchdog(const WatchdogAction& a);
  uint64_t storm_pause_frames_ = 0;
  std::vector<uint8_t> active_;                      // by event: started, not ended
  std::vector<uint8_t> ended_;                       // by event: its fault ended
  std::vector<uint8_t> converged_down_;              // by event: routing routes around its links
  std::vector<size_t> first_port_key_;               // by node
  std::vector<std::pair<NodeId, PortId>> key_port_;  // by port key
  std::vector<Watch> watches_;
  Deadlock deadlock_;
  bool check_pending_ = false;
  std::vector<Time> deadlock_checks_;
  // A parallel run's: the earliest check each lane's pauses asked for (its key: when, and
  // the pausing node's reserved number), merged after each window into the one a serial
  // run schedules (the first pause's after the last check).
  PerLane<EventKey> check_asked_{EventQueue::kNoKey};
  void merge_check_requests();
};

}  // namespace rocelab
