// ConWeave: the destination ToR (reorder queues, RTT_REPLY / CLEAR / NOTIFY) and the
// aging of flow state. Line references are to ConWeave-ns3's conweave-routing.cc.
#include <algorithm>

#include "lb/conweave.h"

namespace rocelab {

// One tagged data packet arriving from the fabric for a local host (R.cc:646-942).
// True when it is held in a reorder queue.
bool ConWeave::on_data_from_fabric(Packet& p, PortId in_port) {
  const ConWeaveTag tag = sw_.field(tag_, p);
  if (tag.flag == 0) return false;  // not balanced by ConWeave (single path)
  const Time now = sw_.now();
  age(now);
  auto [it, fresh] = rx_.try_emplace(p.flow.index());
  RxFlow& f = it->second;
  f.active = now;

  // Epochs (R.cc:680-693): a packet of an earlier epoch passes untouched.
  bool new_epoch = false;
  if (tag.epoch > f.epoch) {
    new_epoch = true;
    f.epoch = tag.epoch;
  } else if (tag.epoch < f.epoch) {
    return false;
  }
  if (tag.phase == 0) {
    f.phase0_tx = Time{tag.tx_time_ps};
    f.phase0_rx = now;
  }
  bool out_of_order = false;
  if (new_epoch) {
    f.phase = tag.flag == kTail ? 1 : 0;
    out_of_order = tag.phase > f.phase;
    f.phase0_seen = tag.phase == 0;
  } else {
    if (tag.flag == kTail) {
      if (!f.reordering) f.phase = 1;  // else at the flush
    } else {
      out_of_order = f.phase < tag.phase;
    }
    if (tag.phase == 0) f.phase0_seen = true;
  }
  if (tag.flag == kTail || tag.phase == 1) f.tail_time = Time{tag.tail_time_ps};

  // The TAIL should arrive as long after the last old-path packet as it left after it
  // (R.cc:777-825).
  const Delta gap =
      f.phase0_seen ? std::max(f.tail_time - f.phase0_tx, Delta::zero()) : cfg_.default_wait;
  Time expected = Time::zero();
  if (tag.phase == 1) {
    if (out_of_order) expected = (f.phase0_seen ? f.phase0_rx : now) + gap + cfg_.flush_extra;
  } else {
    expected = tag.flag == kTail ? now + Delta::from_ns(1) : now + gap + cfg_.flush_extra;
  }

  bool hold = false;
  if (tag.phase == 0 && f.reordering) {
    if (tag.flag == kTail) ++stats_.flushes_by_tail;
    schedule_flush(f, p.flow, std::max(expected, now));
  } else if (tag.phase == 1 && out_of_order) {
    hold = true;
    if (!f.reordering) {
      f.reordering = true;
      schedule_flush(f, p.flow, std::max(expected, now));
    }
  }

  if (p.ecn_ce) {  // R.cc:909-913: every CE mark, no rate limit
    send_control(p, in_port, ConWeaveControl{0, tag.path, 0, kNotify});
    ++stats_.notifies_sent;
  }
  if (tag.flag == kInit) {
    send_control(p, in_port, ConWeaveControl{tag.epoch, 0, 0, kReplyInit});
    ++stats_.replies_sent;
  } else if (tag.flag == kTail) {
    send_control(p, in_port, ConWeaveControl{tag.epoch, 0, 1, kReplyTail});
    ++stats_.clears_sent;
  }
  if (!hold) return false;
  if (held_in_buffer_ && !sw_.admit_held(p.self, in_port)) return true;  // dropped

  ReorderQueue& q = queues_[f.queue];
  q.held.push_back(Held{p.self, in_port});
  ++stats_.held_packets;
  ++live_held_packets_;
  live_held_bytes_ += p.wire_bytes;
  stats_.max_held_packets = std::max(stats_.max_held_packets, live_held_packets_);
  stats_.max_held_bytes = std::max(stats_.max_held_bytes, live_held_bytes_);
  return true;
}

// A control packet back to the data's sender, routed by ECMP in the control queue.
void ConWeave::send_control(const Packet& data, PortId in_port, const ConWeaveControl& c) {
  const PacketId id = sw_.new_packet();
  Packet& m = sw_.pkt(id);
  m.type = PacketType::kControl;
  m.control_kind = control_kind_;
  m.ecn_capable = false;
  m.wire_bytes = sw_.wire().control_wire_bytes(PacketType::kControl);
  m.src = sw_.id();
  m.dst = data.src;
  m.flow = data.flow;
  m.sport = data.dport;
  m.dport = data.sport;
  m.flow_hash = data.flow_hash ^ 0x5a17u;
  sw_.field(control_, m) = c;
  sw_.forward(id, in_port);
}

// The flow's reorder queue (made on first use) flushes at `when`; a later call moves it.
void ConWeave::schedule_flush(RxFlow& f, FlowId flow, Time when) {
  if (f.queue == kNoQueue) {
    if (free_queues_.empty()) {
      free_queues_.push_back(static_cast<uint32_t>(queues_.size()));
      queues_.emplace_back();
    }
    f.queue = free_queues_.back();
    free_queues_.pop_back();
    queues_[f.queue].flow = flow;
    ++live_queues_;
    stats_.max_queues = std::max(stats_.max_queues, live_queues_);
  }
  // Earlier or later: the timer keeps one live event and follows the deadline.
  sw_.sim().arm(queues_[f.queue].flush, when, handler_, kFlushEvent, f.queue);
}

void ConWeave::on_event(uint32_t kind, uint64_t arg) {
  if (kind != kFlushEvent) return;
  const uint32_t queue = Simulator::timer_key(arg);
  if (!sw_.sim().timer_fired(queues_[queue].flush, arg, handler_, kFlushEvent)) return;
  flush(queue);
}

// Everything held goes out at once, in arrival order, admitted now on its own ingress
// port (ConWeaveVOQ::FlushAllImmediately); the flow is then in phase 1.
void ConWeave::flush(uint32_t queue) {
  ReorderQueue& q = queues_[queue];
  ++stats_.flushes;
  auto it = rx_.find(q.flow.index());
  if (it != rx_.end()) {
    it->second.reordering = false;
    it->second.phase = 1;
    it->second.queue = kNoQueue;
  }
  // Forwarding may not touch the queues, but take the packets out first all the same.
  scratch_held_.swap(q.held);
  q.held.clear();  // keeps the capacity scratch_held_ had
  --live_queues_;
  free_queues_.push_back(queue);
  for (const Held& h : scratch_held_) {
    --live_held_packets_;
    live_held_bytes_ -= sw_.pkt(h.pkt).wire_bytes;
    if (held_in_buffer_)
      sw_.enqueue_held(h.pkt);
    else
      sw_.forward(h.pkt, h.in_port);
  }
  scratch_held_.clear();
}

// Flow state idle for `aging` is dropped, in sweeps every `aging` (AgingEvent). A flow
// with a live reorder queue keeps its state.
void ConWeave::age(Time now) {
  if (next_aging == Time::zero()) next_aging = now + cfg_.aging;
  if (now < next_aging) return;
  next_aging = now + cfg_.aging;
  for (auto it = tx_.begin(); it != tx_.end();)
    it = now - it->second.active > cfg_.aging ? tx_.erase(it) : it + 1;
  for (auto it = rx_.begin(); it != rx_.end();)
    it = (it->second.queue == kNoQueue && now - it->second.active > cfg_.aging) ? rx_.erase(it)
                                                                                : it + 1;
}

}  // namespace rocelab
