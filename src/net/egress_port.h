// One direction of a full-duplex link: the egress port of a node and the cable behind it.
// FIFO data queues (8 priority classes by default, any number possible), each pausable
// (PFC per class, or per queue for BFC), served in the order a pluggable EgressScheduler
// picks (DRR by default); a strict-priority control queue that PFC never pauses, with
// PAUSE frames ahead of it by default; transmission at packet boundaries. In-flight
// packets wait in a list, so the port keeps at most one pending transmit and one delivery
// event.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "net/egress_scheduler.h"
#include "net/fault_loss.h"
#include "net/packet.h"
#include "sim/ids.h"
#include "sim/lane.h"
#include "sim/pool.h"
#include "sim/ring.h"
#include "sim/simulator.h"

namespace rocelab {

struct NetCounters;

class Node;
class EgressPort;

// Told of every change of a data queue's PFC pause (the PFC watchdog, the deadlock
// detector): rare events, never per packet.
class PauseObserver {
 public:
  virtual ~PauseObserver() = default;
  virtual void on_pause_change(EgressPort& port, size_t queue, bool paused) = 0;
  // A PAUSE came for a queue a watchdog told to ignore them (set_queue_watchdog).
  virtual void on_ignored_pause(EgressPort& port, size_t queue) = 0;
};

// What a PFC watchdog does to a queue it declared in a storm.
enum class WatchdogMode : uint8_t { kOff, kDrop, kForward };

// A port's counters as read (a snapshot: the per-frame ones live in the port's hot lines).
struct PortCounters {
  uint64_t tx_bytes = 0;           // wire bytes, all frames
  uint64_t tx_data_bytes = 0;      // wire bytes of data frames
  uint64_t tx_data_packets = 0;    // data frames (summed over ports: data-packet hops)
  uint64_t pause_frames_sent = 0;  // XOFF frames this port sent (it pauses its peer)
  uint64_t resume_frames_sent = 0;
  uint64_t times_paused = 0;  // pause episodes: an unpaused class paused (refreshes not counted)
  Delta paused_time;          // total time any class was paused (union over classes)
};

// Not an EventHandler: the simulator dispatches to it through its handler table, and a
// vtable pointer would take 8 bytes of the line every delivery reads.
class EgressPort final {
 public:
  // The queue a PAUSE or control frame leaves (Node::on_dequeue): none of the data queues.
  static constexpr size_t kNotDataQueue = SIZE_MAX;
  EgressPort(Simulator& sim, Pool<Packet>& pool, Node& owner, PortId index, size_t num_queues,
             std::unique_ptr<EgressScheduler> scheduler);
  ~EgressPort();

  // `resolution`: transmission times are truncated to a multiple of it (WireModel).
  void connect(Node* peer, PortId peer_port, BitsPerSec rate_bps, Delta delay,
               Delta resolution = Delta::zero());

  // Queues a packet: control frames to the control queue, data by `queue_of` its priority.
  void enqueue(PacketId pkt) { enqueue(pkt, queue_of(pool_[pkt.index()])); }
  // Queues a data packet (or a control frame, which ignores `queue`) in data queue `queue`.
  void enqueue(PacketId pkt, size_t queue);
  // Starts a transmission if the port is idle and something is eligible.
  void kick() { try_send(); }

  // PFC (or per-queue backpressure) applied by the peer.
  void set_paused(size_t queue, bool paused);
  // A per-flow flow control's hold on one data queue (BFC): the queue does not send while
  // held, and the hold is not a PFC pause (it counts in no PAUSE counter).
  void hold_queue(size_t queue, bool held);
  // All data queues carry one PFC class (BFC's physical queues): a PAUSE for any priority
  // holds every data queue, independently of the queues' own holds.
  void set_pfc_pauses_all_queues(bool on) { pfc_all_queues_ = on; }
  // An 802.1Qbb PAUSE/RESUME for one priority: it holds the queue that carries that
  // priority (queue_of), which a port with fewer queues shares among priorities; the queue
  // runs again once none of its priorities is paused.
  void set_priority_paused(Priority prio, bool paused);
  // ACK/NAK frames wait in their class's data queue, FIFO with the data, instead of the
  // strict-priority control queue (HPCC ns-3 switches: AckHighPrio is left at 0).
  void set_acks_in_data_queues(bool on) { acks_in_data_queues_ = on; }
  bool queued_as_data(const Packet& p) const {
    return p.type == PacketType::kData ||
           (acks_in_data_queues_ && (p.type == PacketType::kAck || p.type == PacketType::kNak));
  }
  // The control queue (ACK/NAK/CNP frames) does not send while data queue `queue` is paused:
  // a NIC whose ACKs share the data's class (HPCC ns-3 with ACK_HIGH_PRIO 0). By default it
  // sends through any PAUSE.
  void set_control_waits_for(size_t queue) {
    control_waits_ = queue < 32;
    control_wait_mask_ = queue < 32 ? 1u << queue : 0;
  }
  // PAUSE frames leave ahead of the ACK/NAK/CNP frames already in the control queue, as a
  // MAC sends its control frames (default); false: FIFO with them, as the ns-3 forks'
  // SendPfc enqueues into queue 0.
  void set_pause_ahead_of_control(bool on) { pause_ahead_ = on; }
  bool paused(size_t queue) const {
    return queue < 32 ? ((paused_mask_ >> queue) & 1u) != 0 : paused_[queue] != 0;
  }
  uint32_t paused_mask() const { return paused_mask_; }      // first 32 queues
  uint32_t nonempty_mask() const { return nonempty_mask_; }  // first 32 queues
  // Under set_pfc_pauses_all_queues: a PAUSE holds every data queue now.
  bool all_queues_paused() const { return all_paused_; }
  // Whether a PFC PAUSE holds data queue `queue` now, and how many times one has started to
  // (PCN's NP-ECN tells a packet that waited through a PAUSE by the count moving on).
  bool pfc_paused(size_t queue) const { return pfc_all_queues_ ? all_paused_ : paused(queue); }
  uint32_t pause_epoch(size_t queue) const {
    return pfc_all_queues_ ? all_pause_epoch_ : pause_epochs_[queue];
  }
  // Head-of-line blocking (summary.json's hol_blocked_flows): from now on, a data packet
  // that waits in a data queue through a PFC PAUSE of that queue (queued while it is
  // paused, or queued when the PAUSE starts) sets flow_marks[its flow index] to 1, the
  // vector grown as needed. Network sets it on switch-to-switch ports only; BFC's per-queue
  // holds are not PAUSEs and mark nothing.
  void watch_hol_blocking(PerLane<NetCounters>* counters) { hol_marks_ = counters; }
  // The packet at the head of a data queue (invalid when it is empty).
  PacketId queue_head(size_t queue) const {
    return data_queues_[queue].empty() ? PacketId::invalid() : data_queues_[queue].front();
  }

  BitsPerSec rate_bps() const { return rate_bps_; }
  // Serialization time of `bytes` on this link (a multiply for the usual rates).
  Delta tx_time(int64_t bytes) const {
    const Delta d =
        ps_per_byte_ ? Delta{bytes * int64_t{ps_per_byte_}} : serialization_delay(bytes, rate_bps_);
    if (resolution_ps_ == 0) return d;
    // A frame takes well under 4.3 ms: 32-bit remainder, the cheaper division.
    return d.ps < (int64_t{1} << 32) ? Delta{d.ps - static_cast<uint32_t>(d.ps) % resolution_ps_}
                                     : Delta{d.ps - d.ps % resolution_ps_};
  }
  Delta delay() const { return delay_; }
  Node* peer() const { return peer_; }
  NodeId owner_id() const;
  PortId peer_port() const { return peer_port_; }
  PortId index() const { return index_; }
  bool busy() const { return busy_ && sim_.now() < busy_until_; }
  // What is left of the frame on the wire now (zero when idle).
  Delta residual_tx() const { return busy() ? busy_until_ - sim_.now() : Delta::zero(); }
  size_t num_queues() const { return num_queues_; }
  int64_t queue_bytes(size_t queue) const { return data_queues_[queue].bytes; }
  int64_t data_queue_bytes() const { return data_bytes_total_; }
  size_t queued_packets() const;
  size_t in_flight_packets() const { return on_wire_; }
  PortCounters counters() const {
    PortCounters c = pause_counters_;
    c.tx_bytes = tx_bytes_;
    c.tx_data_bytes = tx_data_bytes_;
    c.tx_data_packets = tx_data_packets_;
    return c;
  }
  // A PFC XOFF (or XON) frame this port sends to its peer.
  void count_pfc_frame_sent(bool xoff) {
    ++(xoff ? pause_counters_.pause_frames_sent : pause_counters_.resume_frames_sent);
  }
  Delta paused_time(Time now) const;
  // A run over several ranks: the counters (paused_time up to the run's end) of this port
  // as the rank that ran its node counted them, taken by a rank that did not.
  void adopt_counters(const PortCounters& c) {
    pause_counters_ = c;
    tx_bytes_ = c.tx_bytes;
    tx_data_bytes_ = c.tx_data_bytes;
    tx_data_packets_ = c.tx_data_packets;
  }

  // Data queue that holds packets of `p`'s priority.
  size_t queue_of(const Packet& p) const { return queue_of_priority(p.priority); }
  // A port with fewer queues than priorities carries the upper ones in its last queue.
  size_t queue_of_priority(uint32_t prio) const {
    return prio < num_queues_ ? prio : num_queues_ - 1;
  }

  void on_event(uint32_t kind, uint64_t arg);

  // The peer runs in another partition of a parallel run (docs/parallel.md): each frame's
  // delivery is an event of its own, which the peer's partition receives at the window's
  // end, instead of the list of frames on the wire that both ends would touch. It carries
  // the same key, so the run's order is the same cut or not.
  void set_cut(bool cut) { cut_ = cut; }
  bool cut() const { return cut_; }
  // A run over several ranks: a frame of this port, sent by another rank, arrives here at
  // `t` (what a failure of the link then loses: cut_last_arrival_).
  void note_cut_arrival(Time t) { cut_last_arrival_ = std::max(cut_last_arrival_, t); }
  enum EventKind : uint32_t { kTxDone = 0, kDeliver = 1, kWake = 2, kDeliverCut = 3 };
  // The handler its events go to (a cut frame's delivery names it: net/cut_frame_codec.h).
  uint32_t handler() const { return handler_; }

  // ---------------------------------------------------------------- faults (net/faults.h)
  // The link behind this port (this direction) fails: frames on the wire are lost when
  // they would have arrived, frames sent while it is down are lost as they start (the port
  // drains its queues into it at line rate), and the peer's PAUSEs end (no XON can come).
  void set_link_down(bool down);
  bool link_down() const;
  // The rate the link was built with (the healthy fabric's, for ideal times).
  BitsPerSec nominal_rate_bps() const { return nominal_rate_bps_; }
  // The link runs at another rate from the next frame on (a degraded link).
  void set_rate(BitsPerSec rate_bps);
  // Each frame carrying a transport packet (not a PAUSE) is lost with this probability, by
  // a stream of its own under `seed` (0: the link is clean again).
  void set_loss(double probability, uint64_t seed);
  // The peer is a NIC that stopped draining: what reaches it is lost.
  void set_peer_stalled(bool stalled);
  bool peer_stalled() const;
  // A PFC watchdog's action on data queue `queue`: it ignores PAUSEs, and under kDrop drops
  // what the queue holds and what reaches it; kOff: the queue obeys PAUSEs again.
  void set_queue_watchdog(size_t queue, WatchdogMode mode);
  WatchdogMode queue_watchdog(size_t queue) const;
  // The packets waiting in data queue `queue`, oldest first (the deadlock detector).
  size_t queue_packets(size_t queue) const { return data_queues_[queue].size(); }
  PacketId queued_packet(size_t queue, size_t i) const { return data_queues_[queue].at(i); }
  // The watchdog's and the deadlock detector's view of pauses.
  void set_pause_observer(PauseObserver* o) { pause_observer_ = o; }
  // When data queue `queue`'s current PFC pause began (valid while paused(queue)).
  Time pause_started(size_t queue) const { return pause_started_[queue]; }

 private:
  // A frame starts on a faulty port: true when a fault loses it (it is freed).
  bool fault_loses(const Packet& p);
  void lose(PacketId pkt, FaultLoss cause);
  void update_faulty();

  QueueState queue_state() const {
    return QueueState(data_queues_.get(), num_queues_, paused_, pool_, nonempty_mask_,
                      paused_mask_);
  }
  void try_send();
  void count_pause(bool paused);
  // watch_hol_blocking: marks the flow of data packet `p`, and of every data packet
  // waiting in queue `queue` (a PAUSE just started: rare, so the walk costs nothing).
  void mark_hol_blocked(const Packet& p);
  void mark_queue_hol_blocked(size_t queue);
  // Sets queue's pause bit; false when it already had that value.
  bool flip_paused(size_t queue, bool paused);
  void choose_and_send();
  // A NIC's port whose carrier is gone: every frame it holds is lost.
  void flush_queued_frames();
  // The next data packet by the scheduler, and the queue it left (*queue).
  PacketId pick_data(size_t* queue);
  void start_transmission(PacketId pkt);
  // After a frame's start: the end-of-frame event, when something may follow it.
  void schedule_next_after_frame();
  void schedule_tx_done();

  // What every frame reads or writes is in the object's first three cache lines: each
  // frame touches the port at its enqueue, its start and its delivery, long after the
  // port's last frame, and every distinct line is then a cache miss.
  // Line 0: all a delivery reads, and the link's constants.
  Simulator& sim_;
  Pool<Packet>& pool_;
  Node* peer_ = nullptr;
  Node& owner_;
  // The frames on the wire, oldest first, linked through Packet::next_on_wire: a delivery
  // reads the next frame's id and arrival from the packet it delivers, which the peer
  // reads anyway, where a ring of its own cost a cache line more per delivery.
  PacketId wire_head_;
  PacketId wire_tail_;
  uint32_t on_wire_ = 0;
  uint32_t handler_;
  PortId peer_port_;
  PortId index_;
  uint16_t num_queues_;
  // Frames on the wire are to be lost at arrival (the link failed under them): the one
  // flag a delivery tests, on the line it reads anyway.
  bool loses_on_delivery_ = false;
  uint32_t ps_per_byte_ = 0;  // exact picoseconds per byte, 0 when the rate has none
  // Where deliveries run: the peer node's LP. On the line a delivery reads: on line 2 it
  // cost 1.73 M L1 data misses of 49.2 M (cachegrind, websearch-8x8 for 1 ms).
  LpId peer_lp_ = kGlobalLp;
  // Line 1: the transmitter.
  Delta delay_;
  Time busy_until_;
  uint64_t tx_seq_ = 0;  // frames started (the end-of-frame event's tag)
  int64_t data_bytes_total_ = 0;
  std::unique_ptr<EgressScheduler> scheduler_;
  std::unique_ptr<PortQueue[]> data_queues_;
  uint64_t tx_done_seq_ = 0;
  uint64_t tx_bytes_ = 0;  // wire bytes, all frames
  // Line 2: the control queue, the queues' state and the per-frame counters.
  Ring<PacketId> control_queue_;
  uint32_t nonempty_mask_ = 0;  // bit q: data queue q holds packets (first 32 queues)
  uint32_t paused_mask_ = 0;
  // Sizes of pause_queue_ and control_queue_, kept here so that a frame's start does not
  // read pause_queue_'s cold line.
  uint32_t pause_frames_ = 0;
  uint32_t control_frames_ = 0;
  uint64_t tx_data_bytes_ = 0;    // wire bytes of data frames
  uint64_t tx_data_packets_ = 0;  // data frames (summed over ports: data-packet hops)
  uint32_t resolution_ps_ = 0;    // WireModel::serialization_resolution (read at a frame's start)
  // The line's last 4 bytes: pushed onto the next line, they cost 7% more L1 data misses
  // (cachegrind, conweave-128 with 0.5 ms of arrivals: 35.9 M against 33.4 M).
  bool busy_ = false;
  bool tx_done_pending_ = false;
  bool choosing_ : 1 = false;
  bool tx_done_reserved_ : 1 = false;  // tx_done_seq_ holds the end-of-frame event's place
  // Set once, or (all_paused_) only by PAUSE frames.
  bool acks_in_data_queues_ : 1 = false;
  bool pause_ahead_ : 1 = true;
  bool pfc_all_queues_ : 1 = false;
  bool all_paused_ : 1 = false;  // under pfc_all_queues_: some priority is paused
  bool pulls_ : 1;               // a host port: after each frame it asks its owner for the next
  bool notify_enqueue_ : 1;      // scheduler_->wants_on_enqueue()
  // control_wait_mask_ != 0, kept on this line: a port that never holds its control queue
  // (every switch port) picks a control frame without reading the mask's cold line.
  bool control_waits_ : 1 = false;
  // A fault acts on this port (link down, bit errors, a stalled peer NIC, a watchdog's
  // dropped queues): frames take the slow path through fault_ below.
  bool faulty_ : 1 = false;
  bool cut_ : 1 = false;  // set_cut
  // Touched only while something is paused or a PAUSE frame waits.
  alignas(64) PortCounters pause_counters_;  // its tx fields unused: see counters()
  Ring<PacketId> pause_queue_;
  std::vector<uint8_t> paused_;
  std::vector<uint32_t> pause_epochs_;  // per data queue: PAUSEs that held it
  uint32_t all_pause_epoch_ = 0;        // under pfc_all_queues_
  uint32_t paused_priorities_ = 0;      // bit p: priority p paused by the peer
  std::vector<Time> pause_started_;     // per data queue: its pause's start
  BitsPerSec nominal_rate_bps_ = 0;
  size_t paused_count_ = 0;
  Time paused_since_;
  BitsPerSec rate_bps_ = 0;
  TimerSlot wake_;
  uint32_t control_wait_mask_ = 0;  // set_control_waits_for: the paused_mask_ bit that
                                    // holds the control queue
  // watch_hol_blocking's counters (their hol_blocked_flows, in the running lane); null: not
  // watched.
  PerLane<NetCounters>* hol_marks_ = nullptr;
  Time cut_last_arrival_;  // set_cut: when the last frame sent arrives
  // Faults (net/faults.h): touched only while one acts on the port.
  struct FaultState;
  std::unique_ptr<FaultState> fault_;
  PauseObserver* pause_observer_ = nullptr;
};

}  // namespace rocelab
