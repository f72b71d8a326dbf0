#include "net/egress_port.h"

#include <algorithm>
#include <stdexcept>

#include "net/net_context.h"
#include "net/node.h"
#include "sim/random.h"

namespace rocelab {

struct EgressPort::FaultState {
  bool down = false;
  bool peer_stalled = false;
  uint64_t loss_threshold = 0;  // a frame is lost when a draw is below it (0: never)
  RandomStream loss_draws;
  uint32_t doomed_on_wire = 0;         // frames on the wire when the link failed
  Time cut_doomed_until;               // set_cut: frames arriving until then are lost
  bool degraded = false;               // set_rate below the nominal rate
  std::vector<WatchdogMode> watchdog;  // per data queue
  uint32_t watchdog_count = 0;         // queues not kOff
};

EgressPort::EgressPort(Simulator& sim, Pool<Packet>& pool, Node& owner, PortId index,
                       size_t num_queues, std::unique_ptr<EgressScheduler> scheduler)
    : sim_(sim),
      pool_(pool),
      owner_(owner),
      handler_(sim.add_handler(this, owner.id().index())),
      index_(index),
      num_queues_(static_cast<uint32_t>(num_queues)),
      scheduler_(std::move(scheduler)),
      data_queues_(std::make_unique<PortQueue[]>(num_queues)),
      pulls_(owner.kind() == NodeKind::kHost),
      notify_enqueue_(scheduler_->wants_on_enqueue()),
      paused_(num_queues, 0),
      pause_epochs_(num_queues, 0),
      pause_started_(num_queues) {
  if (num_queues > UINT16_MAX) throw std::invalid_argument("a port has at most 65535 queues");
}

EgressPort::~EgressPort() = default;

void EgressPort::connect(Node* peer, PortId peer_port, BitsPerSec rate_bps, Delta delay,
                         Delta resolution) {
  peer_ = peer;
  peer_port_ = peer_port;
  peer_lp_ = peer->id().index();
  delay_ = delay;
  nominal_rate_bps_ = rate_bps;
  set_rate(rate_bps);
  resolution_ps_ = static_cast<uint32_t>(resolution.ps);
}

void EgressPort::set_rate(BitsPerSec rate_bps) {
  rate_bps_ = rate_bps;
  if (fault_ || rate_bps != nominal_rate_bps_) {
    if (!fault_) fault_ = std::make_unique<FaultState>();
    fault_->degraded = rate_bps != nominal_rate_bps_;
    update_faulty();
  }
  constexpr int64_t kBitPsPerByte = 8 * 1000000000000LL;
  const int64_t exact = kBitPsPerByte % rate_bps == 0 ? kBitPsPerByte / rate_bps : 0;
  ps_per_byte_ = exact <= UINT32_MAX ? static_cast<uint32_t>(exact) : 0;
}

// ---------------------------------------------------------------- faults

void EgressPort::update_faulty() {
  const FaultState* f = fault_.get();
  faulty_ = f != nullptr && (f->down || f->peer_stalled || f->loss_threshold != 0 ||
                             f->watchdog_count != 0 || f->degraded);
}

void EgressPort::set_link_down(bool down) {
  if (!fault_) fault_ = std::make_unique<FaultState>();
  if (fault_->down == down) return;
  fault_->down = down;
  update_faulty();
  if (down) {
    // What is on the wire now never arrives; the deliveries still come, in order, and
    // lose the first on_wire_ frames.
    fault_->doomed_on_wire = on_wire_;
    loses_on_delivery_ = on_wire_ > 0;
    // A cut link's frames are events at the peer; those not arrived yet arrive by the last
    // one's time (arrivals follow the starts).
    if (cut_) fault_->cut_doomed_until = std::max(cut_last_arrival_, sim_.now());
    // No XON can come over a dead link: the peer's pauses end with it (its refreshes are
    // lost too).
    for (uint32_t p = 0; p < 32; ++p)
      if ((paused_priorities_ >> p) & 1u) set_priority_paused(static_cast<Priority>(p), false);
    // A per-flow flow control's holds (BFC) end too: their resumes would come over it.
    for (size_t q = 0; q < num_queues_; ++q)
      if (paused(q)) flip_paused(q, false);
  }
  try_send();
}

bool EgressPort::link_down() const {
  return fault_ && fault_->down;
}

void EgressPort::set_loss(double probability, uint64_t seed) {
  if (!fault_) fault_ = std::make_unique<FaultState>();
  // A draw below probability x 2^64 loses the frame.
  fault_->loss_threshold = probability <= 0 ? 0
                           : probability >= 1
                               ? UINT64_MAX
                               : static_cast<uint64_t>(probability * 18446744073709551616.0);
  fault_->loss_draws = RandomStream(seed, "link-loss", uint64_t{index_.index()});
  update_faulty();
}

void EgressPort::set_peer_stalled(bool stalled) {
  if (!fault_) fault_ = std::make_unique<FaultState>();
  fault_->peer_stalled = stalled;
  update_faulty();
}

bool EgressPort::peer_stalled() const {
  return fault_ && fault_->peer_stalled;
}

void EgressPort::set_queue_watchdog(size_t queue, WatchdogMode mode) {
  if (!fault_) fault_ = std::make_unique<FaultState>();
  FaultState& f = *fault_;
  if (f.watchdog.empty()) f.watchdog.assign(num_queues_, WatchdogMode::kOff);
  if (queue >= num_queues_ || f.watchdog[queue] == mode) return;
  if (f.watchdog[queue] == WatchdogMode::kOff) ++f.watchdog_count;
  if (mode == WatchdogMode::kOff) --f.watchdog_count;
  f.watchdog[queue] = mode;
  update_faulty();
  // The queue ignores PAUSEs from now on: the one holding it ends.
  if (mode != WatchdogMode::kOff && paused(queue)) {
    flip_paused(queue, false);
    if (pause_observer_ != nullptr) pause_observer_->on_pause_change(*this, queue, false);
    count_pause(false);
  }
  try_send();
}

WatchdogMode EgressPort::queue_watchdog(size_t queue) const {
  return fault_ && !fault_->watchdog.empty() ? fault_->watchdog[queue] : WatchdogMode::kOff;
}

void EgressPort::lose(PacketId pkt, FaultLoss cause) {
  owner_.context().counters().count_fault_loss(cause, pool_[pkt.index()], sim_.now());
  owner_.context().free_packet(pkt);
}

bool EgressPort::fault_loses(const Packet& p) {
  FaultState& f = *fault_;
  owner_.context().counters().mark_fault_flow(p, 1);
  if (f.down) {
    lose(p.self, FaultLoss::kLinkDown);
    return true;
  }
  if (f.peer_stalled && p.type != PacketType::kPause) {
    lose(p.self, FaultLoss::kNicStalled);
    return true;
  }
  // Bit errors: PAUSE frames are spared (64 B against a 1 KB packet: 1/16 the chance), so
  // that a lost XON cannot hold a queue for the whole pause time.
  if (f.loss_threshold != 0 && p.type != PacketType::kPause &&
      f.loss_draws.next_u64() < f.loss_threshold) {
    lose(p.self, FaultLoss::kBitError);
    return true;
  }
  return false;
}

NodeId EgressPort::owner_id() const {
  return owner_.id();
}

size_t EgressPort::queued_packets() const {
  size_t n = pause_queue_.size() + control_queue_.size();
  for (size_t q = 0; q < num_queues_; ++q) n += data_queues_[q].size();
  return n;
}

void EgressPort::enqueue(PacketId pkt, size_t q) {
  const Packet& p = pool_[pkt.index()];
  if (p.type == PacketType::kPause && pause_ahead_) {
    pause_queue_.push_back(pkt);
    ++pause_frames_;
  } else if (!queued_as_data(p)) {
    control_queue_.push_back(pkt);
    ++control_frames_;
  } else {
    PortQueue& queue = data_queues_[q];
    queue.push_back(pkt);
    queue.bytes += p.wire_bytes;
    if (q < 32) nonempty_mask_ |= 1u << q;
    data_bytes_total_ += p.wire_bytes;
    if (notify_enqueue_) scheduler_->on_enqueue(q);
    // Queued behind a PAUSE: it waits through it. The one test every frame pays reads the
    // line this branch writes anyway; the mark's own line only while paused.
    if (pfc_paused(q) && hol_marks_ != nullptr) [[unlikely]]
      mark_hol_blocked(p);
  }
  try_send();
}

void EgressPort::set_priority_paused(Priority prio, bool paused) {
  const uint32_t bit = 1u << (prio & 31);
  paused_priorities_ = paused ? paused_priorities_ | bit : paused_priorities_ & ~bit;
  if (pfc_all_queues_) {
    const bool all = paused_priorities_ != 0;
    if (all == all_paused_) return;
    all_paused_ = all;
    if (all) {
      ++all_pause_epoch_;
      if (hol_marks_ != nullptr)
        for (size_t q = 0; q < num_queues_; ++q) mark_queue_hol_blocked(q);
    }
    count_pause(all);
    return;
  }
  const size_t queue = queue_of_priority(prio);
  bool any = false;  // another paused priority sharing the queue keeps it paused
  for (uint32_t p = 0; p < 32; ++p)
    if ((paused_priorities_ >> p) & 1u) any |= queue_of_priority(p) == queue;
  set_paused(queue, any);
}

void EgressPort::set_paused(size_t queue, bool paused) {
  if (queue >= paused_.size()) return;  // a class this port does not carry
  if (paused && faulty_ && queue_watchdog(queue) != WatchdogMode::kOff) {
    if (pause_observer_ != nullptr) pause_observer_->on_ignored_pause(*this, queue);
    return;  // a watchdog ignores it
  }
  if (!flip_paused(queue, paused)) return;
  if (paused) {
    ++pause_epochs_[queue];
    pause_started_[queue] = sim_.now();
    if (hol_marks_ != nullptr) mark_queue_hol_blocked(queue);
  }
  if (pause_observer_ != nullptr) pause_observer_->on_pause_change(*this, queue, paused);
  count_pause(paused);
}

void EgressPort::mark_hol_blocked(const Packet& p) {
  if (p.type != PacketType::kData) return;  // ACK/NAK in the data queue (ack_queue: data)
  std::vector<uint8_t>& marks = hol_marks_->local().hol_blocked_flows;
  const size_t flow = p.flow.index();
  // Flows are added over the run: grown by doubling, so a long run reallocates rarely.
  if (flow >= marks.size()) marks.resize(std::max(flow + 1, 2 * marks.size()), 0);
  marks[flow] = 1;
}

void EgressPort::mark_queue_hol_blocked(size_t queue) {
  const PortQueue& waiting = data_queues_[queue];
  for (size_t i = 0; i < waiting.size(); ++i) mark_hol_blocked(pool_[waiting.at(i).index()]);
}

bool EgressPort::flip_paused(size_t queue, bool paused) {
  if (static_cast<bool>(paused_[queue]) == paused) return false;
  paused_[queue] = paused;
  if (queue < 32) paused_mask_ ^= (1u << queue);
  return true;
}

void EgressPort::count_pause(bool paused) {
  if (paused) {
    ++pause_counters_.times_paused;
    if (paused_count_++ == 0) paused_since_ = sim_.now();
  } else {
    if (--paused_count_ == 0) pause_counters_.paused_time += sim_.now() - paused_since_;
    try_send();
  }
}

void EgressPort::hold_queue(size_t queue, bool held) {
  if (flip_paused(queue, held) && !held) try_send();
}

Delta EgressPort::paused_time(Time now) const {
  return pause_counters_.paused_time + (paused_count_ ? now - paused_since_ : Delta::zero());
}

PacketId EgressPort::pick_data(size_t* queue_index) {
  const size_t q = scheduler_->pick(queue_state());
  if (q == EgressScheduler::kNone) return PacketId::invalid();
  *queue_index = q;
  PortQueue& queue = data_queues_[q];
  const PacketId pkt = queue.pop_front();
  const uint32_t size = pool_[pkt.index()].wire_bytes;
  queue.bytes -= size;
  data_bytes_total_ -= size;
  const bool now_empty = queue.empty();
  if (now_empty && q < 32) nonempty_mask_ &= ~(1u << q);
  // The next head waited in the queue long enough to leave the cache; it is read when this
  // frame ends.
  if (!now_empty) __builtin_prefetch(&pool_[queue.front().index()]);
  scheduler_->on_sent(q, size, now_empty);
  return pkt;
}

void EgressPort::try_send() {
  // Pulling from a host may run congestion control, which may kick this port again: the
  // outer call is already choosing a packet, so the inner one must not.
  if (peer_ == nullptr || choosing_) return;
  if (busy_) {
    if (sim_.now() < busy_until_) {
      // Mid-frame: make sure the port looks again when the frame ends.
      if (!tx_done_pending_) schedule_tx_done();
      return;
    }
    busy_ = false;  // the last frame ended without an event (nothing was waiting then)
  }
  choosing_ = true;
  choose_and_send();
  choosing_ = false;
}

void EgressPort::choose_and_send() {
  // Carrier loss: a NIC whose link is down sends nothing into it. Its QPs keep their data
  // (what was on the wire is lost) until the link is back or a failover moves them to a
  // live port; the frames it queued for the port (ACKs, NAKs, CNPs, PAUSEs) are flushed,
  // lost. A switch's port drains into the dead link.
  if (faulty_ && pulls_ && fault_->down) [[unlikely]] {
    flush_queued_frames();
    return;
  }
  if ((pause_frames_ | control_frames_) != 0 &&
      (pause_frames_ != 0 || !control_waits_ || (paused_mask_ & control_wait_mask_) == 0)) {
    const bool pause = pause_frames_ > 0;
    const PacketId pkt = pause ? pause_queue_.pop_front() : control_queue_.pop_front();
    --(pause ? pause_frames_ : control_frames_);
    owner_.on_dequeue(index_, pkt, kNotDataQueue);
    start_transmission(pkt);
    return;
  }
  while (data_bytes_total_ > 0 && !all_paused_) {
    size_t queue = kNotDataQueue;
    const PacketId pkt = pick_data(&queue);
    if (!pkt.valid()) break;
    owner_.on_dequeue(index_, pkt, queue);
    if (faulty_ && queue_watchdog(queue) == WatchdogMode::kDrop) [[unlikely]] {
      lose(pkt, FaultLoss::kWatchdog);  // at once: a dropped packet takes no wire time
      continue;
    }
    start_transmission(pkt);
    return;
  }
  Time next_ready = Time::never();
  const PacketId pkt = owner_.pull(index_, &next_ready);
  if (pkt.valid()) {
    start_transmission(pkt);
  } else if (next_ready != Time::never()) {
    sim_.arm(wake_, next_ready, handler_, kWake);
  }
}

void EgressPort::flush_queued_frames() {
  while ((pause_frames_ | control_frames_) != 0) {
    const bool pause = pause_frames_ > 0;
    const PacketId pkt = pause ? pause_queue_.pop_front() : control_queue_.pop_front();
    --(pause ? pause_frames_ : control_frames_);
    owner_.on_dequeue(index_, pkt, kNotDataQueue);
    lose(pkt, FaultLoss::kLinkDown);
  }
  while (data_bytes_total_ > 0) {
    size_t queue = kNotDataQueue;
    const PacketId pkt = pick_data(&queue);
    if (!pkt.valid()) break;
    owner_.on_dequeue(index_, pkt, queue);
    lose(pkt, FaultLoss::kLinkDown);
  }
}

void EgressPort::start_transmission(PacketId pkt) {
  const Packet& p = pool_[pkt.index()];
  busy_ = true;
  busy_until_ = sim_.now() + tx_time(p.wire_bytes);
  ++tx_seq_;
  tx_bytes_ += p.wire_bytes;
  if (p.type == PacketType::kData) {
    tx_data_bytes_ += p.wire_bytes;
    ++tx_data_packets_;
  }
  // A fault may lose it: it took its time on the transmitter, and never arrives.
  if (faulty_ && fault_loses(p)) [[unlikely]] {
    schedule_next_after_frame();
    return;
  }
  // The frame's arrival is known now; the ring keeps one delivery event pending. The
  // delivery runs at the peer, ordered as this node scheduled it now.
  const Time arrival = busy_until_ + delay_;
  const uint64_t delivery_seq = sim_.reserve_seq();
  if (cut_) [[unlikely]] {
    cut_last_arrival_ = arrival;
    sim_.schedule_reserved_on(peer_lp_, arrival, delivery_seq, handler_, kDeliverCut, pkt.index());
    schedule_next_after_frame();
    return;
  }
  if (on_wire_++ == 0) {
    wire_head_ = pkt;
    sim_.schedule_reserved_on(peer_lp_, arrival, delivery_seq, handler_, kDeliver);
  } else {
    Packet& tail = pool_[wire_tail_.index()];
    tail.next_on_wire = pkt;
    tail.next_on_wire_arrival = arrival;
    tail.next_on_wire_seq = delivery_seq;
  }
  wire_tail_ = pkt;
  schedule_next_after_frame();
}

void EgressPort::schedule_next_after_frame() {
  // An end-of-frame event only when something may be sent next: queued frames, or a host
  // with data to pull. Otherwise the next enqueue or kick finds the port idle.
  tx_done_pending_ = false;
  tx_done_reserved_ = false;
  if ((pause_frames_ | control_frames_) != 0 || data_bytes_total_ > 0) {
    schedule_tx_done();
  } else if (pulls_) {
    // A host asks at every frame's end whether it has data; when it has none, the event
    // keeps the place in the order it would have had, and is queued only if a kick comes
    // before the frame ends. (A host that only sends ACKs saves an event per ACK.)
    tx_done_seq_ = sim_.reserve_seq();
    tx_done_reserved_ = true;
    if (owner_.may_pull(index_)) schedule_tx_done();
  }
}

void EgressPort::schedule_tx_done() {
  tx_done_pending_ = true;
  // The end of a frame runs at this port's node. Named here rather than looked up in the
  // simulator's handler table: the frame often starts in another handler's event (a
  // delivery at the peer's port), where this port's table entry is not in the cache
  // (cachegrind, websearch-8x8 for 1 ms: 45.94 M L1 data misses to 45.76 M).
  const LpId own_lp = owner_.id().index();
  if (tx_done_reserved_) {
    tx_done_reserved_ = false;
    sim_.schedule_reserved_on(own_lp, busy_until_, tx_done_seq_, handler_, kTxDone, tx_seq_);
  } else {
    sim_.schedule_on(own_lp, busy_until_, handler_, kTxDone, tx_seq_);
  }
}

void EgressPort::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kTxDone:
      if (arg != tx_seq_) break;  // a later frame already started
      tx_done_pending_ = false;
      busy_ = false;
      try_send();
      break;
    case kDeliver: {
      const PacketId pkt = wire_head_;
      if (--on_wire_ > 0) {
        const Packet& p = pool_[pkt.index()];
        wire_head_ = p.next_on_wire;
        // This delivery runs at the peer's LP, as the next one does.
        sim_.schedule_reserved_on(peer_lp_, p.next_on_wire_arrival, p.next_on_wire_seq, handler_,
                                  kDeliver);
        __builtin_prefetch(&pool_[wire_head_.index()]);  // the peer reads it next
      }
      if (loses_on_delivery_) [[unlikely]] {
        // The link failed with this frame on it.
        if (--fault_->doomed_on_wire == 0) loses_on_delivery_ = false;
        lose(pkt, FaultLoss::kLinkDown);
        break;
      }
      peer_->receive(pkt, peer_port_);
      break;
    }
    case kWake:
      if (sim_.timer_fired(wake_, arg, handler_, kWake)) try_send();
      break;
    case kDeliverCut: {
      // At the peer's partition. The fault state is changed only between windows.
      const PacketId pkt(static_cast<uint32_t>(arg));
      if (fault_ && sim_.now() <= fault_->cut_doomed_until) [[unlikely]] {
        lose(pkt, FaultLoss::kLinkDown);  // the link failed with this frame on it
        break;
      }
      peer_->receive(pkt, peer_port_);
      break;
    }
  }
}

}  // namespace rocelab
