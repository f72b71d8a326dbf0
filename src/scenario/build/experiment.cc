#include "scenario/build/experiment.h"

#include <algorithm>

#include <stdexcept>

#include "cc/cc_registry.h"
#include "fc/fc_registry.h"
#include "lb/lb_registry.h"
#include "scenario/build/partition.h"
#include "scenario/config/switch_features.h"

namespace rocelab {

namespace {

const Registry<SwitchFeatureFactory>::Entry& feature_entry(const std::string& name) {
  return *switch_feature_registry().find(name);  // names checked by switch_feature_names
}
std::unique_ptr<CongestionControl> make_cc(const ExperimentSpec& spec) {
  if (spec.cc_config) return spec.cc_config->build();
  const auto* entry = cc_registry().find(spec.cc);
  if (!entry) throw std::invalid_argument("unknown congestion control '" + spec.cc + "'");
  return entry->factory()->build();
}

}  // namespace

NetworkConfig resolved_network(const ExperimentSpec& spec) {
  NetworkConfig n = spec.network;
  if (spec.fc_config) {
    n.flow_control = spec.fc_config;
    n.switch_config.pfc.enabled = n.flow_control->lossless();
  } else if (!spec.fc.empty()) {
    const auto* entry = fc_registry().find(spec.fc);
    if (!entry) throw std::invalid_argument("unknown flow control '" + spec.fc + "'");
    n.flow_control = entry->factory();
    n.switch_config.pfc.enabled = n.flow_control->lossless();
  }
  if (!spec.scheduler.empty()) {
    const auto* entry = scheduler_registry().find(spec.scheduler);
    if (!entry) throw std::invalid_argument("unknown egress scheduler '" + spec.scheduler + "'");
    n.scheduler = entry->factory();
  }
  return n;
}

namespace {
std::shared_ptr<const LbConfig> lb_config(const ExperimentSpec& spec) {
  if (spec.lb_config) return spec.lb_config;
  const auto* entry = lb_registry().find(spec.lb);
  if (!entry) throw std::invalid_argument("unknown load balancer '" + spec.lb + "'");
  return entry->factory();
}
}  // namespace

Experiment::Experiment(ExperimentSpec spec) : Experiment(std::move(spec), nullptr) {
  // MP-RDMA's policy owns the window; a congestion control would overwrite or cap it.
  if (spec_.transport.path_policy == "mprdma" && spec_.cc != "none")
    throw std::invalid_argument(
        "transport.path_policy: mprdma has its own window; it needs "
        "cc: none (got '" +
        spec_.cc + "')");
}

Experiment::Experiment(ExperimentSpec spec, std::unique_ptr<CongestionControl> cc)
    : spec_(std::move(spec)) {
  if (!cc) cc = make_cc(spec_);
  spec_.network = resolved_network(spec_);
  const CcFabricNeeds needs = cc->fabric_needs();
  const std::shared_ptr<const LbConfig> lb = lb_config(spec_);
  const std::vector<std::string> features = switch_feature_names(needs.switch_features);
  // Every scheme's header, in the wire model before the network (and its headroom) is built.
  spec_.network.wire.data_header_bytes += needs.data_header_bytes + lb->header_bytes().data;
  spec_.network.wire.ack_bytes += needs.ack_header_bytes + lb->header_bytes().ack;
  NetCounterLanes unbound;  // a feature's configuration is asked before the counters exist
  for (const std::string& n : features) {
    const HeaderBytes h = feature_entry(n).factory(unbound)->header_bytes();
    spec_.network.wire.data_header_bytes += h.data;
    spec_.network.wire.ack_bytes += h.ack;
  }
  net_ = std::make_unique<Network>(sim_, spec_.topology, spec_.network);
  for (const std::string& n : features)
    net_->install_switch_feature(*feature_entry(n).factory(net_->context().counter_lanes));
  net_->install_load_balancers(*lb);
  transport_ = std::make_unique<RdmaTransport>(*net_, spec_.transport, std::move(cc));
  // A stop takes effect at the next multiple of the smallest link delay: the lookahead of
  // any partitioning of the network, so that a parallel run's windows stay whole.
  Delta min_delay = Delta::max();
  for (const LinkSpec& l : spec_.topology.links) min_delay = std::min(min_delay, l.delay);
  sim_.set_stop_quantum(Delta{std::clamp<int64_t>(min_delay.ps, 1, Delta::from_ms(1).ps)});
  transport_->set_on_finish([this](const FlowRecord&) {
    const size_t finished = finished_.fetch_add(1, std::memory_order_relaxed) + 1;
    // Over several ranks, each counts its own: a window hook adds them up.
    if (finished == transport_->flow_count() && spec_.stop_when_done && !sim_.ranks()) sim_.stop();
  });
  add_flows(spec_.flows);
  if (spec_.faults.active()) {
    faults_ = std::make_unique<FaultInjector>(*net_, spec_.faults);
    faults_->set_nic_port_handler([this](NodeId host, uint32_t port, bool down) {
      return transport_->set_nic_port_down(host, port, down);
    });
  }
  // The transport holds every flow now; a second copy would cost 64 MB per million flows.
  spec_.flows = {};
}

std::vector<std::string> Experiment::switch_feature_names(
    const std::vector<std::string>& cc_features) const {
  std::vector<std::string> names;
  if (spec_.network.switch_config.ecn.enabled) names.push_back("ecn");
  for (const std::string& n : spec_.switch_features) {
    if (n == "ecn")
      throw std::invalid_argument("switch feature 'ecn' is set by switch.ecn.enabled");
    names.push_back(n);
  }
  // The congestion control's own needs, once each, after what the scenario lists.
  for (const std::string& n : cc_features)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  // NP-ECN is PCN's marking in place of RED's: one marker per switch, not two.
  if (std::find(names.begin(), names.end(), "np_ecn") != names.end())
    std::erase(names, std::string("ecn"));
  for (const std::string& n : names)
    if (!switch_feature_registry().find(n))
      throw std::invalid_argument("unknown switch feature '" + n + "'");
  return names;
}

void Experiment::add_flows(const std::vector<FlowSpec>& flows) {
  const uint32_t first = static_cast<uint32_t>(transport_->flow_count());
  // A flow that is no later message of a QP (or one of no bytes) opens a QP.
  const size_t qps = static_cast<size_t>(std::count_if(
      flows.begin(), flows.end(), [](const FlowSpec& f) { return !f.qp || f.size_bytes == 0; }));
  transport_->reserve_flows(first + flows.size(), transport_->qp_count() + qps);
  std::vector<FlowId> after;
  for (size_t i = 0; i < flows.size(); ++i) {
    const FlowSpec& f = flows[i];
    if (f.src_host >= net_->node_count() || f.dst_host >= net_->node_count() ||
        net_->node(NodeId(f.src_host)).kind() != NodeKind::kHost ||
        net_->node(NodeId(f.dst_host)).kind() != NodeKind::kHost || f.src_host == f.dst_host)
      throw std::invalid_argument("flow " + std::to_string(f.src_host) + "->" +
                                  std::to_string(f.dst_host) + " must join two distinct hosts");
    uint16_t tag = 0;
    while (tag < tags_.size() && tags_[tag] != f.tag) ++tag;
    if (tag == tags_.size()) tags_.push_back(f.tag);
    after.clear();
    for (uint32_t d : f.after) {
      if (d >= i)
        throw std::invalid_argument("flow " + std::to_string(i) + " waits for flow " +
                                    std::to_string(d) + ", which does not come before it");
      after.push_back(FlowId(first + d));
    }
    FlowId behind;
    if (f.behind) {
      if (*f.behind >= i)
        throw std::invalid_argument("flow " + std::to_string(i) + " is queued behind flow " +
                                    std::to_string(*f.behind) + ", which does not come before it");
      behind = FlowId(first + *f.behind);
    }
    std::optional<FlowId> qp;
    if (f.qp) {
      if (*f.qp >= i)
        throw std::invalid_argument("flow " + std::to_string(i) + " is a message of QP " +
                                    std::to_string(*f.qp) + ", which does not come before it");
      qp = FlowId(first + *f.qp);
    }
    transport_->add_flow(NodeId(f.src_host), NodeId(f.dst_host), f.size_bytes, f.start, tag,
                         f.sport, f.dport, f.path, FlowWait{after, f.after_delay, behind}, qp);
    if (!spec_.collectives.empty()) {
      if (after_offset_.empty()) after_offset_.assign(first + 1, 0);
      after_.insert(after_.end(), f.after.begin(), f.after.end());
      for (uint32_t& a : std::span(after_).last(f.after.size())) a += first;
      after_offset_.push_back(static_cast<uint32_t>(after_.size()));
      after_delay_.resize(first + i, Delta{});
      after_delay_.push_back(f.after_delay);
    }
  }
}

bool Experiment::drain(const std::function<bool()>& keep_going) {
  // 10 us, doubling to 1 ms: little is in flight after the flows, so a chunk is quick, and
  // a timer far ahead is reached in a few empty ones.
  Delta chunk = Delta::from_us(10);
  bool drained = true;
  const auto pending = [this] {  // over ranks, every rank's: they drain in step
    uint64_t n = sim_.pending_events();
    if (sim_.ranks()) sim_.ranks()->sum_u64({&n, 1});
    return n;
  };
  while (pending() > 0) {
    if (keep_going && !keep_going()) {
      drained = false;
      break;
    }
    sim_.run_until(sim_.now() + chunk);
    if (chunk < Delta::from_ms(1)) chunk = chunk * 2;
  }
  net_->fold_counters();
  transport_->fold_lanes();
  if (faults_) faults_->fold_lanes();
  return drained;
}

void Experiment::set_threads(uint32_t threads, uint32_t partitions) {
  cut(std::max(threads, 1u), partitions, nullptr);
}

void Experiment::set_ranks(RankGroup& group, uint32_t threads, uint32_t partitions) {
  if (group.size() == 1) {
    set_threads(threads, partitions);
    return;
  }
  threads = std::max(threads, 1u);
  if (!cut(threads, partitions == 0 ? group.size() * threads * 4 : partitions, &group))
    throw std::invalid_argument("the network has one edge switch: nothing to spread over " +
                                std::to_string(group.size()) + " ranks");
}

// Contiguous runs of partitions, as even as the count allows: neighbouring partitions
// (pods, runs of edge switches) share a rank, so fewer frames cross between ranks.
std::vector<uint32_t> Experiment::deal_to_ranks(uint32_t partitions, uint32_t ranks) {
  std::vector<uint32_t> rank(partitions);
  for (uint32_t i = 0; i < partitions; ++i)
    rank[i] = static_cast<uint32_t>(uint64_t{i} * ranks / partitions);
  return rank;
}

bool Experiment::cut(uint32_t threads, uint32_t partitions, RankGroup* group) {
  const PartitionBy by = partition_by(spec_.partition);
  const bool ranks = group != nullptr;
  if (partitions == 1 && !ranks) return false;  // asked for one
  if (by == PartitionBy::kAuto) {
    if (partitions == 0) partitions = threads == 1 ? 1 : threads * 4;
    if (partitions <= 1 && !ranks) return false;
  } else {
    if (partitions > 1 && !ranks)
      throw std::invalid_argument("--partitions " + std::to_string(partitions) +
                                  ": parallel.partition: " + spec_.partition +
                                  " sets the partitions (auto lets --partitions choose)");
    if (threads == 1 && !ranks) {  // one thread runs serially; the cut is checked all the same
      plan_partitions(*net_, 0, {}, by);
      return false;
    }
  }
  if (sim_.events_processed() > 0)
    throw std::invalid_argument("--threads: set before the run starts");
  // More partitions than threads: a thread that finishes its partition takes another, so
  // a busy one (an incast's) holds one thread while the rest share the others.
  // Hosts whose flows release each other's share a partition (a ring's neighbours do not:
  // each releases its own next send).
  const PartitionPlan plan = plan_partitions(*net_, by == PartitionBy::kAuto ? partitions : 0,
                                             transport_->dependent_host_pairs(), by);
  if (plan.count < 2) return false;  // one edge switch: nothing to cut
  if (ranks && plan.count < group->size())
    throw std::invalid_argument("the network cuts into " + std::to_string(plan.count) +
                                " partitions, fewer than the " + std::to_string(group->size()) +
                                " ranks");
  if (plan.lookahead.ps <= 0) {
    const TopologySpec& topo = net_->topology();
    std::string named;
    for (const uint32_t l : plan.cut_links)
      if (topo.links[l].delay.ps <= 0)
        named = topo.nodes[topo.links[l].a].name + " - " + topo.nodes[topo.links[l].b].name;
    throw std::invalid_argument("--threads: the link " + named +
                                " between two partitions has no delay (no lookahead); give it "
                                "one, or a parallel.partition that keeps it whole");
  }
  for (const uint32_t l : plan.cut_links) {
    net_->link_port(l, true).set_cut(true);
    net_->link_port(l, false).set_cut(true);
  }
  if (faults_) {
    // What a node's pause asks of the watchdog and the detector happens between windows:
    // not sooner than a window's length after the pause.
    const FaultsConfig& f = spec_.faults;
    const Delta check = std::max(f.deadlock.persist, f.deadlock.check_interval);
    if (f.deadlock.check_interval > Delta::zero() && check < plan.lookahead)
      throw std::invalid_argument("--threads: faults.deadlock's check_interval and persist (" +
                                  std::to_string(check.ps / 1000) +
                                  " ns) are shorter than a window (the cut links' delay, " +
                                  std::to_string(plan.lookahead.ps / 1000) + " ns)");
    faults_->set_lanes(plan.count);
  }
  net_->set_lanes(plan.count);
  transport_->set_lanes(plan.count);
  sim_.set_partitions(plan.node_partition, plan.count, plan.lookahead, threads);
  if (ranks) {
    codec_ = std::make_unique<CutFrameCodec>(*net_);
    sim_.set_ranks(*group, deal_to_ranks(plan.count, group->size()), *codec_);
    // The last flow to finish may be another rank's: each window, the ranks add up theirs.
    all_finished_over_ranks_ = transport_->flow_count() == 0;
    sim_.add_window_hook([this] { count_finished_over_ranks(); });
  }
  return true;
}

void Experiment::gather_results() {
  RankGroup* ranks = sim_.ranks();
  if (!ranks || gathered_) return;
  gathered_ = true;
  net_->gather_over_ranks(*ranks, sim_.now());
  transport_->gather_over_ranks(*ranks);
  if (faults_) faults_->gather_over_ranks(*ranks);
}

void Experiment::count_finished_over_ranks() {
  uint64_t finished = finished_.load(std::memory_order_relaxed);
  sim_.ranks()->sum_u64({&finished, 1});
  const bool all = finished == transport_->flow_count();
  if (all && !all_finished_over_ranks_ && spec_.stop_when_done) sim_.stop_in_window();
  all_finished_over_ranks_ = all;
}

RunStats Experiment::run(Time until) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t events0 = sim_.events_processed();
  Time end = std::min(until, spec_.stop);
  if (RankGroup* ranks = sim_.ranks()) {  // every rank runs to the same point
    auto ps = static_cast<uint64_t>(end.ps);
    ranks->min_u64({&ps, 1});
    end = Time{static_cast<int64_t>(ps)};
  }
  const size_t flows = transport_->flow_count();
  // All flows done and the stop reached (or no flow at all to ask for it): nothing to run.
  const bool over = spec_.stop_when_done && all_finished() && (flows == 0 || sim_.stopped());
  if (!over) sim_.run_until(end);
  net_->fold_counters();
  transport_->fold_lanes();
  if (faults_) faults_->fold_lanes();
  RunStats st;
  st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.events = sim_.events_processed() - events0;
  st.sim_end = sim_.now();
  st.all_finished = all_finished();
  st.done = spec_.stop_when_done && st.all_finished && (flows == 0 || sim_.stopped());
  return st;
}

std::string Experiment::drop_invariant() const {
  const NetCounters& c = net_->counters();
  if (!net_->flow_control().lossless() || c.drops == 0) return {};
  std::string broken = std::to_string(c.drops) + " packets dropped with PFC on";
  // Not a fault of the model: a host sends ACKs whatever PAUSE it is under (as the ns-3
  // forks' NICs do with ACK_HIGH_PRIO 1), and these switches count them in the lossless
  // class, so a paused ingress can run out of headroom (HPCC-ns3's switches do the same).
  if (c.ack_drops > 0)
    broken += ", " + std::to_string(c.ack_drops) +
              " of them ACK/NAK frames: under switch.ack_queue: data they count in the lossless "
              "class, and a host sends them through a PAUSE (transport.ack_pause: send), into "
              "its switch port's headroom";
  return broken;
}

std::string Experiment::check_invariants() const {
  if (faults_ && faults_->deadlock()) return faults_->describe(*faults_->deadlock());
  const auto& tc = transport_->counters();
  uint64_t total = 0;
  for (const FlowRecord& r : transport_->records()) {
    if (!r.finished()) return "flow " + std::to_string(r.id.index()) + " did not finish";
    total += r.size_bytes;
  }
  if (tc.payload_bytes_delivered != total)
    return "bytes delivered " + std::to_string(tc.payload_bytes_delivered) + " != bytes of flows " +
           std::to_string(total);
  if (std::string dropped = drop_invariant(); !dropped.empty()) return dropped;
  // Duplicates and control packets may still be in flight after the last ACK: the network
  // is checked only once the event list has drained.
  if (sim_.pending_events() == 0) {
    const std::string drained = net_->check_drained();
    if (!drained.empty()) return drained;
    if (net_->pool().in_use() != 0)
      return std::to_string(net_->pool().in_use()) + " packets leaked from the pool";
  }
  return {};
}

}  // namespace rocelab
