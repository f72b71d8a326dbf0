#include "scenario/run/runner.h"
#include "fc/fc_registry.h"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cc/cc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/build/scenario_build.h"
#include "scenario/config/yaml_params.h"
#include "scenario/results/results.h"
#include "scenario/results/schema.h"
#include "scenario/run/buffer_sampler.h"
#include "scenario/run/timeseries.h"
#include "sim/units.h"

namespace rocelab {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr const char* kInterruptedInDrain = "not checked: interrupted during the drain";

// The model's invariants at the end of a run (DESIGN.md): every flow done, bytes conserved,
// no drop under PFC, buffers and the packet pool empty once what is in flight has landed.
// "ok", or the first one broken. Runs stopped early are checked for drops only. The
// summary's figures are taken before the drain, so they do not depend on it.
std::string broken_invariant(Experiment& exp, bool interrupted,
                             const std::function<bool()>& keep_draining) {
  if (interrupted) return "not checked: interrupted";
  if (exp.faults() && exp.faults()->deadlock()) return exp.check_invariants();
  if (exp.transport().counters().flows_finished < exp.transport().flow_count()) {
    const std::string dropped = exp.drop_invariant();
    return dropped.empty() ? "ok" : dropped;
  }
  if (!exp.drain(keep_draining)) return std::string(kInterruptedInDrain);
  const std::string broken = exp.check_invariants();
  return broken.empty() ? "ok" : broken;
}

// Each rank checks its own nodes (and the totals every rank holds): the first rank's
// broken invariant, else "ok".
std::string first_broken_over_ranks(RankGroup& ranks, const std::string& mine) {
  Bytes bytes(mine.size());
  std::memcpy(bytes.data(), mine.data(), mine.size());
  for (const Bytes& theirs : ranks.gather_all(std::move(bytes))) {
    std::string text(theirs.size(), '\0');
    std::memcpy(text.data(), theirs.data(), theirs.size());
    if (text != "ok") return text;
  }
  return "ok";
}

// One line, rewritten in place: simulated time, flows finished, speed, time left.
void print_progress(const std::string& label, Experiment& exp, Time end, double elapsed_s) {
  const auto& tc = exp.transport().counters();
  const size_t flows = exp.transport().flow_count();
  // The fraction done: of the simulated time when the run has an end, else of the flows.
  const double frac = end != Time::never() ? exp.sim().now().seconds() / end.seconds()
                                           : static_cast<double>(tc.flows_finished) /
                                                 static_cast<double>(std::max<size_t>(1, flows));
  const std::string eta = frac > 0 ? fmt::format("{:.0f} s", elapsed_s * (1 - frac) / frac) : "-";
  std::fprintf(stderr, "\r\033[K%ssimulated %.3f ms, flows %llu/%zu, %.2f M events/s, ETA %s",
               label.c_str(), exp.sim().now().seconds() * 1e3,
               static_cast<unsigned long long>(tc.flows_finished), flows,
               static_cast<double>(exp.sim().events_processed()) / elapsed_s / 1e6, eta.c_str());
  std::fflush(stderr);
}

// A loss a preset's model makes on purpose (summary keys `<stem>s`, `<stem>_bytes`,
// `<stem>s_by_layer`): a note saying how many, where and why. Returns how many.
uint64_t preset_loss_note(const nlohmann::json& s, const std::string& stem, const char* what,
                          const char* why, std::vector<std::string>& notes) {
  const uint64_t n = s.value(stem + "s", uint64_t{0});
  if (n == 0) return 0;
  const nlohmann::json& by = s[stem + "s_by_layer"];
  notes.push_back(
      fmt::format("{} packets ({:.1f} MB) {} (edge {}, aggregation {}, core {} "
                  "switches): {}",
                  n, static_cast<double>(s[stem + "_bytes"].get<uint64_t>()) / 1e6, what,
                  by["edge"].get<uint64_t>(), by["aggregation"].get<uint64_t>(),
                  by["core"].get<uint64_t>(), why));
  return n;
}

// A timeout in a run that lost nothing and saw nothing out of order fired only because the
// data or its ACK waited longer than the timer in a queue: what it resent is needless
// traffic the user should know about (a timer shorter than the fabric's queueing, as a
// 1 ms timer under deep PFC backlogs; ConWeave-ns3 moves its timer on every send).
std::vector<std::string> run_notes(const nlohmann::json& s, const TransportConfig& t) {
  std::vector<std::string> notes;
  const uint64_t timeouts = s["timeouts"].get<uint64_t>();
  const bool fault_losses =
      s.contains("faults") && (s["faults"]["lost_data_packets"].get<uint64_t>() > 0 ||
                               s["faults"]["lost_control_frames"].get<uint64_t>() > 0);
  const uint64_t lapse_drops = preset_loss_note(
      s, "pfc_lapse_drop", "were lost where a PAUSE ran out while its ingress still needed it",
      "fc.pause_style: per_packet sends a 5 us PAUSE per packet with no refresh, as "
      "ConWeave-ns3 does, and loses what overflows the headroom after, as it does. They are not "
      "in drops; fc.pause_style: standard gives 802.1Qbb's PFC, which loses nothing.",
      notes);
  const uint64_t egress_drops = preset_loss_note(
      s, "egress_threshold_drop", "were dropped by an egress queue's dynamic threshold",
      "fc.egress_alpha checks each packet at its egress queue before its ingress, as "
      "ConWeave-ns3's switch does, and PFC does not stop that loss. They are not in drops; "
      "fc.egress_alpha: 0 turns the check off.",
      notes);
  if (timeouts > 0 && s["drops"].get<uint64_t>() == 0 && lapse_drops == 0 && egress_drops == 0 &&
      s["bitmap_drops"].get<uint64_t>() == 0 && s["ooo_window_drops"].get<uint64_t>() == 0 &&
      s["out_of_order_packets"].get<uint64_t>() == 0 && !fault_losses) {
    notes.push_back(fmt::format(
        "{} retransmission timeout{} with nothing lost or out of order: the timer "
        "(transport.rto {}{}) fired while data or ACKs were still queued, and {} were resent "
        "needlessly. A longer transport.rto{} avoids it.",
        timeouts, timeouts == 1 ? "" : "s", format_duration(t.rto),
        t.rto_restarts_on_send ? ", restarted by every send" : ", restarted by new ACKs",
        format_bytes(static_cast<int64_t>(s["retransmitted_bytes"].get<uint64_t>())),
        t.rto_restarts_on_send ? "" : ", or transport.rto_restarts_on_send: true,"));
  }
  // A run that reached its time limit with flows unfinished: its figures leave them out.
  const uint64_t total = s["flows_total"].get<uint64_t>();
  const uint64_t done = s["flows_completed"].get<uint64_t>();
  const bool deadlocked = s.contains("faults") && s["faults"].contains("deadlock") &&
                          s["faults"]["deadlock"]["detected"].get<bool>();
  if (s.value("complete", false) && done < total && !deadlocked) {
    notes.push_back(fmt::format(
        "{} of {} flows had not finished when the run stopped at {} simulated (stop.time): "
        "the figures above leave them out. A later stop.time lets them finish; flows that "
        "never move may be held by a PFC deadlock (faults.deadlock.detect: on looks for one).",
        total - done, total, format_duration(Delta{s["sim_time_ns"].get<int64_t>() * 1000})));
  }
  return notes;
}

}  // namespace

nlohmann::json run_scenario(ScenarioConfig& c, const RunOptions& o) {
  Experiment exp(build_experiment(c));
  const ExperimentSpec& spec = exp.spec();
  std::unique_ptr<TimeSeriesRecorder> ts;
  // PFC events are recorded as they happen, with or without a sampling interval.
  if (!o.out_dir.empty() && (c.outputs.timeseries_interval > Delta::zero() || c.outputs.pfc_events))
    ts = std::make_unique<TimeSeriesRecorder>(exp, c.outputs, o.out_dir,
                                              o.ranks && o.ranks->size() > 1 ? o.ranks : nullptr);
  std::unique_ptr<BufferSampler> buffers;
  if (c.outputs.buffer_sample_interval > Delta::zero())
    buffers = std::make_unique<BufferSampler>(exp, c.outputs.buffer_sample_interval);
  RankGroup* ranks = o.ranks && o.ranks->size() > 1 ? o.ranks : nullptr;
  try {
    if (ranks) {
      // Recorders that look at every node from outside it (not yet carried between ranks).
      exp.set_ranks(*ranks, o.threads, o.partitions);
    } else {
      exp.set_threads(o.threads, o.partitions);
    }
    if (ts && exp.sim().parallel()) ts->set_lanes(exp.sim().partition_count());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  // Over several ranks every rank takes each decision below alike: what decides is summed.
  auto over_ranks = [&](uint64_t mine) {
    if (ranks) ranks->sum_u64({&mine, 1});
    return mine;
  };

  const Time end = spec.stop;
  const auto t0 = Clock::now();
  auto last_print = t0;
  bool printed = false;
  // About once a second, on a terminal only: a log file gets the final line alone.
  const bool show_progress = !o.quiet && ::isatty(2) && (!ranks || ranks->rank() == 0);
  Delta chunk = Delta::from_us(10);
  // Ctrl-C or SIGTERM, on any rank.
  const auto interrupt_asked = [&] {
    return over_ranks(o.interrupted && o.interrupted->load() ? 1 : 0) > 0;
  };
  bool interrupted = false;
  for (;;) {
    if (interrupt_asked()) {
      interrupted = true;
      break;
    }
    const auto c0 = Clock::now();
    const Time target = std::min(end, exp.sim().now() + chunk);
    const RunStats st = exp.run(target);
    if (ts) ts->write_pfc_records();  // a parallel run's, so far: memory stays bounded
    if (st.done || exp.sim().now() >= end || over_ranks(exp.sim().pending_events()) == 0 ||
        (exp.faults() && exp.faults()->deadlock()))
      break;
    // Aim at ~0.1 s of wall time per chunk, so Ctrl-C and the progress line stay prompt.
    const double w = seconds_since(c0);
    if (w < 0.05 && chunk < Delta::from_ms(100)) chunk = chunk * 2;
    if (w > 0.2 && chunk > Delta::from_ns(100)) chunk = chunk / 2;
    if (show_progress && seconds_since(last_print) >= 1.0) {
      last_print = Clock::now();
      print_progress(o.label, exp, end, seconds_since(t0));
      printed = true;
    }
  }
  if (printed) std::fprintf(stderr, "\n");
  RunStats total;
  total.events = over_ranks(exp.sim().events_processed());
  total.wall_s = seconds_since(t0);
  total.sim_end = exp.sim().now();
  if (ts) ts->finish();
  if (buffers) buffers->finish();
  exp.gather_results();
  nlohmann::json summary = make_summary(c, exp, total, !interrupted);
  if (buffers) {
    if (ranks) buffers->gather_over_ranks(*ranks);
    summary["switch_buffer"] = buffers->summary();
    summary["switch_buffer_p99_kb"] = summary["switch_buffer"]["p99_kb"];
  }
  // Ctrl-C during the drain ends it too: the results stand, marked incomplete.
  std::string invariants = broken_invariant(exp, interrupted, [&] { return !interrupt_asked(); });
  if (invariants == kInterruptedInDrain) summary["complete"] = false;
  if (ranks) {
    invariants = first_broken_over_ranks(*ranks, invariants);
    // What the drain marked (flows.csv's hol_blocked is written after it).
    exp.network().gather_hol_blocked_over_ranks(*ranks);
  }
  summary["invariants"] = invariants;
  summary["notes"] = run_notes(summary, exp.transport().config());
  if (!o.out_dir.empty() && (!ranks || ranks->rank() == 0))
    write_run_dir(o.out_dir, c, exp, summary);
  return summary;
}

std::vector<SchemeTriple> parse_schemes(const std::string& list) {
  std::vector<SchemeTriple> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    std::vector<std::string> parts;
    std::stringstream is(item);
    for (std::string p; std::getline(is, p, '+');) parts.push_back(p);
    if (parts.size() < 2 || parts.size() > 3)
      throw ConfigError("--schemes: '" + item + "' must be LB+CC or LB+CC+FC");
    SchemeTriple t{parts[0], parts[1], parts.size() == 3 ? parts[2] : "pfc"};
    auto check = [&](const std::string& name, std::vector<std::string> known, const char* what) {
      if (std::find(known.begin(), known.end(), name) != known.end()) return;
      const std::string hint = did_you_mean(name, known);
      throw ConfigError("--schemes: unknown " + std::string(what) + " '" + name + "' in '" + item +
                        "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    };
    check(t.lb, lb_registry().names(), "load balancer");
    check(t.cc, cc_registry().names(), "congestion control");
    check(t.fc, fc_registry().names(), "flow control");
    out.push_back(t);
  }
  if (out.empty()) throw ConfigError("--schemes: give at least one LB+CC combination");
  return out;
}

std::vector<std::pair<std::string, std::string>> headline_values(const nlohmann::json& s) {
  std::vector<std::pair<std::string, std::string>> out;
  auto num = [](const nlohmann::json& v) {
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
    if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  // The columns the schema names (python/rocelab/schema.json "headline"), where the summary
  // has them: switch_buffer_p99_kb only with buffer sampling.
  for (const std::string& key : results_schema().headline())
    if (const nlohmann::json* v = find_dotted(s, key)) out.emplace_back(key, num(*v));
  return out;
}

std::string compare_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  std::string out = fmt::format("{:<24} {:>9} {:>10} {:>11} {:>8} {:>8} {:>8} {:>10} {:>7} {:>6}\n",
                                "scheme", "done", "AFCT(us)", "p99FCT(us)", "p99sd-S", "p99sd-M",
                                "p99sd-L", "PAUSE/s", "paused", "util");
  for (const auto& run : runs) {
    const std::string& name = run.first;
    const nlohmann::json& s = run.second;
    const double secs = static_cast<double>(s["sim_time_ns"].get<int64_t>()) * 1e-9;
    const double pause_rate =
        secs > 0 ? static_cast<double>(s["pfc_pause_frames"].get<uint64_t>()) / secs : 0;
    auto bucket = [&](const char* b) {
      const auto& j = s["by_size"][b];
      return j["flows"].get<uint64_t>() ? fmt::format("{:.2f}", j["p99_slowdown"].get<double>())
                                        : std::string("-");
    };
    out += fmt::format(
        "{:<24} {:>9} {:>10.1f} {:>11.1f} {:>8} {:>8} {:>8} {:>10.3g} {:>7} {:>5.1f}%\n", name,
        fmt::format("{}/{}", s["flows_completed"].get<uint64_t>(),
                    s["flows_total"].get<uint64_t>()),
        s["afct_us"].get<double>(), s["p99_fct_us"].get<double>(), bucket("small"),
        bucket("medium"), bucket("large"), pause_rate, s["paused_links"].get<uint64_t>(),
        100 * s["fabric_utilization"].get<double>());
  }
  return out;
}

std::string compare_csv(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto values = headline_values(runs[i].second);
    if (i == 0) {
      out += "scheme";
      for (const auto& [k, v] : values) out += "," + k;
      out += "\n";
    }
    out += runs[i].first;
    for (const auto& [k, v] : values) out += "," + v;
    out += "\n";
  }
  return out;
}

}  // namespace rocelab
