// One simulation assembled from data: topology, network and transport configuration,
// scheme names (looked up in the registries) and flows. Runs it and checks the model's
// invariants. The scenario-file front end builds on this.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "net/cut_frame_codec.h"
#include "net/faults.h"
#include "net/network.h"
#include "transport/rdma_transport.h"
#include "workload/collective.h"
#include "workload/flow_spec.h"

namespace rocelab {

struct ExperimentSpec {
  TopologySpec topology;
  NetworkConfig network;
  TransportConfig transport;
  std::string lb = "ecmp";
  std::string cc = "none";
  // Flow control and egress scheduler by name (fc/fc_registry.h); empty keeps what
  // `network` says (its plug points, else PFC per switch_config.pfc.enabled, and DRR).
  std::string fc;
  std::string scheduler;
  // Switch features by name (scenario/config/switch_features.h), in pipeline order after RED/ECN,
  // which runs first when network.switch_config.ecn.enabled.
  std::vector<std::string> switch_features;
  // Configured schemes; when null, the registry's defaults for `lb` / `cc` are used.
  std::shared_ptr<const LbConfig> lb_config;
  std::shared_ptr<const FlowControlConfig> fc_config;  // else the registry's `fc`
  std::shared_ptr<const CcConfig> cc_config;
  std::vector<FlowSpec> flows;
  // Collectives among the flows (workload/collective.h), for their own metrics.
  std::vector<CollectiveSpec> collectives;
  Time stop = Time::never();
  bool stop_when_done = true;  // end as soon as every flow has finished
  // How set_threads cuts the network (parallel.partition; scenario/build/partition.h).
  std::string partition = "auto";
  // Scripted faults, the PFC watchdog and the deadlock detector (net/faults.h).
  FaultsConfig faults;
  // How transport.rto: auto came to transport.rto (scenario/build/fabric_rto.h); empty
  // when the scenario set the timer.
  std::string rto_derivation;
};

struct RunStats {
  uint64_t events = 0;
  double wall_s = 0;
  Time sim_end;
  bool all_finished = false;
  // The run is over: every flow finished and, when the spec stops then, the stop has taken
  // effect (Simulator::stop: at the next multiple of the network's smallest link delay, so
  // that a partitioned run stops at the same point). A run that is not done goes on with
  // the next run().
  bool done = false;
};

// The spec's network configuration with the flow control and scheduler it names filled in
// (pfc.enabled follows the flow control's lossless()). Throws for unknown names.
NetworkConfig resolved_network(const ExperimentSpec& spec);

class Experiment {
 public:
  // Throws std::invalid_argument for unknown scheme names or bad flows. A spec moved in
  // gives its flows up without a copy (millions of collective messages).
  explicit Experiment(ExperimentSpec spec);
  // With a congestion-control object supplied by the caller (tests, custom schemes); null:
  // the spec's.
  Experiment(ExperimentSpec spec, std::unique_ptr<CongestionControl> cc);

  // Runs on `threads` threads (issue 52, docs/parallel.md): the network cut into
  // partitions (scenario/build/partition.h), with the same results as one thread. 1: the
  // serial run. `partitions`: how many to cut (0: four per thread, at most one per edge
  // switch); more than one on one thread runs the parallel engine on that thread (to
  // measure its cost, or the profile a machine with more cores would see). Before the run,
  // after any recorder hooks its observers in. Throws std::invalid_argument naming what in
  // this experiment cannot run in parallel (a watchdog faster than a window, a cut the
  // topology has no structure for, a cut link without delay).
  void set_threads(uint32_t threads, uint32_t partitions = 0);
  // Spread over the processes of `group` (MPI ranks, sim/ranks.h; docs/parallel.md), each
  // running its share of the partitions on `threads` threads, with the same results as one
  // process. Every rank builds the same experiment and calls this and run() alike; the
  // results are complete once gathered (gather_results). `partitions`: 0, four per thread
  // of every rank. Throws std::invalid_argument for a network that cuts into fewer partitions than
  // ranks.
  void set_ranks(RankGroup& group, uint32_t threads, uint32_t partitions = 0);
  // Partition i's rank: contiguous runs, as even as the count allows.
  static std::vector<uint32_t> deal_to_ranks(uint32_t partitions, uint32_t ranks);

  // After a run over several ranks, on every rank alike: the other ranks' results (flow
  // records, counters, ports, scheme figures) joined into this one's, so that the results
  // read from any rank are those of one process. Once; nothing in one process.
  void gather_results();

  // Runs until `until`, the spec's stop time or the last flow's end, whichever is first.
  RunStats run(Time until = Time::never());
  // After the flows are done: processes what is still in flight (duplicates, PFC resumes,
  // cancelled timers) so that the drained-network invariants can be checked. In chunks of
  // simulated time, asking `keep_going` before each (Ctrl-C: a drain that never ends must
  // still stop); false when it stopped before the event list emptied. Over ranks every rank
  // must answer alike.
  bool drain(const std::function<bool()>& keep_going = {});

  Simulator& sim() { return sim_; }
  Network& network() { return *net_; }
  RdmaTransport& transport() { return *transport_; }
  const std::vector<std::string>& tags() const { return tags_; }
  // The flows flow f waited for (FlowSpec::after) and its delay after them; kept only when
  // the run has collectives, whose metrics walk their graphs.
  std::span<const uint32_t> waited_for(uint32_t f) const {
    if (f + 1 >= after_offset_.size()) return {};
    return {after_.data() + after_offset_[f], after_.data() + after_offset_[f + 1]};
  }
  Delta wait_delay(uint32_t f) const { return f < after_delay_.size() ? after_delay_[f] : Delta{}; }
  const ExperimentSpec& spec() const { return spec_; }
  // The faults' injector, when the spec has any (FaultsConfig::active).
  const FaultInjector* faults() const { return faults_.get(); }

  // Empty when all hold: every flow finished, bytes sent = delivered, no drops under PFC,
  // buffers and queues drained, all pooled packets returned.
  std::string check_invariants() const;
  // Empty unless packets were dropped with PFC on (an invariant even of a run stopped early).
  std::string drop_invariant() const;

 private:
  void add_flows(const std::vector<FlowSpec>& flows);
  // The switch features to install, in pipeline order: ecn (switch.ecn.enabled), the
  // scenario's, then the congestion control's own.
  std::vector<std::string> switch_feature_names(const std::vector<std::string>& cc_features) const;

  ExperimentSpec spec_;
  Simulator sim_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<RdmaTransport> transport_;
  std::unique_ptr<FaultInjector> faults_;
  std::vector<std::string> tags_;
  std::vector<uint32_t> after_offset_, after_;  // waited_for, by flow index
  std::vector<Delta> after_delay_;
  // Flows finished: counted by the events of whichever partition finished them.
  std::atomic<size_t> finished_{0};
  // Over several ranks: every rank's flows have finished (summed after each window).
  bool all_finished_over_ranks_ = false;
  bool gathered_ = false;
  std::unique_ptr<RemoteEventCodec> codec_;
  bool all_finished() const {
    return sim_.ranks() ? all_finished_over_ranks_ : finished_ == transport_->flow_count();
  }
  // Cuts the network for `threads` threads (and, with a group, its ranks): false when it
  // stays whole.
  bool cut(uint32_t threads, uint32_t partitions, RankGroup* group);
  void count_finished_over_ranks();
};

}  // namespace rocelab
