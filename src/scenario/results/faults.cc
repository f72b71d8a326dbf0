#include "scenario/results/faults.h"

#include "stats/fct_summary.h"

namespace rocelab {

namespace {

const char* kind_name(FaultEvent::Kind k) {
  switch (k) {
    case FaultEvent::Kind::kLinkDown:
      return "link_down";
    case FaultEvent::Kind::kLinkRate:
      return "link_rate";
    case FaultEvent::Kind::kLinkLoss:
      return "link_loss";
    case FaultEvent::Kind::kNicStall:
      return "nic_stall";
  }
  return "?";
}

double us_of(Time t) {
  return t == Time::never() ? -1.0 : t.us();
}

// The flows that crossed a fault (marked 1 or 2) and those that lost a packet to one (2):
// their FCTs, and when the last of them finished.
nlohmann::json flows_json(Experiment& exp, uint8_t level) {
  const NetCounters& nc = exp.network().counters();
  std::vector<FctSample> done;
  uint64_t marked = 0;
  Time last_finish;
  for (const FlowRecord& r : exp.transport().records()) {
    if (nc.fault_flow(r.qp) < level) continue;
    ++marked;
    if (!r.finished()) continue;
    done.push_back(FctSample{r.size_bytes, r.fct().us(), r.ideal_fct.us()});
    last_finish = std::max(last_finish, r.finish);
  }
  const FctSummary s = summarize(done);
  return {{"flows", marked},
          {"completed", done.size()},
          {"afct_us", s.afct_us},
          {"p99_fct_us", s.p99_fct_us},
          {"mean_slowdown", s.mean_slowdown},
          {"p99_slowdown", s.p99_slowdown},
          {"last_finish_us", done.empty() ? 0.0 : last_finish.us()}};
}

}  // namespace

nlohmann::json faults_summary(Experiment& exp) {
  const FaultInjector* fi = exp.faults();
  if (fi == nullptr) return nullptr;
  const NetCounters& nc = exp.network().counters();
  nlohmann::json j;
  Time first = Time::never();
  j["events"] = nlohmann::json::array();
  for (const FaultEvent& e : fi->config().events) {
    first = std::min(first, e.at);
    j["events"].push_back({{"type", kind_name(e.kind)},
                           {"on", e.label},
                           {"at_us", e.at.us()},
                           {"until_us", us_of(e.until)}});
  }
  uint64_t lost_data = 0, lost_control = 0;
  for (size_t c = 0; c < nc.fault_losses.size(); ++c) {
    const FaultLossCount& n = nc.fault_losses[c];
    j["lost"][kFaultLossNames[c]] = {{"data_packets", n.data_packets},
                                     {"data_bytes", n.data_bytes},
                                     {"control_frames", n.control_frames}};
    lost_data += n.data_packets;
    lost_control += n.control_frames;
  }
  j["lost_data_packets"] = lost_data;
  j["lost_control_frames"] = lost_control;
  j["last_loss_us"] = lost_data + lost_control > 0 ? nc.last_fault_loss.us() : 0.0;
  // NICs of several ports only: a single-port run's summary keeps its keys.
  if (exp.network().context().routing.multi_port()) {
    j["nic_failovers"] = nlohmann::json::array();
    for (const NicFailover& f : fi->nic_failovers())
      j["nic_failovers"].push_back({{"at_us", f.time.us()},
                                    {"host", exp.network().node(f.host).name()},
                                    {"port", f.port},
                                    {"down", f.down},
                                    {"qps_moved", f.qps_moved}});
  }
  j["routing_changes"] = nlohmann::json::array();
  for (const RoutingChange& r : fi->routing_changes())
    j["routing_changes"].push_back(
        {{"time_us", r.time.us()}, {"event", r.event}, {"links_up", r.links_up}});
  uint64_t storms = 0, restorations = 0;
  for (const WatchdogAction& a : fi->watchdog_actions()) (a.storm ? storms : restorations)++;
  j["watchdog"] = {{"storms", storms}, {"restorations", restorations}};
  j["watchdog"]["actions"] = nlohmann::json::array();
  for (const WatchdogAction& a : fi->watchdog_actions())
    j["watchdog"]["actions"].push_back({{"time_us", a.time.us()},
                                        {"switch", exp.network().node(a.node).name()},
                                        {"port", a.port.index()},
                                        {"queue", a.queue},
                                        {"storm", a.storm}});
  j["storm_pause_frames"] = fi->storm_pause_frames();
  j["crossed"] = flows_json(exp, 1);
  j["lost_flows"] = flows_json(exp, 2);
  // From the first fault to the end of the last flow that lost a packet to one; -1 when
  // one of them never finished.
  const double lost_done = j["lost_flows"]["last_finish_us"].get<double>();
  j["recovery_us"] = j["lost_flows"]["completed"] != j["lost_flows"]["flows"] ? -1.0
                     : first != Time::never() && lost_done > 0 ? lost_done - first.us()
                                                               : 0.0;
  j["stale_lb_choices"] = nc.stale_lb_choices;
  const Deadlock* d = fi->deadlock();
  j["deadlock"] = {{"detected", d != nullptr},
                   {"formed_us", d ? d->formed.us() : 0.0},
                   {"detected_us", d ? d->detected.us() : 0.0},
                   {"message", d ? fi->describe(*d) : std::string()},
                   {"cycle", nlohmann::json::array()}};
  if (d)
    for (const Deadlock::Queue& q : d->cycle)
      j["deadlock"]["cycle"].push_back({{"switch", exp.network().node(q.node).name()},
                                        {"port", q.port.index()},
                                        {"to", exp.network().node(q.peer).name()},
                                        {"queue", q.queue}});
  return j;
}

}  // namespace rocelab
