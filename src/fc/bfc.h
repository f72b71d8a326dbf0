// BFC, Backpressure Flow Control (Goyal et al., NSDI'22; docs/schemes/bfc.md): per-hop,
// per-flow pauses. Each switch egress port has `physical_queues` FIFO queues assigned to
// flows as they arrive (§3.3), a high-priority queue for each flow's first packet (§3.7)
// and an overflow queue for flows the VFID table cannot hold (§3.8). A flow whose queue
// holds more than Th = (HRTT + tau) mu / N_active (§3.4) is paused at the upstream hop:
// each switch sends every ingress link a bloom filter of the VFIDs paused there every tau
// (§3.6), and the upstream holds a queue while its head packet matches. Resumes are paced,
// one per physical queue per tau (§3.5). PFC stays as the backstop.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fc/bfc_filter.h"
#include "fc/bfc_table.h"
#include "net/flow_control.h"
#include "net/net_context.h"
#include "net/packet_state.h"
#include "net/pfc.h"
#include "sim/pool.h"
#include "sim/random.h"
#include "sim/ring.h"

namespace rocelab {

struct NetContext;

struct BfcParams {
  uint32_t physical_queues = 32;      // §3.1, §4.1
  uint32_t vfids = 16384;             // §4.1: 16K VFIDs
  uint32_t bucket_entries = 4;        // §3.8: buckets of four
  uint32_t tcam_entries = 100;        // §3.8: a 100-entry overflow cache
  uint32_t filter_bytes = 128;        // §3.6, §4.1
  uint32_t filter_hashes = 4;         // §3.6
  Delta hop_rtt;                      // 0: 2 x the link's delay (§4.1: 2 us at 1 us links)
  Delta filter_interval;              // 0: hop_rtt / 2 (§3.3)
  uint32_t resumes_per_interval = 1;  // per physical queue (§3.5: two per HRTT)
  bool resume_all = false;            // BFC-BufferOpt (§4.3)
  bool high_priority_queue = true;    // false: BFC-HighPriorityQ (§4.3)
  bool dynamic_queues = true;         // false: BFC-VFID, static hashing (§3.2, §4.2)
  // Readings of §3.3/§3.5 (docs/schemes/bfc.md). keep_queue: a paused flow keeps its
  // physical queue after its last departure until it is resumed and the packets the resume
  // lets go have arrived, or 2 (HRTT + tau) after the resume (false: the queue goes with the
  // last packet, §3.3's "reclaim the physical queue"). recheck_threshold: a flow
  // on the to-be-resumed list is resumed only if its queue is still at or below Th at its
  // turn, and leaves the list when one of its departures finds the queue above Th (§3.3:
  // "we compute whether a flow should remain paused each time we dequeue one of its
  // packets"). release_waiting: waiting flows of a queue listed all at once at the first
  // departure at or below Th ("all"), or one per such departure ("one"). keep_queue and
  // recheck_threshold are on by default: §3.3 supports both (the queue is part of a flow's
  // state; the decision is recomputed at each departure), and together they keep the queue
  // a resume's burst lands on flat with the number of flows (Fig. 10; docs/reproduction/
  // bfc.md), where the first reading let it grow 2.3x from 64 to 256 flows.
  bool keep_queue = true;
  bool recheck_threshold = true;
  std::string release_waiting = "all";
  // Ethernet header and FCS around the filter (the paper gives the filter's size only).
  uint32_t filter_header_bytes = 18;
};

void describe(ParamVisitor& v, BfcParams& p);

// What travels in a packet: its queue and VFID entry at this switch.
struct BfcTag {
  uint32_t entry;
  uint16_t queue;
  uint8_t kind;  // BfcKind
};

// Network-wide: the filter snapshot each frame in flight carries, kept beside the frame by
// its packet index (a frame holds an index, not 128 bytes). The slot is the frame's while
// it lives; a lost frame's slot is simply the next frame's with that index, and a slot keeps
// its buffer. In a parallel run a frame is filled in one partition and read in another's
// next window: the slots do not move, and the table of their chunks is sized up front.
class BfcShared final : public PacketSideData {
 public:
  BfcShared() { chunks_.reserve(kMaxChunks); }
  // A filter frame that crosses to another rank carries its snapshot (net/cut_frame_codec.h).
  // Once, by the first BFC instance: registers it with the context's side data.
  void attach(NetContext& ctx, ControlKind frame_kind);
  void encode(PacketId frame, ByteWriter& out) override;
  void decode(PacketId frame, ByteReader& in) override;
  std::vector<uint64_t>& of(PacketId frame) {
    const uint32_t i = frame.index();
    if ((i >> kChunkBits) >= chunk_count_.load(std::memory_order_acquire)) [[unlikely]]
      grow_to(i);
    return (*chunks_[i >> kChunkBits])[i & (kChunkSize - 1)];
  }

 private:
  static constexpr uint32_t kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr size_t kMaxChunks = (size_t{1} << Pool<Packet>::kMaxObjectsLog2) / kChunkSize;
  using Chunk = std::array<std::vector<uint64_t>, kChunkSize>;
  void grow_to(uint32_t index);
  NetContext* ctx_ = nullptr;
  ControlKind frame_kind_ = 0;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::atomic<size_t> chunk_count_{0};
  std::mutex grow_mutex_;
};

class Bfc final : public FlowControl, public EventHandler {
 public:
  Bfc(Switch& sw, const BfcParams& params);

  size_t classify(const EgressPort& port, const Packet& p) const override;
  bool admit(PortId in, PortId out, Packet& p) override;
  void on_dequeue(PortId out, size_t queue, Packet& p) override;
  bool on_frame(PortId in, const Packet& p) override;
  bool lossless() const override { return true; }
  const Mmu* buffer() const override { return backstop_.buffer(); }
  std::string check_drained() const override;
  void add_stats(std::vector<SchemeStat>& out) const override;
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  // keep_queue: a resumed flow's hold on its physical queue, until its packets arrive.
  struct HeldQueue {
    uint32_t index;
    Time until;
  };
  // A resumed flow whose entry went with the resume: its burst is told by (vfid, in).
  struct ReleasedResume {
    uint32_t vfid;
    uint16_t in;
    Time until;
  };
  struct PortState {
    // As an egress: VFIDs assigned per physical queue, and the to-be-resumed lists (§3.5).
    std::vector<uint32_t> queue_vfids;
    std::vector<Ring<uint32_t>> to_resume;
    std::vector<Ring<uint32_t>> waiting;        // paused flows whose last packet left
    std::vector<uint64_t> resume_interval;      // per queue: the interval counted in
    std::vector<uint32_t> resumed_in_interval;  // and its resumes so far
    uint32_t lists_pending = 0;
    uint32_t queues_in_use = 0;  // physical queues with a VFID assigned
    // As an ingress: the VFIDs paused that arrived here (sent to the upstream).
    CountingBloomFilter paused;
    // As an egress toward the peer: the filter the peer sent last.
    std::vector<uint64_t> peer_filter;
    double feedback_s = 0;  // HRTT + tau of this link, seconds
    double rate_Bps = 0;
    Delta interval;
    Time next_filter;
    bool sent_nonempty = false;
    // In push order: deadlines in order when every link has the same delay (else a later one
    // ahead only delays the ones behind it).
    Ring<HeldQueue> held_after_resume;
    std::vector<ReleasedResume> released_resumes;
    std::vector<Time> last_burst;  // per physical queue: when a resume's burst last arrived
  };

  double threshold_bytes(PortId in, PortId out, size_t queue) const;
  size_t active_queues(const EgressPort& port, size_t except) const;
  uint16_t assign_queue(PortState& ps, uint32_t vfid);
  void pause(VfidEntry& e, uint32_t index);
  void ask_resume(PortState& ps, VfidEntry& e, uint32_t index);
  void resume(uint32_t index);
  void count_resume(PortState& ps, size_t queue);
  void release_waiting(PortState& ps, PortId out, size_t queue);
  void release_queue(PortState& ps, size_t queue);
  bool due_now(PortId out, size_t queue, uint32_t index);
  void end_held_queues(PortState& ps, size_t port, Time now);
  bool released_resume(PortState& ps, uint32_t vfid, uint16_t in);
  void count_burst(PortState& ps, size_t queue, int64_t queue_bytes);
  bool head_matches(PortId out, size_t queue) const;
  void match_head(PortId out, size_t queue);
  void tick();
  bool keeps_ticking() const;
  void wake();
  void send_filter(PortId port);

  Switch& sw_;
  NetContext& ctx_;
  BfcParams params_;
  Pfc backstop_;
  BfcFilterShape shape_;
  VfidTable table_;
  std::vector<PortState> ports_;
  std::shared_ptr<BfcShared> shared_;
  PacketField<BfcTag> tag_;
  PacketField<uint8_t> first_of_flow_;  // the NIC's mark (transport kFirstOfFlowField)
  ControlKind control_kind_;
  RandomStream rng_;
  uint32_t handler_;
  bool release_one_;       // release_waiting: one, read once
  size_t hp_queue_;        // physical_queues + 1
  size_t overflow_queue_;  // physical_queues
  Delta tick_;
  Time tick_origin_;
  TimerSlot timer_;
  bool seen_data_ = false;      // a data packet arrived since the last tick
  uint32_t nonempty_sent_ = 0;  // ports whose last filter paused something
  uint64_t max_queue_bytes_ = 0;
  uint32_t max_resumes_per_interval_ = 0;
  // Physical-queue depth at each arrival, in KB bins (Fig. 10's tail occupancy).
  static constexpr size_t kDepthBins = 4096;
  std::vector<uint64_t> depth_kb_;
  // Physical queues already in use at each assignment (Fig. 11a), 0..physical_queues.
  std::vector<uint64_t> in_use_at_assignment_;
  // fc_stats
  uint64_t filter_frames_ = 0, filter_bytes_ = 0, pauses_ = 0, resumes_ = 0;
  int64_t paused_ps_sum_ = 0;          // resume times minus pause times: the pauses' total length
  uint64_t sent_while_paused_ = 0;     // departures of a flow the downstream filter names
  uint64_t rechecks_kept_paused_ = 0;  // recheck_threshold: listed flows found above Th
  uint64_t held_queues_expired_ = 0;   // keep_queue: holds that ended with no packet back
  // Fig. 10: the bursts resumes let go, as they arrive in a physical queue, and those that
  // arrived within tau of the previous one into the same queue (two bursts stacked).
  uint64_t resume_bursts_ = 0, stacked_bursts_ = 0;
  uint64_t max_queue_bytes_at_burst_ = 0;
  std::vector<uint8_t> held_scratch_;  // per physical queue, while a filter is applied
  uint64_t assignments_ = 0, queue_collisions_ = 0, vfid_collisions_ = 0;
  uint64_t hp_packets_ = 0, overflow_packets_ = 0;
};

// A host NIC under BFC: a queue per flow (§3.6), held while its VFID matches the ToR's
// last filter (per NIC port); PFC PAUSE frames as the backstop.
class BfcNic final : public FlowControl {
 public:
  BfcNic(Host& host, const BfcParams& params);
  bool admit(PortId, PortId, Packet&) override { return true; }
  void on_dequeue(PortId, size_t, Packet&) override {}
  bool on_frame(PortId in, const Packet& p) override;
  bool gates_flows() const override { return true; }
  bool flow_paused(uint32_t flow_hash, PortId port) const override;
  bool lossless() const override { return true; }

 private:
  Host& host_;
  BfcParams params_;
  Pfc pfc_;
  BfcFilterShape shape_;
  // By NIC port: the last filter its switch sent (a port per plane hears its own ToR).
  std::vector<std::vector<uint64_t>> filters_;
  std::shared_ptr<BfcShared> shared_;
  ControlKind control_kind_;
};

class BfcConfig final : public FlowControlConfig {
 public:
  void describe(ParamVisitor& v) override { rocelab::describe(v, params_); }
  bool lossless() const override { return true; }
  size_t switch_queues(size_t) const override { return params_.physical_queues + 2; }
  std::shared_ptr<const SchedulerConfig> switch_scheduler() const override;
  std::unique_ptr<FlowControl> build(Switch& sw) const override;
  std::unique_ptr<FlowControl> build(Host& host) const override;
  BfcParams& params() { return params_; }

 private:
  BfcParams params_;
};

}  // namespace rocelab
