// RoCEv2 reliable-connection transport for every host of a network: one queue pair per
// flow, NIC round robin among ready QPs at line rate, each paced by its CC rate (and
// window), per-packet (or coalesced) ACK, and a retransmission timeout. The congestion
// control's sender and receiver halves, the host path policy and the loss recovery
// (go-back-N, selective repeat, ...: transport/loss_recovery.h) plug in.
//
// Two numberings, both FlowIds: flows (add_flow's ids; records, dependencies, starts) and
// queue pairs (what packets carry; every accessor of sender or receiver state, and every
// scheme's per-flow state). A flow that is no later message of a QP opens the next QP, so
// the two agree until a flow is added as a later message (add_flow's `qp`); qp_of maps a
// flow to its QP. Per-QP state lives in flat arrays by QP, per-flow records by flow.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "net/host_node.h"
#include "net/network.h"
#include "sim/random.h"
#include "transport/congestion_control.h"
#include "transport/flow_dag.h"
#include "transport/flow_starts.h"
#include "transport/host_path.h"
#include "transport/loss_recovery.h"
#include "transport/nic_scheduler.h"
#include "transport/packet_bitmap.h"
#include "transport/qp_stream.h"
#include "transport/transport_config.h"

namespace rocelab {

struct FlowRecord {
  FlowId id;
  // The queue pair that carries it: the id its packets carry, for the switches, the
  // congestion control and loss recovery (RdmaTransport's QP numbering; the flow's own id
  // while no flow before it is a later message of a QP).
  FlowId qp;
  NodeId src;
  NodeId dst;
  uint64_t size_bytes = 0;
  Time start;
  Time finish = Time::never();
  // When the receiver had every byte (before the last ACK's way back): what flows that
  // depend on this one wait for.
  Time delivered = Time::never();
  Delta ideal_fct;
  uint16_t tag = 0;
  uint16_t sport = 0;
  uint16_t dport = 0;
  bool finished() const { return finish != Time::never(); }
  Delta fct() const { return finish - start; }
};

// The flow hash a NIC gives a packet of (src, dst, source port): what ECMP and flowlet
// tables hash, computed once per flow (or per packet by a path policy that varies sport).
inline uint32_t roce_flow_hash(NodeId src, NodeId dst, uint16_t sport) {
  return static_cast<uint32_t>(
      mix64((uint64_t{src.index()} << 40) ^ (uint64_t{dst.index()} << 16) ^ sport));
}

struct TransportCounters {
  uint64_t data_packets_sent = 0;
  uint64_t payload_bytes_sent = 0;  // including retransmissions
  uint64_t retransmitted_bytes = 0;
  uint64_t payload_bytes_delivered = 0;  // in order, to the receiving application
  uint64_t acks_sent = 0;
  uint64_t naks_sent = 0;
  uint64_t cnps_sent = 0;
  uint64_t timeouts = 0;
  uint64_t out_of_order_packets = 0;  // arrived above rcv_nxt (go-back-N drops them)
  // Overtaken in the network: sent before a packet of its flow that arrived earlier. Unlike
  // out_of_order_packets this counts each reordering once, whatever the receiver does.
  uint64_t network_reordered_packets = 0;
  uint64_t flows_finished = 0;
  uint64_t bitmap_drops = 0;  // recovery bitmap: arrivals beyond the receiver's bitmap
  // selective_repeat and reorder_buffer: arrivals beyond transport.ooo_window, dropped
  uint64_t ooo_window_drops = 0;
  // Adds another partition's counts (every field is a sum).
  void add(const TransportCounters& o);
};

// What a flow waits for before it starts (transport/flow_dag.h): the delivery of every flow
// in `after` (added before it), then `delay`; and the flow `behind` which it is queued on the
// same QP (if valid) to have sent its last byte.
struct FlowWait {
  std::span<const FlowId> after;
  Delta delay;
  FlowId behind;
  bool empty() const { return after.empty() && !behind.valid(); }
};

class RdmaTransport final : public HostAgent, public EventHandler {
 public:
  RdmaTransport(Network& net, const TransportConfig& cfg, std::unique_ptr<CongestionControl> cc);
  ~RdmaTransport() override;

  // Registers a flow that starts at `start` (not before now: flows may be added in any
  // order, also while the simulation runs); the returned id is dense from 0. Without
  // ports, the flow gets source port 10000 + id (mod 50000) and the RoCEv2 port 4791.
  // Flows starting at the same time start in id order. With `path`, the flow's data packets
  // are source routed from the host along that path ID between the hosts' edge switches,
  // whatever the path policy chose (FlowSpec::path). With `wait`, the flow starts `delay`
  // after the last flow of `after` is delivered, not before `start`; its record's start is
  // then when it started. Throws std::invalid_argument for a start before now, a path the
  // routing does not have between the two edges, or a dependency on a flow not added yet.
  //
  // With `qp`, the flow is a later message of the queue pair whose first message is flow
  // `qp` (a flow added before it with no `qp` of its own), between the same hosts: its packets are
  // the QP's, numbered on from its previous message's (the PSN runs on across messages), with its
  // source port, congestion control and loss recovery, and one entry in every switch's flow state.
  // Its `wait.behind` must be the QP's previous message: a QP posts its messages in order. The flow
  // still has its own record (start, delivery, finish) and dependencies. A message's bytes start at
  // a packet boundary of the QP's stream (the previous message's last packet may be short), so the
  // stream has a gap of under an MTU between messages that no packet carries
  // (transport/qp_stream.h).
  FlowId add_flow(NodeId src, NodeId dst, uint64_t size_bytes, Time start, uint16_t tag = 0,
                  std::optional<uint16_t> sport = {}, std::optional<uint16_t> dport = {},
                  std::optional<uint32_t> path = {}, const FlowWait& wait = {},
                  std::optional<FlowId> qp = {});
  // The queue pair flow f is a message of (its QP number: what its packets carry).
  FlowId qp_of(FlowId f) const { return records_[f.index()].qp; }
  // The flow that is QP q's first message.
  FlowId first_flow_of(FlowId q) const { return qp_first_flow_[q.index()]; }
  // Queue pairs: flows that are no later message of another. Their numbers are dense from
  // 0: per-QP state (a scheme's, by the FlowId its packets carry) sized to it holds them all.
  size_t qp_count() const { return flows_.size(); }
  // Host ends of QP q.
  NodeId qp_src(FlowId q) const { return flows_[q.index()].src; }
  NodeId qp_dst(FlowId q) const { return flows_[q.index()].dst; }
  // Some flow waits for others (add_flow's `wait`).
  bool has_waits() const { return has_waits_; }
  // Pairs of hosts (a, b), a < b, where an event at one (a delivery, a last byte sent)
  // releases a flow of the other: a parallel run keeps each pair in one partition, since
  // the release touches the waiting flow's state at once (scenario/build/partition.h).
  std::vector<std::pair<uint32_t, uint32_t>> dependent_host_pairs() const;
  // The path flow f is pinned to (add_flow's `path`), if any.
  std::optional<uint32_t> pinned_path(FlowId f) const {
    if (f.index() >= pinned_paths_.size() || pinned_paths_[f.index()] == kNotPinned) return {};
    return pinned_paths_[f.index()];
  }
  // `n` flows on `qps` QPs in all will be added: per-flow and per-QP state is sized once (a
  // million flows would otherwise pass through every doubling of every per-flow vector).
  void reserve_flows(size_t n, size_t qps);
  // Called once per finished flow (not on the per-packet path).
  void set_on_finish(std::function<void(const FlowRecord&)> cb) { on_finish_ = std::move(cb); }

  // For congestion control.
  Simulator& sim() { return net_.sim(); }
  Network& network() { return net_; }
  const Network& network() const { return net_; }
  const TransportConfig& config() const { return cfg_; }
  BitsPerSec line_rate_bps(FlowId f) const { return flows_[f.index()].line_rate_bps; }
  BitsPerSec rate_bps(FlowId f) const { return flows_[f.index()].rate_bps; }
  // A faster rate also shortens the gap to the flow's next packet, unless `keep_next_send`
  // (the ns-3 simulators' Mellanox DCQCN assigns the rate without ChangeRate, so the next
  // packet keeps the time the previous rate gave it).
  void set_rate(FlowId f, BitsPerSec rate_bps, bool keep_next_send = false);
  void set_window(FlowId f, uint64_t window_bytes);  // 0 = no window
  uint64_t window_bytes(FlowId f) const { return flows_[f.index()].window_bytes; }
  // Holds a flow without touching its rate (FLB minimal rate control's pause).
  void set_hold(FlowId f, bool hold);
  uint64_t snd_nxt(FlowId f) const { return flows_[f.index()].snd_nxt; }
  uint64_t inflight_bytes(FlowId f) const {
    return flows_[f.index()].snd_nxt - flows_[f.index()].snd_una;
  }
  // In-order payload bytes the receiver of `f` has delivered so far (of its own message,
  // when f is a message of a shared QP).
  uint64_t delivered_bytes(FlowId f) const;
  // Packets beyond delivered_bytes the receiver of `f` holds (selective repeat, reorder
  // buffer); for tests of its footprint.
  const PacketBitmap& held_packets(FlowId f) const { return receivers_[f.index()].held; }
  const ReceiverState& receiver_state(FlowId f) const { return receivers_[f.index()]; }
  Delta base_rtt(FlowId f) const { return flows_[f.index()].base_rtt; }
  // Bytes the flow's line rate carries in one base RTT: its end-to-end BDP.
  uint64_t bdp_bytes(FlowId f) const {
    const Sender& s = flows_[f.index()];
    return static_cast<uint64_t>(bytes_in(s.base_rtt, s.line_rate_bps));
  }
  // The receiver of QP `f` keeps out-of-order data up to this many packets beyond the next
  // expected one (transport.ooo_window: one BDP by default, as IRN sizes its bitmap);
  // UINT64_MAX: no bound.
  uint64_t ooo_window_packets(FlowId f) const;
  // Out-of-order data `p` lies beyond its receiver's window (p above r.rcv_nxt).
  bool beyond_ooo_window(const ReceiverState& r, const Packet& p) const {
    const uint64_t mtu = ctx_.wire.mtu_payload_bytes;
    return p.seq / mtu - r.rcv_nxt / mtu >= ooo_window_packets(p.flow);
  }
  CongestionControl& cc() { return *cc_; }
  const HostPathPolicy& path_policy() const { return *path_; }
  const LossRecovery& recovery() const { return *recovery_; }

  // For loss recovery (transport/loss_recovery.h): the sender's sequence state, and the
  // replies a receiver sends.
  uint64_t snd_una(FlowId f) const { return flows_[f.index()].snd_una; }
  uint64_t high_sent(FlowId f) const { return flows_[f.index()].high_sent; }
  // The bytes posted on QP f so far: where its stream ends now (a flow's size, for a flow
  // of one message).
  uint64_t flow_size(FlowId f) const { return flows_[f.index()].size; }
  // Whether f has holes to resend (LossRecovery::next_hole is asked before new data).
  bool in_recovery(FlowId f) const { return flows_[f.index()].in_recovery; }
  void set_in_recovery(FlowId f, bool in_recovery);
  // Resend from `seq` on (never below snd_una: a stale NAK must not rewind past it).
  void go_back_to(FlowId f, uint64_t seq);
  void send_ack(const Packet& data, uint64_t seq, uint64_t sack_seq = 0);
  void send_nak(const Packet& data, uint64_t seq, uint64_t sack_seq = 0);
  // Drop p and ask its sender to go back to r.rcv_nxt: one NAK per expected sequence per
  // transport.nak_interval.
  void nak_go_back(ReceiverState& r, const Packet& p);
  // Counters a plug-in adds to (its own events: bitmap_drops).
  TransportCounters& mutable_counters() { return counter_lanes_.local(); }
  // The receiver half of congestion control answers a data packet with a CNP frame; the
  // scheme may write its fields into the returned CNP (it is on its way, not yet arrived).
  PacketId send_cnp(const Packet& data);
  // Scheme fields of packets (declare them in attach, before the run).
  PacketStateLayout& packet_layout() { return ctx_.state.layout(); }
  template <class T>
  T& field(PacketField<T> f, const Packet& p) {
    return ctx_.field(f, p);
  }
  // An ACK's or NAK's selective sequence: under selective repeat the out-of-order packet a
  // NAK reports; under bitmap the data packet an ACK answers (MP-RDMA reads it). 0: none.
  uint64_t sack_seq(const Packet& reply) { return field(sack_seq_, reply); }
  PacketField<uint64_t> sack_seq_field() const { return sack_seq_; }

  // Results.
  size_t flow_count() const { return records_.size(); }
  const FlowRecord& record(FlowId f) const { return records_[f.index()]; }
  const std::vector<FlowRecord>& records() const { return records_; }
  // Every partition's counts once fold_lanes() has run (Experiment::run does).
  const TransportCounters& counters() const { return counter_lanes_.merged(); }
  // Histogram of the out-of-order degree of out-of-order arrivals (DESIGN.md: arriving
  // sequence minus expected sequence, in MTU packets); the last bucket holds >= its index.
  static constexpr size_t kOodBuckets = 4097;
  const std::vector<uint64_t>& ood_histogram() const { return ood_lanes_.merged(); }
  // A parallel run of `partitions` partitions: the counters get a lane each (sim/lane.h).
  void set_lanes(uint32_t partitions);
  // Folds the partitions' counters into the ones counters() reads. Between runs.
  void fold_lanes();
  size_t active_flows() const;
  // After a run over several ranks (sim/ranks.h), on every rank alike: the counters summed
  // over the ranks, each flow's start and end from its sender's rank and its delivery from
  // its receiver's, and the path policy's figures of every rank kept for path_stats.
  void gather_over_ranks(RankGroup& group);
  // The host path policy's figures (every rank's, after gather_over_ranks; combine() sums
  // or takes the maximum of them, as over hosts).
  void add_path_stats(std::vector<SchemeStat>& out) const;

  // Host `host`'s NIC port `port` lost its link (down) or has it back. Down: every QP that
  // uses it at either end and has not finished moves to the lowest port live at both ends
  // (none live: it stays); what was in flight is recovered as any loss is. Up: new QPs may
  // take it again; none moves back. Returns how many started QPs moved.
  uint64_t set_nic_port_down(NodeId host, uint32_t port, bool down);
  // The NIC port QP q uses.
  uint32_t nic_port_of(FlowId q) const { return flows_[q.index()].nic_port; }

  // HostAgent
  void on_host_receive(NodeId host, PacketId pkt) override;
  PacketId pull_data(NodeId host, const EgressPort& port, Time* next_ready) override;
  bool has_data(NodeId host, PortId port) const override {
    return hosts_[host.index()].sched(port.index()).has_unsent();
  }
  // EventHandler
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  enum EventKind : uint32_t { kRto = 1 };
  // Line-aligned (two lines).
  struct alignas(64) Sender {
    // First, what the NIC's scan of its active flows reads for each (pull_data, next_seq):
    // a flow that cannot send costs one cache line, not two.
    bool hold = false;
    bool in_recovery = false;
    bool started = false;
    bool finished = false;
    bool counted_unsent = false;  // counted in its host NIC's NicScheduler::count_unsent
    uint8_t nic_port = 0;         // the NIC port the QP uses at both ends (planes, dual ToR)
    uint16_t sport = 0;
    uint32_t flow_hash = 0;
    uint16_t dport = 0;
    uint64_t size = 0;
    uint64_t snd_una = 0;
    uint64_t snd_nxt = 0;
    uint64_t window_bytes = 0;      // the scheme's window (0 = none)
    uint64_t window_cap_bytes = 0;  // CongestionControl::window_cap_bdp (0 = none)
    Time next_send;
    NodeId src, dst;
    uint64_t high_sent = 0;  // highest byte ever sent (tells retransmissions apart)
    BitsPerSec line_rate_bps = 0;
    BitsPerSec rate_bps = 0;
    Delta base_rtt;
    TimerSlot rto;
  };
  struct HostQueues {
    NicScheduler nic;                       // port 0's
    std::vector<NicScheduler> other_ports;  // ports 1.. of a NIC with several
    NicScheduler& sched(uint32_t port) { return port == 0 ? nic : other_ports[port - 1]; }
    const NicScheduler& sched(uint32_t port) const {
      return port == 0 ? nic : other_ports[port - 1];
    }
    // The NIC's per-flow gate (FlowControl::gates_flows: BFC's pauses), else null.
    const FlowControl* gate = nullptr;
  };

  void start_flow(FlowId f);
  // A later message of a shared QP starts: its bytes join the QP's stream.
  void post_message(FlowId m);
  // Flow f's last byte is acknowledged: the QP and the record both end.
  void finish_flow(FlowId f);
  // Flow f's record is complete (its last byte acknowledged).
  void finish_record(FlowId f);
  // QP f has nothing more to send: it leaves the NIC and its schemes.
  void finish_qp(FlowId f);
  // The stream of shared QP f, or of the QP message f is on (qp_stream.h); null for a flow
  // of its own.
  QpStream* stream_of(FlowId f) {
    if (stream_of_.empty() || stream_of_[f.index()].stream == kNoStream) return nullptr;
    return &streams_[stream_of_[f.index()].stream];
  }
  const QpStream* stream_of(FlowId f) const {
    return const_cast<RdmaTransport*>(this)->stream_of(f);
  }
  // The stream QP q carries, null for a QP of one message.
  QpStream* stream_of_qp(FlowId q) {
    if (streams_.empty() || qp_stream_[q.index()] == kNoStream) return nullptr;
    return &streams_[qp_stream_[q.index()]];
  }
  const QpStream* stream_of_qp(FlowId q) const {
    return const_cast<RdmaTransport*>(this)->stream_of_qp(q);
  }
  // Message f's place in its stream (stream_of(f) must not be null).
  const QpMessage& stream_entry(FlowId f) const {
    const StreamRef& ref = stream_of_[f.index()];
    return streams_[ref.stream].messages[ref.entry];
  }
  // The FCT of a flow of `size_bytes` from src to dst alone on its idle default route
  // through NIC port k.
  Delta ideal_fct(NodeId src, NodeId dst, uint64_t size_bytes, uint32_t k) const;
  // Throws std::invalid_argument unless flow f may be a later message of `qp`.
  void check_qp_message(FlowId f, NodeId src, NodeId dst, FlowId qp, std::optional<uint16_t> sport,
                        std::optional<uint16_t> dport, std::optional<uint32_t> path,
                        const FlowWait& wait) const;
  void post_ready(FlowId qp, QpStream& q);
  void add_to_stream(FlowId qp, FlowId m, uint64_t size_bytes);
  void mark_stream_sent(QpStream& q, uint64_t upto);
  // A shared QP's sender and receiver at message boundaries.
  void after_stream_send(Sender& s, QpStream& q, uint64_t seq, uint32_t payload);
  void advance_stream_una(FlowId f, Sender& s, QpStream& q);
  void deliver_stream(ReceiverState& r, const Packet& p, QpStream& q);
  // The receiver has every byte of f, or f has sent its last byte: flows waiting for it may
  // start.
  void on_delivered(FlowId f);
  void on_sent_all(FlowId f);
  void release_waiting(FlowId f, FlowDag::Event event);
  void add_wait(FlowId f, const FlowWait& wait, Time start);
  // (Re)starts f's retransmission timer, one rto from now; nothing when rto is 0 (no timer).
  void restart_rto(Sender& s, FlowId f) {
    if (cfg_.rto <= Delta::zero()) return;
    const Delta rto = recovery_sets_rto_ ? recovery_->rto(f, cfg_.rto) : cfg_.rto;
    sim().arm(s.rto, sim().now() + rto, handler_, kRto, f.index());
  }
  // transport.rto_restarts_on_reply: an ACK or NAK arrived for f.
  void restart_rto_on_reply(FlowId f) {
    Sender& s = flows_[f.index()];
    if (cfg_.rto_restarts_on_reply && !s.finished && s.snd_nxt > s.snd_una) restart_rto(s, f);
  }
  // LossRecovery::skips_held: snd_nxt past the packets f's receiver reported holding.
  void skip_held(FlowId f, Sender& s);
  void on_data(PacketId pkt);
  void on_ack(PacketId pkt);
  void on_nak(PacketId pkt);
  void deliver_in_order(ReceiverState& r, const Packet& p);
  void reply_at_rcv_nxt(const ReceiverState& r, const Packet& p, uint64_t ack_sack);
  void on_out_of_order(ReceiverState& r, const Packet& p);
  // The sequence a flow sends next (a hole while in recovery, else new data), or false
  // when it has nothing it may send now.
  bool next_seq(FlowId f, Sender& s, uint64_t* seq);
  // Builds and accounts flow f's data packet at `seq`, leaving through `port` now.
  PacketId send_data(FlowId f, uint64_t seq, const EgressPort& port);
  PacketId send_control(const Packet& data, PacketType type, uint64_t seq, uint64_t sack_seq = 0);
  bool advance_una(FlowId f, uint64_t ack_seq, const Packet& ack);
  void kick(FlowId f) {
    const Sender& s = flows_[f.index()];
    net_.host(s.src).nic(s.nic_port).kick();
  }
  // The NIC port a new QP from src to dst takes (TransportConfig::port_select).
  uint8_t choose_port(NodeId src, NodeId dst, uint32_t flow_hash);
  // The lowest port live at both ends of QP f, or its own when none is.
  uint8_t live_port(const Sender& s) const;
  // QP f (started) leaves its port's scheduler for `port`'s.
  void move_port(FlowId f, uint8_t port);
  void count_unsent(Sender& s) {
    const bool unsent = s.started && !s.finished && (s.snd_nxt < s.size || s.in_recovery);
    if (unsent == s.counted_unsent) return;
    s.counted_unsent = unsent;
    hosts_[s.src.index()].sched(s.nic_port).count_unsent(unsent);
  }

  Network& net_;
  NetContext& ctx_;
  TransportConfig cfg_;
  std::unique_ptr<CongestionControl> cc_;
  std::unique_ptr<HostPathPolicy> path_;
  std::unique_ptr<LossRecovery> recovery_;
  // Read once from recovery_ (asked on every in-order or out-of-order arrival).
  bool recovery_holds_packets_ = false;
  bool recovery_acks_every_packet_ = false;
  bool recovery_naks_while_holding_ = false;
  bool recovery_skips_held_ = false;
  bool recovery_sets_rto_ = false;
  uint32_t handler_;
  std::vector<Sender> flows_;
  std::vector<ReceiverState> receivers_;
  std::vector<FlowRecord> records_;
  // Shared QPs' message streams, and by flow (a QP or a message of one) its stream's index;
  // empty until a message joins a QP, as most runs have none.
  static constexpr uint32_t kNoStream = UINT32_MAX;
  struct StreamRef {
    uint32_t stream = kNoStream;
    uint32_t entry = 0;  // the flow's message in it
  };
  std::vector<QpStream> streams_;
  std::vector<StreamRef> stream_of_;
  std::vector<uint32_t> qp_stream_;    // by QP: its stream, kNoStream (empty while none is)
  std::vector<FlowId> qp_first_flow_;  // by QP: its first message
  // By QP: the ideal FCT of its last message added (add_flow).
  struct IdealMemo {
    uint64_t size_bytes = 0;
    Delta ideal;
    uint32_t port = 0;
  };
  std::vector<IdealMemo> ideal_memo_;
  std::vector<HostQueues> hosts_;       // by node id (switch slots stay empty)
  std::vector<uint32_t> next_rr_port_;  // port_select: round_robin, by node id (else empty)
  std::vector<uint32_t> dead_ports_;    // by node id: bit k, port k's link failed (else empty)
  FlowStarts starts_;                   // when each flow starts (calls start_flow)
  FlowDag dag_;                         // flows waiting for other flows
  bool has_waits_ = false;              // some flow was added with a FlowWait
  PacketField<uint64_t> sack_seq_;      // kSackSeqField
  PacketField<uint8_t> first_of_flow_;  // kFirstOfFlowField
  // The counters of the running partition's lane.
  TransportCounters& lane_counters() { return counter_lanes_.local(); }
  PerLane<TransportCounters> counter_lanes_;
  std::vector<SchemeStat> remote_path_stats_;  // the other ranks' (gather_over_ranks)
  PerLane<std::vector<uint64_t>> ood_lanes_{std::vector<uint64_t>(kOodBuckets, 0)};
  std::function<void(const FlowRecord&)> on_finish_;
  // Pinned paths by flow index, kNotPinned for the others; empty until a flow is pinned
  // (a full Sender has no room for it, and most runs pin nothing).
  static constexpr uint32_t kNotPinned = UINT32_MAX;
  std::vector<uint32_t> pinned_paths_;
};

}  // namespace rocelab
