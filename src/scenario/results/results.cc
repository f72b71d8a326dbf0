#include "scenario/results/results.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "scenario/config/version.h"
#include "scenario/results/collectives.h"
#include "scenario/results/faults.h"
#include "scenario/results/nic_ports.h"
#include "scenario/results/ns3_fct.h"
#include "scenario/results/schema.h"
#include "scenario/results/text_lines.h"
#include "stats/fct_summary.h"

namespace rocelab {

namespace {

nlohmann::json fct_json(const std::vector<FctSample>& samples) {
  const FctSummary s = summarize(samples);
  return {{"flows", s.flows},
          {"afct_us", s.afct_us},
          {"p50_fct_us", s.p50_fct_us},
          {"p99_fct_us", s.p99_fct_us},
          {"mean_slowdown", s.mean_slowdown},
          {"p99_slowdown", s.p99_slowdown}};
}

struct LinkStats {
  uint64_t paused_links = 0;         // directed links whose sender was paused at least once
  uint64_t fabric_links = 0;         // directed switch-to-switch links
  double mean_paused_fraction = 0;   // over all directed links
  double fabric_utilization = 0;     // mean data utilisation of switch-to-switch links
  double host_link_utilization = 0;  // mean data utilisation of switch-to-host links
  // Pause episodes as the paused side sees them (a PAUSE on a port not paused, until an XON
  // or its time runs out), all ports and those of host NICs, and their total length.
  uint64_t pause_episodes = 0, host_pause_episodes = 0;
  double paused_time_us = 0;
};

LinkStats link_stats(Network& net, Time end) {
  LinkStats ls;
  double paused_sum = 0, util_sum = 0, host_util_sum = 0;
  uint64_t links = 0, host_links = 0;
  const double secs = end.seconds();
  for (size_t n = 0; n < net.node_count(); ++n) {
    const Node& node = net.node(NodeId(static_cast<uint32_t>(n)));
    for (size_t p = 0; p < node.port_count(); ++p) {
      const EgressPort& port = node.port(PortId(static_cast<uint16_t>(p)));
      ++links;
      if (port.counters().times_paused > 0) ++ls.paused_links;
      ls.pause_episodes += port.counters().times_paused;
      if (node.kind() == NodeKind::kHost) ls.host_pause_episodes += port.counters().times_paused;
      ls.paused_time_us += port.paused_time(end).us();
      if (secs > 0) paused_sum += port.paused_time(end).seconds() / secs;
      if (node.kind() != NodeKind::kSwitch || secs <= 0) continue;
      const double util = static_cast<double>(port.counters().tx_data_bytes) * 8 /
                          (static_cast<double>(port.rate_bps()) * secs);
      if (port.peer()->kind() == NodeKind::kSwitch) {
        ++ls.fabric_links;
        util_sum += util;
      } else {
        ++host_links;
        host_util_sum += util;
      }
    }
  }
  ls.mean_paused_fraction = links ? paused_sum / static_cast<double>(links) : 0;
  ls.fabric_utilization = ls.fabric_links ? util_sum / static_cast<double>(ls.fabric_links) : 0;
  ls.host_link_utilization = host_links ? host_util_sum / static_cast<double>(host_links) : 0;
  return ls;
}

}  // namespace

// How the run spread over threads (issue 52): the partitions' windows and where the wall
// time went. A serial run has one partition and no windows.
nlohmann::json parallel_profile_json(const Simulator& sim) {
  const ParallelProfile& p = sim.parallel_profile();
  nlohmann::json j;
  j["threads"] = sim.thread_count();
  j["ranks"] = sim.ranks() ? sim.ranks()->size() : 1;
  j["partitions"] = sim.partition_count();
  j["lookahead_ns"] = sim.parallel() ? static_cast<double>(sim.lookahead().ps) / 1e3 : 0.0;
  j["windows"] = p.windows;
  j["events_per_window"] =
      p.windows ? static_cast<double>(p.node_events) / static_cast<double>(p.windows) : 0.0;
  j["global_events"] = p.global_events;
  // With a core per partition and free barriers: node events / critical-path events.
  j["critical_path_share"] = p.node_events ? static_cast<double>(p.critical_path_events) /
                                                 static_cast<double>(p.node_events)
                                           : 1.0;
  // The speed-up on more cores the profile predicts (free barriers, equal events).
  nlohmann::json model = nlohmann::json::object();
  for (size_t m = 0; m < ParallelProfile::kModelCores.size(); ++m)
    model[std::to_string(ParallelProfile::kModelCores[m])] =
        p.makespan_events[m]
            ? static_cast<double>(p.node_events) / static_cast<double>(p.makespan_events[m])
            : 1.0;
  j["speedup_bound"] = model;
  nlohmann::json per = nlohmann::json::array();
  for (const uint64_t n : p.partition_events) per.push_back(n);
  j["partition_events"] = per;
  double busy_s = 0;
  for (const double s : p.thread_busy_s) busy_s += s;
  const auto threads = static_cast<double>(p.thread_busy_s.size());
  j["run_s"] = p.run_s;
  j["between_windows_s"] = p.between_windows_s;
  j["busy_s"] = busy_s;
  j["barrier_wait_s"] = std::max(0.0, (p.run_s - p.between_windows_s) * threads - busy_s);
  j["imbalance_s"] = p.imbalance_s;
  return j;
}

std::string ns_text(int64_t ps) {
  std::string text;
  append_ns(text, ps);
  return text;
}

nlohmann::json make_summary(const ScenarioConfig& c, Experiment& exp, const RunStats& st,
                            bool complete) {
  RdmaTransport& tr = exp.transport();
  Network& net = exp.network();
  std::vector<FctSample> all;
  std::map<std::string, std::vector<FctSample>> by_size, by_tag;
  for (const char* b : {"small", "medium", "large"}) by_size[b];
  for (const std::string& t : exp.tags()) by_tag[t];
  uint64_t completed = 0;
  for (const FlowRecord& r : tr.records()) {
    if (!r.finished()) continue;
    ++completed;
    const FctSample s{r.size_bytes, r.fct().us(), r.ideal_fct.us()};
    all.push_back(s);
    by_size[size_bucket_name(size_bucket(r.size_bytes))].push_back(s);
    by_tag[exp.tags()[r.tag]].push_back(s);
  }
  nlohmann::json j = fct_json(all);
  j.erase("flows");
  j["flows_total"] = tr.flow_count();
  j["qps_total"] = tr.qp_count();
  j["flows_completed"] = completed;
  for (auto& [name, samples] : by_size) j["by_size"][name] = fct_json(samples);
  for (auto& [name, samples] : by_tag) j["by_tag"][name] = fct_json(samples);

  const NetCounters& nc = net.counters();
  j["drops"] = nc.drops;
  j["ack_drops"] = nc.ack_drops;
  // Only the ConWeave-ns3 pause style lets a PAUSE run out while its ingress needs it, and
  // only an egress_alpha checks egress queues.
  auto losses = [&](const std::string& stem, const LossByLayer& l) {
    j[stem + "s"] = l.total();
    j[stem + "_bytes"] = l.bytes;
    for (const Layer layer : {Layer::kEdge, Layer::kAggregation, Layer::kCore})
      j[stem + "s_by_layer"][layer_name(layer)] = l.at(layer);
  };
  if (net.context().pfc_pause.style == PfcPauseStyle::kPerPacket)
    losses("pfc_lapse_drop", nc.lapse_drops);
  if (exp.spec().network.switch_config.pfc.egress_alpha > 0)
    losses("egress_threshold_drop", nc.egress_threshold_drops);
  j["pfc_pause_frames"] = nc.pause_frames;
  j["pfc_resume_frames"] = nc.resume_frames;
  std::map<std::string, uint64_t> by_layer = {{"edge", 0}, {"aggregation", 0}, {"core", 0}};
  for (NodeId s : net.switches())
    by_layer[layer_name(net.node(s).layer())] += nc.pause_frames_by_node[s.index()];
  const double secs = st.sim_end.seconds();
  for (const auto& [layer, n] : by_layer) {
    j["pfc_pause_frames_by_layer"][layer] = n;
    j["pfc_pause_rate_per_s_by_layer"][layer] = secs > 0 ? static_cast<double>(n) / secs : 0.0;
  }
  const LinkStats ls = link_stats(net, st.sim_end);
  j["paused_links"] = ls.paused_links;
  j["mean_paused_time_fraction"] = ls.mean_paused_fraction;
  j["pfc_pause_episodes"] = ls.pause_episodes;
  j["pfc_pause_episodes_at_hosts"] = ls.host_pause_episodes;
  j["pfc_paused_time_us"] = ls.paused_time_us;
  j["fabric_utilization"] = ls.fabric_utilization;
  j["host_link_utilization"] = ls.host_link_utilization;
  j["ecn_marks"] = nc.ecn_marks;
  j["cnps_suppressed"] = nc.cnps_suppressed;
  // Figures the load balancers and the host path policy report (FLB: reroutes, CNMs,
  // isolation, table memory; Hermes, MP-RDMA), the flow control's (BFC) and the switch
  // features' (NP-ECN).
  std::vector<SchemeStat> lb_items, fc_items, feature_items;
  for (NodeId s : net.switches()) net.add_switch_stats(s, lb_items, fc_items, feature_items);
  tr.add_path_stats(lb_items);
  j["lb_stats"] = nlohmann::json::object();
  for (const auto& [name, v] : combine(lb_items)) j["lb_stats"][name] = v;
  j["fc_stats"] = nlohmann::json::object();
  for (const auto& [name, v] : combine(fc_items)) j["fc_stats"][name] = v;
  j["feature_stats"] = nlohmann::json::object();
  for (const auto& [name, v] : combine(feature_items)) j["feature_stats"][name] = v;

  const TransportCounters& tc = tr.counters();
  j["data_packets"] = tc.data_packets_sent;
  j["retransmitted_bytes"] = tc.retransmitted_bytes;
  j["cnps"] = tc.cnps_sent;
  j["naks"] = tc.naks_sent;
  j["timeouts"] = tc.timeouts;
  j["bitmap_drops"] = tc.bitmap_drops;
  j["ooo_window_drops"] = tc.ooo_window_drops;
  j["out_of_order_packets"] = tc.out_of_order_packets;
  j["network_reordered_packets"] = tc.network_reordered_packets;
  j["network_reordered_ratio"] = tc.data_packets_sent
                                     ? static_cast<double>(tc.network_reordered_packets) /
                                           static_cast<double>(tc.data_packets_sent)
                                     : 0.0;
  // Proteus Fig. 12a's "HoL-blocking flows": flows with a data packet that waited through a
  // PFC PAUSE at a switch-to-switch egress queue (EgressPort::watch_hol_blocking).
  // The mark is the packets' flow's: a message of a shared QP counts when its QP is marked.
  uint64_t hol_blocked = 0;
  for (const FlowRecord& r : tr.records()) hol_blocked += nc.hol_blocked(r.qp);
  j["hol_blocked_flows"] = hol_blocked;
  j["hol_blocked_flow_ratio"] =
      tr.flow_count() ? static_cast<double>(hol_blocked) / static_cast<double>(tr.flow_count())
                      : 0.0;
  // Reordering as FLB Fig. 11 reports it: p99 out-of-order degree over the out-of-order
  // arrivals (packets), and the share of data packets that arrived out of order.
  const auto& hist = tr.ood_histogram();
  uint64_t ood_total = 0, seen = 0;
  for (uint64_t c : hist) ood_total += c;
  size_t p99 = 0;
  for (; p99 < hist.size() && ood_total > 0; ++p99) {
    seen += hist[p99];
    if (seen * 100 >= ood_total * 99) break;  // nearest rank
  }
  j["ood_p99_packets"] = ood_total ? p99 : 0;
  j["disordered_ratio"] = tc.data_packets_sent ? static_cast<double>(tc.out_of_order_packets) /
                                                     static_cast<double>(tc.data_packets_sent)
                                               : 0.0;

  if (!exp.spec().collectives.empty())
    j["collectives"] = collectives_summary(collective_results(exp));
  if (exp.faults() && (!exp.spec().faults.detector_only || exp.faults()->deadlock()))
    j["faults"] = faults_summary(exp);
  add_nic_port_figures(exp, j);

  j["events"] = st.events;
  j["sim_time_ns"] = st.sim_end.ps / 1000;
  j["wall_s"] = st.wall_s;
  j["events_per_s"] = st.wall_s > 0 ? static_cast<double>(st.events) / st.wall_s : 0.0;
  j["parallel"] = parallel_profile_json(exp.sim());
  j["parallel"]["partition"] = c.parallel_partition;
  j["seed"] = c.seed;
  j["version"] = rocelab_version();
  j["scheme"] = c.lb + "+" + c.cc + "+" + c.fc;
  j["complete"] = complete;
  return j;
}

void write_flows_csv(const std::string& path, Experiment& exp) {
  std::ofstream file(path);
  TextLines out(file);
  out.put(results_schema().csv_header("flows.csv"));
  out.end_line();
  const TopologySpec& topo = exp.network().topology();
  const NetCounters& nc = exp.network().counters();
  for (const FlowRecord& r : exp.transport().records()) {
    out.put_int(r.id.index()).put(',').put(topo.nodes[r.src.index()].name).put(',');
    out.put(topo.nodes[r.dst.index()].name).put(',').put_int(r.size_bytes).put(',');
    out.put_ns(r.start.ps).put(',');
    if (r.finished()) {
      // As stats/fct_summary.cc: not floored at 1; 1 for a flow with nothing to send.
      const double slowdown =
          r.ideal_fct.ps > 0 ? static_cast<double>(r.fct().ps) / static_cast<double>(r.ideal_fct.ps)
                             : 1.0;
      out.put_ns(r.finish.ps).put(',').put_ns(r.fct().ps).put(',').put_ns(r.ideal_fct.ps);
      out.put(',').put_fixed(slowdown, 6);
    } else {
      out.put(",,").put_ns(r.ideal_fct.ps).put(',');
    }
    out.put(',').put(exp.tags()[r.tag]).put(',').put(nc.hol_blocked(r.qp) ? '1' : '0');
    out.put(',').put_int(r.qp.index()).put(',').put_int(r.sport);
    out.end_line();
  }
}

void write_fct_file(const std::string& path, Experiment& exp, const std::string& style) {
  std::vector<FctLine> lines;
  for (const FlowRecord& r : exp.transport().records()) {
    if (!r.finished()) continue;
    lines.push_back(FctLine{r.src.index(), r.dst.index(), r.sport, r.dport, r.size_bytes,
                            r.start.ps / 1000, r.fct().ps / 1000, r.ideal_fct.ps / 1000});
  }
  std::ofstream out(path);
  write_ns3_fct(out, lines, style == "conweave" ? Ns3FctStyle::kConweave : Ns3FctStyle::kHpcc);
}

void write_run_dir(const std::string& dir, ScenarioConfig& c, Experiment& exp,
                   const nlohmann::json& summary) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/summary.json") << summary.dump(2) << '\n';
  std::ofstream resolved(dir + "/config.resolved.yaml");
  resolved << "# rocelab " << rocelab_version() << ": every parameter of this run; "
           << "`rocelab run` on this file repeats it.\n";
  // Values the run derived from the configuration (FLB Appendix A's threshold range).
  const auto& lb = summary["lb_stats"];
  if (lb.contains("flb_isolation_threshold_bytes")) {
    resolved << "# FLB isolation threshold K used: "
             << static_cast<int64_t>(lb["flb_isolation_threshold_bytes"].get<double>())
             << " B; Appendix A range [2dC, Q_PFC/n - 2dC(n-1)) = ["
             << static_cast<int64_t>(lb["flb_k_range_low_bytes"].get<double>()) << ", "
             << static_cast<int64_t>(lb["flb_k_range_high_bytes"].get<double>())
             << ") B for n = lb.isolation_n\n";
  }
  if (!exp.spec().rto_derivation.empty())
    resolved << "# transport.rto auto: " << exp.spec().rto_derivation << "\n";
  resolved << resolved_yaml(c);
  if (c.outputs.flows_csv) write_flows_csv(dir + "/flows.csv", exp);
  if (!exp.spec().collectives.empty())
    write_collectives_csv(dir + "/collectives.csv", exp, collective_results(exp));
  if (c.outputs.ns3_fct) write_fct_file(dir + "/fct.txt", exp, c.outputs.ns3_fct_style);
}

}  // namespace rocelab
