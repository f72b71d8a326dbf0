#include "scenario/results/collectives.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "scenario/results/results.h"
#include "scenario/results/schema.h"
#include "scenario/results/text_lines.h"

namespace rocelab {

namespace {

// Flow f alone on its idle default route, from its first bit on the sender's wire to its
// last bit at the receiver: what a dependent flow waits for at line rate.
Delta alone_delay(Experiment& exp, const FlowRecord& r) {
  if (r.size_bytes == 0) return Delta{};
  const WireModel& w = exp.network().context().wire;
  const uint64_t mtu = w.mtu_payload_bytes;
  const uint64_t frames = (r.size_bytes + mtu - 1) / mtu;
  const uint32_t last = w.data_wire_bytes(static_cast<uint32_t>(r.size_bytes - (frames - 1) * mtu));
  return exp.network().message_delay(r.src, r.dst, frames, w.mtu_wire_bytes(), last,
                                     exp.transport().nic_port_of(r.qp));
}

uint64_t wire_bytes(const WireModel& w, uint64_t payload) {
  const uint64_t mtu = w.mtu_payload_bytes;
  if (payload == 0) return 0;
  const uint64_t frames = (payload + mtu - 1) / mtu;
  return (frames - 1) * w.mtu_wire_bytes() +
         w.data_wire_bytes(static_cast<uint32_t>(payload - (frames - 1) * mtu));
}

// The collective alone at line rate, a lower bound: the longer of its dependency graph's
// critical path with every flow alone on its route (alone_delay, plus the graph's compute
// delays) and the busiest NIC's wire bytes, sent or received, at its line rate. Exact for
// a ring whose steps follow one another; it omits the ACKs a NIC sends among its data.
Delta ideal_time(Experiment& exp, const CollectiveSpec& c) {
  const RdmaTransport& tr = exp.transport();
  std::vector<Delta> done(c.flow_count);
  Delta critical{};
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> nic_bytes;  // host -> (sent, received)
  const WireModel& w = exp.network().context().wire;
  for (uint32_t i = 0; i < c.flow_count; ++i) {
    const uint32_t f = c.first_flow + i;
    const FlowRecord& r = tr.record(FlowId(f));
    Delta ready{};
    for (uint32_t a : exp.waited_for(f))
      if (a >= c.first_flow && a < f)
        ready = std::max(ready, done[a - c.first_flow] + exp.wait_delay(f));
    done[i] = ready + alone_delay(exp, r);
    critical = std::max(critical, done[i]);
    nic_bytes[r.src.index()].first += wire_bytes(w, r.size_bytes);
    nic_bytes[r.dst.index()].second += wire_bytes(w, r.size_bytes);
  }
  Delta busiest{};
  for (const auto& [host, b] : nic_bytes) {
    const BitsPerSec rate = exp.network().nic_nominal_rate_bps(NodeId(host));
    busiest = std::max({busiest, w.serialize(static_cast<int64_t>(b.first), rate),
                        w.serialize(static_cast<int64_t>(b.second), rate)});
  }
  return std::max(critical, busiest);
}

void find_straggler(Experiment& exp, const CollectiveSpec& c, CollectiveResult& out) {
  std::vector<std::pair<uint32_t, uint32_t>> by_step;  // (step, flow)
  for (uint32_t i = 0; i < c.flow_count; ++i) by_step.emplace_back(c.step[i], c.first_flow + i);
  std::sort(by_step.begin(), by_step.end());
  const RdmaTransport& tr = exp.transport();
  std::vector<Time> at;
  for (size_t b = 0; b < by_step.size();) {
    size_t e = b;
    at.clear();
    uint32_t last = by_step[b].second;
    while (e < by_step.size() && by_step[e].first == by_step[b].first) {
      const FlowRecord& r = tr.record(FlowId(by_step[e].second));
      at.push_back(r.delivered);
      if (r.delivered > tr.record(FlowId(last)).delivered) last = by_step[e].second;
      ++e;
    }
    std::nth_element(at.begin(), at.begin() + at.size() / 2, at.end());
    const Delta lag = tr.record(FlowId(last)).delivered - at[at.size() / 2];
    if (lag > out.straggler_lag) {
      out.straggler_lag = lag;
      out.straggler_step = by_step[b].first;
      out.straggler_host = tr.record(FlowId(last)).dst.index();
    }
    out.steps = by_step[b].first + 1u;
    b = e;
  }
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

double CollectiveResult::slowdown() const {
  return ideal.ps > 0 ? static_cast<double>(cct().ps) / static_cast<double>(ideal.ps) : 1.0;
}
double CollectiveResult::algbw_GBps() const {
  const double group_bytes = static_cast<double>(spec->size_bytes) / spec->groups;
  return cct().ps > 0 ? group_bytes / cct().seconds() / 1e9 : 0.0;
}
double CollectiveResult::busbw_GBps() const {
  return algbw_GBps() * busbw_factor(spec->op, spec->ranks / spec->groups);
}

std::vector<CollectiveResult> collective_results(Experiment& exp) {
  std::vector<CollectiveResult> out;
  const RdmaTransport& tr = exp.transport();
  for (const CollectiveSpec& c : exp.spec().collectives) {
    CollectiveResult r;
    r.spec = &c;
    r.complete = true;
    r.start = Time::never();
    r.end = Time::zero();
    for (uint32_t i = 0; i < c.flow_count; ++i) {
      const FlowRecord& f = tr.record(FlowId(c.first_flow + i));
      r.start = std::min(r.start, f.start);
      if (f.delivered == Time::never()) r.complete = false;
      r.end = std::max(r.end, f.delivered);
    }
    r.ideal = ideal_time(exp, c);
    if (r.complete) find_straggler(exp, c, r);
    out.push_back(r);
  }
  return out;
}

nlohmann::json collectives_summary(const std::vector<CollectiveResult>& results) {
  if (results.empty()) return nullptr;
  std::vector<double> cct, slowdown, busbw;
  struct Job {
    Time start, end;
    uint32_t collectives = 0, iterations = 0;
    bool complete = true;
    std::vector<double> cct, slowdown, busbw, lag;
  };
  std::map<std::string, Job> jobs;
  size_t complete = 0;
  for (const CollectiveResult& r : results) {
    Job& j = jobs[r.spec->job];
    if (j.collectives++ == 0) j.start = r.spec->job_start;
    j.iterations = std::max(j.iterations, r.spec->iteration + 1);
    if (!r.complete) {
      j.complete = false;
      continue;
    }
    ++complete;
    cct.push_back(r.cct().us());
    slowdown.push_back(r.slowdown());
    busbw.push_back(r.busbw_GBps());
    j.end = std::max(j.end, r.end);
    j.cct.push_back(r.cct().us());
    j.slowdown.push_back(r.slowdown());
    j.busbw.push_back(r.busbw_GBps());
    j.lag.push_back(r.straggler_lag.us());
  }
  nlohmann::json s;
  s["count"] = results.size();
  s["completed"] = complete;
  s["mean_cct_us"] = mean(cct);
  s["max_cct_us"] = cct.empty() ? 0.0 : *std::max_element(cct.begin(), cct.end());
  s["mean_slowdown"] = mean(slowdown);
  s["max_slowdown"] = slowdown.empty() ? 0.0 : *std::max_element(slowdown.begin(), slowdown.end());
  s["mean_busbw_GBps"] = mean(busbw);
  double jct = 0;
  for (const auto& [name, j] : jobs) {
    nlohmann::json& o = s["by_job"][name];
    o["collectives"] = j.collectives;
    o["complete"] = j.complete;
    const double job_us = j.complete ? (j.end - j.start).us() : 0.0;
    o["jct_us"] = job_us;
    o["mean_iteration_us"] = j.complete ? job_us / j.iterations : 0.0;
    o["mean_cct_us"] = mean(j.cct);
    o["mean_slowdown"] = mean(j.slowdown);
    o["mean_busbw_GBps"] = mean(j.busbw);
    o["max_straggler_lag_us"] = j.lag.empty() ? 0.0 : *std::max_element(j.lag.begin(), j.lag.end());
    jct = std::max(jct, job_us);
  }
  s["jct_us"] = jct;
  return s;
}

void write_collectives_csv(const std::string& path, Experiment& exp,
                           const std::vector<CollectiveResult>& results) {
  std::ofstream file(path);
  TextLines out(file);
  out.put(results_schema().csv_header("collectives.csv"));
  out.end_line();
  const TopologySpec& topo = exp.network().topology();
  for (const CollectiveResult& r : results) {
    const CollectiveSpec& c = *r.spec;
    out.put(c.job).put(',').put_int(c.iteration).put(',').put_int(c.phase).put(',');
    out.put(collective_op_name(c.op));
    out.put(',').put(collective_algorithm_name(c.algorithm)).put(',').put_int(c.ranks);
    out.put(',').put_int(c.size_bytes).put(',').put_int(c.first_flow).put(',');
    out.put_int(c.flow_count).put(',').put_int(r.steps).put(',').put_ns(r.start.ps).put(',');
    if (r.complete) {
      out.put_ns(r.end.ps).put(',').put_fixed(r.cct().us(), 3).put(',');
      out.put_fixed(r.ideal.us(), 3).put(',').put_fixed(r.slowdown(), 6).put(',');
      out.put_fixed(r.algbw_GBps(), 3).put(',').put_fixed(r.busbw_GBps(), 3).put(',');
      out.put_int(r.straggler_step).put(',').put(topo.nodes[r.straggler_host].name).put(',');
      out.put_fixed(r.straggler_lag.us(), 3);
    } else {
      out.put(",,").put_fixed(r.ideal.us(), 3).put(",,,,,,");
    }
    out.end_line();
  }
}

}  // namespace rocelab
