// MP-RDMA (Lu et al., "Multi-Path Transport for RDMA in Datacenters", NSDI'18) as a host
// path policy that also owns the flow's window (run it with `cc: none` and
// `transport.recovery: bitmap`):
// - Virtual paths (VPs) are UDP source ports, which ECMP hashes onto paths. The initial
//   window goes out on random VPs; afterwards each packet takes the VP of a recent ACK
//   (multi-path ACK clocking: a path that returns ACKs faster carries more), and with a
//   small probability, at most once per RTT, a new random VP (probing).
// - One congestion window for all VPs, per ACK: +1 packet when unmarked in slow start
//   (until the first ECN echo or retransmission; a timeout restarts it from the initial
//   window), +1/cwnd after it, -1/2 when it echoes ECN; the window is inflated by packets
//   acknowledged out of order and admits whole packets only.
// - Out-of-order aware path selection: an ACK more than Δ packets behind the highest
//   acknowledged one costs a packet of window and its VP is not reused.
// - The receiver keeps out-of-order packets within its bitmap (transport.bitmap_packets)
//   and drops those beyond it with a NAK; the sender goes back to the NAKed packet.
// Not modelled: the synchronise mechanism (message-level ordering); the 2-packets-per-ACK
// burst limit, which cannot bind outside loss recovery (count_opening says why and counts);
// the one-resend-per-ACK pacing of loss recovery (here go-back-N at line rate).
// docs/schemes/mprdma.md.
#pragma once

#include <array>
#include <vector>

#include "sim/lane.h"
#include "sim/random.h"
#include "transport/host_path.h"
#include "transport/mprdma_config.h"

namespace rocelab {

class MpRdmaPathConfig final : public HostPathConfig {
 public:
  void describe(ParamVisitor& v) override { rocelab::describe(v, cfg); }
  std::unique_ptr<HostPathPolicy> build() const override;
  MpRdmaConfig cfg;
};

class MpRdmaPath final : public HostPathPolicy {
 public:
  explicit MpRdmaPath(const MpRdmaConfig& cfg = {}) : cfg_(cfg) {}
  struct Counters {
    uint64_t vps_pruned = 0;  // ACKs behind by more than Δ
    uint64_t probes = 0;
    uint64_t ecn_echoes = 0;
    uint64_t max_inflate = 0;  // most packets counted acked out of order, before the cap
    // Whole packets one ACK lets the window send, against the authors' limit of 2 per ACK
    // (count_opening): the most outside loss recovery, the ACKs outside recovery over the
    // limit (none can be), and the ACKs and NAKs in recovery over it.
    uint64_t max_ack_opening = 0;
    uint64_t acks_over_burst_limit = 0;
    uint64_t recovery_openings_over_limit = 0;
    // At each ACK (not NAK): cwnd in thousandths of a packet and the whole packets in
    // flight before it, summed (integers: the same sums in any order of lanes).
    uint64_t acks = 0;
    uint64_t cwnd_millipackets_sum = 0;
    uint64_t inflight_packets_sum = 0;
  };

  void attach(RdmaTransport& transport) override;
  void on_send(FlowId f, Packet& p) override;
  void on_feedback(FlowId f, const Packet& p) override;
  void on_timeout(FlowId f) override;
  void on_finish(FlowId f) override;
  void add_stats(std::vector<SchemeStat>& out) const override;
  void set_lanes(uint32_t partitions) override;
  void fold_lanes() override;

  // Folded after each run (Experiment::run).
  const Counters& counters() const { return counters_.merged(); }

 private:
  static constexpr size_t kVpRing = 16;              // VPs of recent ACKs waiting to clock a packet
  static constexpr uint64_t kBurstLimitPackets = 2;  // the authors' MpRDMASend, per ACK
  struct FlowState {
    bool started = false;
    bool slow_start = false;
    bool fresh_paths = false;  // no ACK yet since the start or a timeout: new random VPs
    double cwnd = 1;           // packets
    double initial_cwnd = 1;   // packets; a timeout returns to it (with slow start)
    int64_t inflate = 0;       // packets acknowledged above snd_una (below 0 while ACKs overtake)
    uint64_t acked = 0;        // cumulative ACK seen
    uint64_t highest_sacked = 0;
    uint64_t recovery_point = 0;  // ACKs below it after a NAK answer retransmissions
    uint64_t max_sent = 0;
    Time next_probe;
    uint16_t last_vp = 0;
    uint8_t ring_head = 0, ring_size = 0;
    std::array<uint16_t, kVpRing> ring{};
  };

  uint16_t random_vp(NodeId host);
  void on_nak(FlowState& fs, const Packet& p);
  void on_ack(FlowState& fs, const Packet& p);
  void update_window(FlowId f, FlowState& fs);
  void count_opening(FlowId f, const Packet& p, uint64_t window_before, uint64_t in_flight_before,
                     bool in_recovery);

  MpRdmaConfig cfg_;
  HostStreams streams_;
  uint64_t mtu_ = 1000;
  std::vector<FlowState> flows_;  // sized before a parallel run (set_lanes)
  PerLane<Counters> counters_;
};

}  // namespace rocelab
