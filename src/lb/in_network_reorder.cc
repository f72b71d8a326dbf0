// In-network reordering. Line references are to ConWeave-ns3's conweave-routing.cc.
#include "lb/in_network_reorder.h"

#include <algorithm>

#include "net/node.h"

namespace rocelab {

InNetworkReorder::InNetworkReorder(const SwitchView& sw, const InNetworkReorderConfig& cfg,
                                   uint32_t handler, uint32_t flush_event)
    : sw_(sw), cfg_(cfg), handler_(handler), flush_event_(flush_event) {
  ports_.resize(sw.port_count());
  host_port_.resize(sw.port_count());
  for (size_t i = 0; i < sw.port_count(); ++i)
    host_port_[i] = sw.port(PortId{static_cast<uint16_t>(i)}).peer()->kind() == NodeKind::kHost;
}

// Epochs and phases of one packet (R.cc:646-942).
InNetworkReorder::Verdict InNetworkReorder::arrive(const ReorderTag& tag, const Packet& p) {
  const Time now = sw_.now();
  auto [it, fresh] = rx_.try_emplace(p.flow.index());
  RxFlow& f = it->second;
  f.active = now;

  // Epochs (R.cc:680-693): a packet of an earlier epoch passes untouched.
  bool new_epoch = false;
  if (tag.epoch > f.epoch) {
    new_epoch = true;
    f.epoch = tag.epoch;
  } else if (tag.epoch < f.epoch) {
    return Verdict::kOldEpoch;
  }
  if (tag.phase == 0) {
    f.phase0_tx = tag.tx_time;
    f.phase0_rx = now;
  }
  bool out_of_order = false;
  if (new_epoch) {
    f.phase = tag.tail ? 1 : 0;
    out_of_order = tag.phase > f.phase;
    f.phase0_seen = tag.phase == 0;
  } else {
    if (tag.tail) {
      if (!f.reordering) f.phase = 1;  // else at the flush
    } else {
      out_of_order = f.phase < tag.phase;
    }
    if (tag.phase == 0) f.phase0_seen = true;
  }
  if (tag.tail || tag.phase == 1) f.tail_time = tag.tail_time;

  // The TAIL should arrive as long after the last old-path packet as it left after it
  // (R.cc:777-825).
  const Delta gap =
      f.phase0_seen ? std::max(f.tail_time - f.phase0_tx, Delta::zero()) : cfg_.default_wait;
  Time expected = Time::zero();
  if (tag.phase == 1) {
    if (out_of_order) expected = (f.phase0_seen ? f.phase0_rx : now) + gap + cfg_.flush_extra;
  } else {
    expected = tag.tail ? now + Delta::from_ns(1) : now + gap + cfg_.flush_extra;
  }

  if (tag.phase == 0 && f.reordering) {
    if (tag.tail) ++stats_.flushes_by_tail;
    schedule_flush(f, p, std::max(expected, now));
    return Verdict::kForward;
  }
  if (tag.phase == 1 && out_of_order) {
    if (!f.reordering) {
      f.reordering = true;
      schedule_flush(f, p, std::max(expected, now));
    }
    return Verdict::kHold;
  }
  return Verdict::kForward;
}

void InNetworkReorder::hold(Packet& p, PortId in_port) {
  if (cfg_.held_in_buffer && !sw_.admit_held(p.self, in_port)) return;  // dropped
  ReorderQueue& q = queues_[rx_.find(p.flow.index())->second.queue];
  q.held.push_back(Held{p.self, in_port});
  ++stats_.held_packets;
  ++live_held_packets_;
  live_held_bytes_ += p.wire_bytes;
  stats_.max_held_packets = std::max(stats_.max_held_packets, live_held_packets_);
  stats_.max_held_bytes = std::max(stats_.max_held_bytes, live_held_bytes_);
}

// The flow's reorder queue (made on first use) flushes at `when`; a later call moves it.
void InNetworkReorder::schedule_flush(RxFlow& f, const Packet& p, Time when) {
  if (f.queue == kNoQueue) {
    if (free_queues_.empty()) {
      free_queues_.push_back(static_cast<uint32_t>(queues_.size()));
      queues_.emplace_back();
    }
    f.queue = free_queues_.back();
    free_queues_.pop_back();
    ReorderQueue& q = queues_[f.queue];
    q.flow = p.flow;
    q.port = sw_.routing().dst_port_at_edge(p);
    port_change(q.port, +1);
    ++live_queues_;
    stats_.max_queues = std::max(stats_.max_queues, live_queues_);
  }
  // Earlier or later: the timer keeps one live event and follows the deadline.
  sw_.sim().arm(queues_[f.queue].flush, when, handler_, flush_event_, f.queue);
}

void InNetworkReorder::on_flush_event(uint64_t arg) {
  const uint32_t queue = Simulator::timer_key(arg);
  if (!sw_.sim().timer_fired(queues_[queue].flush, arg, handler_, flush_event_)) return;
  flush(queue);
}

// Everything held goes out at once, in arrival order, admitted now on its own ingress
// port (ConWeaveVOQ::FlushAllImmediately); the flow is then in phase 1.
void InNetworkReorder::flush(uint32_t queue) {
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
  port_change(q.port, -1);
  --live_queues_;
  free_queues_.push_back(queue);
  for (const Held& h : scratch_held_) {
    --live_held_packets_;
    live_held_bytes_ -= sw_.pkt(h.pkt).wire_bytes;
    if (cfg_.held_in_buffer)
      sw_.enqueue_held(h.pkt);
    else
      sw_.forward(h.pkt, h.in_port);
  }
  scratch_held_.clear();
}

void InNetworkReorder::drop_idle(Time now, Delta idle) {
  for (auto it = rx_.begin(); it != rx_.end();)
    it = (it->second.queue == kNoQueue && now - it->second.active > idle) ? rx_.erase(it) : it + 1;
}

void InNetworkReorder::port_change(PortId port, int delta) {
  PortOccupancy& o = ports_[port.index()];
  const Time now = sw_.now();
  o.time_ps[std::min(o.live, kHistogramTop)] += (now - o.since).ps;
  o.since = now;
  o.live = static_cast<uint32_t>(static_cast<int>(o.live) + delta);
  o.max = std::max(o.max, o.live);
}

void InNetworkReorder::add_stats(const std::string& prefix, std::vector<SchemeStat>& out) const {
  const Counters& c = stats_;
  out.push_back({prefix + "_held_packets", static_cast<double>(c.held_packets)});
  out.push_back({prefix + "_flushes", static_cast<double>(c.flushes)});
  out.push_back({prefix + "_flushes_by_tail", static_cast<double>(c.flushes_by_tail)});
  out.push_back({prefix + "_max_reorder_queues", static_cast<double>(c.max_queues), true});
  out.push_back({prefix + "_max_held_packets", static_cast<double>(c.max_held_packets), true});
  out.push_back({prefix + "_max_held_bytes", static_cast<double>(c.max_held_bytes), true});
  // Per host-facing port, closed at the current time.
  std::array<int64_t, kHistogramTop + 1> time_ps{};
  uint32_t max_per_port = 0;
  const Time now = sw_.now();
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (!host_port_[i]) continue;
    const PortOccupancy& o = ports_[i];
    for (uint32_t k = 0; k <= kHistogramTop; ++k) time_ps[k] += o.time_ps[k];
    time_ps[std::min(o.live, kHistogramTop)] += (now - o.since).ps;
    max_per_port = std::max(max_per_port, o.max);
  }
  for (uint32_t k = 0; k <= kHistogramTop; ++k)
    out.push_back({prefix + "_port_queues_us_" + (k < 10 ? "0" : "") + std::to_string(k),
                   static_cast<double>(time_ps[k]) / 1e6});
  out.push_back({prefix + "_max_queues_per_port", static_cast<double>(max_per_port), true});
}

}  // namespace rocelab
