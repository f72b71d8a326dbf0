// Hermes (Zhang et al., "Resilient Datacenter Load Balancing in the Wild", SIGCOMM'17) as
// a host path policy: each sender pins its flows to explicit paths (source routes, as
// Hermes does with XPath) and senses every path it uses from its own ACKs: a smoothed RTT
// above the path's base RTT, the fraction of ECN-echoing ACKs, and retransmission
// timeouts. Paths are good, gray, bad or failed. A new flow takes a good path (fewest of
// this host's flows, then random), else a gray or bad one clearly better than nothing.
// An existing flow moves, cautiously, only off a bad path, once it has S bytes acked on
// it, while it sends at most R of its line rate, at most once per gap, on a coin flip, and
// only to a path better by Δ_RTT; off a failed path it moves at once.
//
// The rules and their structure follow the authors' simulation code (their ns-3
// "TLB"); the paper's own text was not available. Not modelled: active probing (so a
// path is known only from the host's own traffic; an unknown path counts as gray).
// docs/schemes/hermes.md.
#pragma once

#include <memory>
#include <vector>

#include "net/packet_state.h"
#include "sim/lane.h"
#include "sim/random.h"
#include "transport/hermes_config.h"
#include "transport/host_path.h"

namespace rocelab {

class HermesPathConfig final : public HostPathConfig {
 public:
  void describe(ParamVisitor& v) override { rocelab::describe(v, cfg); }
  std::unique_ptr<HostPathPolicy> build() const override;
  HermesConfig cfg;
};

class HermesPath final : public HostPathPolicy {
 public:
  explicit HermesPath(const HermesConfig& cfg = {}) : cfg_(cfg) {}
  enum class PathClass : uint8_t { kGood, kGray, kBad, kFailed };
  struct Counters {
    uint64_t flows_placed = 0;
    uint64_t reroutes_congestion = 0;  // off a bad path
    uint64_t reroutes_failure = 0;     // off a failed path
  };

  void attach(RdmaTransport& transport) override;
  void on_send(FlowId f, Packet& p) override;
  void on_feedback(FlowId f, const Packet& p) override;
  void on_timeout(FlowId f) override;
  void on_port_moved(FlowId f) override;
  void on_finish(FlowId f) override;
  void add_stats(std::vector<SchemeStat>& out) const override;
  void set_lanes(uint32_t partitions) override;
  void fold_lanes() override;

  // Folded after each run (Experiment::run).
  const Counters& counters() const { return counters_.merged(); }
  // The path flow f is on now (kNoPath before its first packet or within one leaf).
  uint32_t flow_path(FlowId f) const;
  static constexpr uint32_t kNoPath = 0xffffffffu;

 private:
  struct PathInfo {
    Delta srtt;  // smoothed RTT above the base RTT
    Time last_sample = Time::never();
    Time window_start;
    uint32_t window_acks = 0;
    uint32_t window_marks = 0;
    float ecn_fraction = 0;
    bool ecn_known = false;
    uint32_t timeouts = 0;
    Time bad_until;     // a timeout makes it bad for failure_hold
    Time failed_until;  // timeouts_to_fail timeouts make it failed
    uint32_t local_flows = 0;
  };
  struct FlowState {
    uint32_t host = 0;
    uint32_t table = kNoPath;  // index of its (host, destination ToR) path table, in the host's
    uint32_t path = kNoPath;
    uint64_t acked = 0;          // cumulative ACK
    uint64_t acked_at_move = 0;  // ... when it took this path
    Time last_attempt = Time::never();
    Time moved_at;
    double sent_bytes_dre = 0;  // bytes sent, decayed x0.8 every 30 us (TLB's DRE)
    Time dre_time;
  };

  // Its index in tables_[host]: the paths between src_edge (one of host's) and dst_edge.
  uint32_t table_for(uint32_t host, uint32_t src_edge, uint32_t dst_edge);
  std::vector<PathInfo>& paths_of(const FlowState& fs) { return tables_[fs.host][fs.table]; }
  Delta effective_srtt(const PathInfo& p, Time now) const;
  PathClass classify(const PathInfo& p, Time now) const;
  uint32_t pick(std::vector<PathInfo>& paths, uint32_t current, Time now, RandomStream& rng);
  uint32_t pick_or_any(std::vector<PathInfo>& paths, uint32_t current, Time now, RandomStream& rng);
  void move(FlowState& fs, uint32_t path);
  double sending_rate_bps(FlowState& fs, Time now, uint32_t sent_now);

  HermesConfig cfg_;
  HostStreams streams_;
  PacketField<uint16_t> path_field_;  // path + 1 on data, echoed in its ACK/NAK
  size_t edges_ = 0;
  // [host * edges + edge index] -> tables_[host] (kNoPath: none). Per host: a host's tables
  // grow in its own partition.
  std::vector<uint32_t> table_index_;
  std::vector<std::vector<std::vector<PathInfo>>> tables_;
  std::vector<FlowState> flows_;  // sized before a parallel run (set_lanes)
  PerLane<std::vector<uint32_t>> scratch_;
  PerLane<Counters> counters_;
};

}  // namespace rocelab
