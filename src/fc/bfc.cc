#include "fc/bfc.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "fc/bfc_scheduler.h"
#include "net/host_node.h"
#include "net/switch_node.h"

namespace rocelab {

namespace {

enum BfcKind : uint8_t { kUntracked = 0, kTracked = 1, kHigh = 2, kOverflow = 3 };
enum : uint32_t { kTick = 0 };

// VFID = Hash_VFID(5-tuple), the same at every switch and NIC (§3.3).
uint32_t vfid_of(uint32_t flow_hash, uint32_t vfids) {
  return static_cast<uint32_t>(mix64(uint64_t{flow_hash} ^ 0x5f1d5f1dULL) % vfids);
}

// Nearest rank: the first bin by which pct% of the histogram's `total` counts are seen.
size_t histogram_percentile(const std::vector<uint64_t>& counts, uint64_t total, uint64_t pct) {
  uint64_t seen = 0;
  size_t k = 0;
  while (k + 1 < counts.size() && (seen += counts[k]) * 100 < total * pct) ++k;
  return k;
}

std::shared_ptr<BfcShared> shared_of(NetContext& ctx) {
  std::shared_ptr<BfcShared> shared = ctx.shared_state<BfcShared>();
  shared->attach(ctx, ctx.state.layout().control_kind("bfc"));
  return shared;
}

}  // namespace

void describe(ParamVisitor& v, BfcParams& p) {
  v.count("physical_queues", p.physical_queues, 1, 1024,
          "FIFO queues per switch egress port, assigned to flows as they arrive (32: §4.1)");
  v.count("vfids", p.vfids, 1, 1u << 24, "VFID space = hash-table buckets (16K: §4.1)");
  v.count("bucket_entries", p.bucket_entries, 1, 64, "entries per hash-table bucket (4: §3.8)");
  v.count("tcam_entries", p.tcam_entries, 0, 1u << 20,
          "overflow cache for full buckets (100: §3.8); beyond it the overflow queue");
  v.count("filter_bytes", p.filter_bytes, 1, 1u << 16, "pause bloom filter size (128 B: §4.1)");
  v.count("filter_hashes", p.filter_hashes, 1, 16, "bloom filter stages / hashes (4: §3.6)");
  v.require(p.filter_bytes * 8 % p.filter_hashes == 0, "filter_hashes",
            "must divide the filter's bits (filter_bytes x 8)");
  v.duration("hop_rtt", p.hop_rtt, Delta::zero(), Delta::max(),
             "HRTT of a link; 0 = 2 x its delay (§4.1: 1-hop RTT 2 us at 1 us links)");
  v.duration("filter_interval", p.filter_interval, Delta::zero(), Delta::max(),
             "tau, between filters on a link; 0 = HRTT / 2 (§3.3)");
  v.count("resumes_per_interval", p.resumes_per_interval, 1, 1u << 16,
          "VFIDs resumed per physical queue per tau (1: two per HRTT, §3.5)");
  v.flag("resume_all", p.resume_all,
         "resume every paused VFID of a queue once it falls below Th (BFC-BufferOpt, §4.3)");
  v.flag("high_priority_queue", p.high_priority_queue,
         "each flow's first packet in a high-priority queue (§3.7; false: BFC-HighPriorityQ)");
  v.flag("dynamic_queues", p.dynamic_queues,
         "flows take a free physical queue (§3.3); false: static hashing (BFC-VFID, §3.2)");
  v.flag("keep_queue", p.keep_queue,
         "a paused flow keeps its physical queue after its last departure until resumed and "
         "its packets are back, or 2 (HRTT + tau) after the resume (false: reclaimed with the "
         "last packet, §3.3)");
  v.flag("recheck_threshold", p.recheck_threshold,
         "Th re-checked at a listed flow's turn and at each of its departures (§3.3: \"each "
         "time we dequeue one of its packets\"); false: a listed flow is resumed at its turn");
  static const std::string kRelease[] = {"all", "one"};
  v.choice("release_waiting", p.release_waiting, kRelease,
           "paused flows with nothing queued are listed for resume all at once at their "
           "queue's first departure at or below Th (all), or one per such departure (one)");
  v.count("filter_header_bytes", p.filter_header_bytes, 0, 1024,
          "Ethernet header + FCS around a filter frame (18; the paper gives the filter only)");
}

void BfcShared::attach(NetContext& ctx, ControlKind frame_kind) {
  if (ctx_) return;
  ctx_ = &ctx;
  frame_kind_ = frame_kind;
  ctx.side_data.push_back(this);
}

// Only filter frames carry a snapshot; another packet's slot holds an old frame's.
void BfcShared::encode(PacketId frame, ByteWriter& out) {
  const Packet& p = ctx_->pkt(frame);
  const bool filter = p.type == PacketType::kControl && p.control_kind == frame_kind_;
  const std::vector<uint64_t>& words = of(frame);
  const uint32_t n = filter ? static_cast<uint32_t>(words.size()) : UINT32_MAX;
  out.put(n);
  if (filter) out.put_raw(words.data(), words.size() * sizeof(uint64_t));
}

void BfcShared::decode(PacketId frame, ByteReader& in) {
  const auto n = in.get<uint32_t>();
  if (n == UINT32_MAX) return;
  std::vector<uint64_t>& words = of(frame);
  words.resize(n);
  in.get_raw(words.data(), size_t{n} * sizeof(uint64_t));
}

void BfcShared::grow_to(uint32_t index) {
  const std::lock_guard<std::mutex> lock(grow_mutex_);
  const size_t want = (index >> kChunkBits) + 1;
  if (want > kMaxChunks) throw std::length_error("bfc: a filter frame beyond the packet pool");
  // Reserved up front: the table never moves under a reader.
  while (chunks_.size() < want) chunks_.push_back(std::make_unique<Chunk>());
  chunk_count_.store(chunks_.size(), std::memory_order_release);
}

// ------------------------------------------------------------------------- switch

Bfc::Bfc(Switch& sw, const BfcParams& params)
    : sw_(sw),
      ctx_(sw.context()),
      params_(params),
      backstop_(sw, true),
      shape_(params.filter_bytes, params.filter_hashes),
      table_(params.vfids, params.bucket_entries, params.tcam_entries),
      shared_(shared_of(sw.context())),
      tag_(sw.context().state.layout().declare<BfcTag>("bfc.tag")),
      first_of_flow_(sw.context().state.layout().declare<uint8_t>(kFirstOfFlowField)),
      control_kind_(sw.context().state.layout().control_kind("bfc")),
      rng_(sw.context().seed, "bfc", sw.id().index()),
      handler_(sw.context().sim.add_handler(this, sw.id().index())),
      release_one_(params.release_waiting == "one"),
      hp_queue_(params.physical_queues + 1),
      overflow_queue_(params.physical_queues),
      held_scratch_(params.physical_queues + 1) {
  for (size_t i = 0; i < sw.port_count(); ++i) {
    EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
    if (port.num_queues() != params.physical_queues + 2)
      throw std::logic_error("bfc: switch ports need physical_queues + 2 data queues");
    port.set_pfc_pauses_all_queues(true);
    const Delta hrtt = params.hop_rtt > Delta::zero() ? params.hop_rtt : port.delay() * 2;
    const Delta tau =
        params.filter_interval > Delta::zero() ? params.filter_interval : Delta{hrtt.ps / 2};
    if (tau <= Delta::zero()) throw std::invalid_argument("bfc: filter interval must be > 0");
    ports_.push_back(PortState{std::vector<uint32_t>(params.physical_queues, 0),
                               std::vector<Ring<uint32_t>>(params.physical_queues),
                               std::vector<Ring<uint32_t>>(params.physical_queues),
                               std::vector<uint64_t>(params.physical_queues, UINT64_MAX),
                               std::vector<uint32_t>(params.physical_queues, 0),
                               0,
                               0,
                               CountingBloomFilter(shape_),
                               std::vector<uint64_t>(shape_.words()),
                               static_cast<double>((hrtt + tau).ps) * 1e-12,
                               static_cast<double>(port.rate_bps()) / 8,
                               tau,
                               ctx_.sim.now() + tau,
                               false,
                               Ring<HeldQueue>{},
                               {},
                               std::vector<Time>(params.physical_queues, Time::never())});
    tick_ = tick_ == Delta::zero() ? tau : std::min(tick_, tau);
  }
  tick_origin_ = ctx_.sim.now();
  depth_kb_.assign(kDepthBins, 0);
  in_use_at_assignment_.assign(params_.physical_queues + 1, 0);
}

size_t Bfc::classify(const EgressPort& port, const Packet& p) const {
  const BfcTag& t = ctx_.field(tag_, p);
  return t.kind == kUntracked ? port.num_queues() - 1 : t.queue;
}

// §3.4: a queue keeps (HRTT + tau) of its drain rate, mu / N_active, N_active counting the
// unpaused queues with data and this one.
double Bfc::threshold_bytes(PortId in, PortId out, size_t queue) const {
  const EgressPort& port = sw_.port(out);
  const double n = static_cast<double>(active_queues(port, queue) + 1);
  return ports_[in.index()].feedback_s * ports_[out.index()].rate_Bps / n;
}

size_t Bfc::active_queues(const EgressPort& port, size_t except) const {
  const size_t n = overflow_queue_ + 1;  // physical queues and the overflow queue
  const size_t in_mask = std::min<size_t>(n, 32);
  uint32_t mask = port.nonempty_mask() & ~port.paused_mask();
  if (in_mask < 32) mask &= (1u << in_mask) - 1;
  if (except < 32) mask &= ~(1u << except);
  size_t count = static_cast<size_t>(std::popcount(mask));
  for (size_t q = 32; q < n; ++q)
    if (q != except && port.queue_bytes(q) > 0 && !port.paused(q)) ++count;
  return count;
}

uint16_t Bfc::assign_queue(PortState& ps, uint32_t vfid) {
  const uint32_t n = params_.physical_queues;
  uint32_t q = vfid % n;  // BFC-VFID: the straw proposal's static hash (§3.2)
  if (params_.dynamic_queues) {
    // §3.3: a free physical queue, else a random one.
    const auto free = std::find(ps.queue_vfids.begin(), ps.queue_vfids.end(), 0u);
    q = free != ps.queue_vfids.end() ? static_cast<uint32_t>(free - ps.queue_vfids.begin())
                                     : static_cast<uint32_t>(rng_.below(n));
  }
  ++assignments_;
  ++in_use_at_assignment_[ps.queues_in_use];
  if (ps.queue_vfids[q]++ > 0)
    ++queue_collisions_;
  else
    ++ps.queues_in_use;
  return static_cast<uint16_t>(q);
}

bool Bfc::admit(PortId in, PortId out, Packet& p) {
  if (!backstop_.admit(in, out, p)) return false;
  BfcTag& t = ctx_.field(tag_, p);
  t = BfcTag{};
  if (p.type != PacketType::kData) return true;  // ACKs in data queues: high priority
  if (!seen_data_) wake();
  const uint32_t vfid = vfid_of(p.flow_hash, params_.vfids);
  EgressPort& port = sw_.port(out);
  // §3.7: a flow's first packet is pre-scheduled unless its VFID is paused or queued here.
  if (params_.high_priority_queue && ctx_.field(first_of_flow_, p)) {
    const uint32_t i = table_.find(vfid, in, out);
    if (i == VfidTable::kNone || (table_[i].queued == 0 && !table_[i].paused)) {
      t.kind = kHigh;
      t.queue = static_cast<uint16_t>(hp_queue_);
      ++hp_packets_;
      return true;
    }
  }
  const uint32_t i = table_.find_or_add(vfid, in, out);
  if (i == VfidTable::kNone) {  // §3.8: no room in the bucket or the cache
    t.kind = kOverflow;
    t.queue = static_cast<uint16_t>(overflow_queue_);
    ++overflow_packets_;
  } else {
    VfidEntry& e = table_[i];
    PortState& ps = ports_[out.index()];
    if (e.queued > 0 && e.flow != p.flow.index()) ++vfid_collisions_;
    e.flow = p.flow.index();
    bool burst = e.burst_due;
    e.burst_due = false;
    if (e.queued++ == 0) {
      e.waiting = false;  // its own departures decide again (left on the old list)
      if (e.holds_queue) {
        e.holds_queue = false;  // keep_queue: back into the queue it kept
      } else {
        e.queue = assign_queue(ps, vfid);
        burst = burst || released_resume(ps, vfid, in.index());
      }
    }
    if (burst) count_burst(ps, e.queue, port.queue_bytes(e.queue));
    t.kind = kTracked;
    t.queue = e.queue;
    t.entry = i;
    // §3.4: pause when this packet takes the queue past Th.
    const int64_t depth = port.queue_bytes(e.queue) + p.wire_bytes;
    max_queue_bytes_ = std::max(max_queue_bytes_, static_cast<uint64_t>(depth));
    ++depth_kb_[std::min<size_t>(static_cast<size_t>(depth / 1000), kDepthBins - 1)];
    if (!e.paused && static_cast<double>(depth) > threshold_bytes(in, out, e.queue)) pause(e, i);
  }
  // Upstream role: a packet that becomes its queue's head is matched against the filter
  // the next hop sent last (§3.6).
  if (port.queue_bytes(t.queue) == 0)
    port.hold_queue(t.queue,
                    shape_.matches(ports_[out.index()].peer_filter, vfid) && !port.link_down());
  return true;
}

void Bfc::pause(VfidEntry& e, uint32_t index) {
  e.paused = true;
  ports_[e.in].paused.add(shape_, e.vfid);
  ++pauses_;
  paused_ps_sum_ -= ctx_.sim.now().ps;  // + its resume time: the pause's length
  // BFC-BufferOpt resumes every paused VFID of the queue at once: list them now.
  if (params_.resume_all) ask_resume(ports_[e.out], e, index);
}

void Bfc::ask_resume(PortState& ps, VfidEntry& e, uint32_t index) {
  if (e.pending) return;
  e.pending = true;
  Ring<uint32_t>& list = ps.to_resume[e.queue];
  if (list.empty()) ++ps.lists_pending;
  list.push_back(index);
}

void Bfc::release_waiting(PortState& ps, PortId out, size_t queue) {
  Ring<uint32_t>& list = ps.waiting[queue];
  while (!list.empty()) {
    const uint32_t i = list.pop_front();
    VfidEntry& e = table_[i];
    // Entries that got packets again, were resumed or reused since are not waiting here.
    if (!e.used || !e.waiting || e.queue != queue || e.out != out.index() || e.queued > 0 ||
        !e.paused || e.pending)
      continue;
    e.waiting = false;
    ask_resume(ps, e, i);
    if (release_one_) return;
  }
}

// The most flows one physical queue resumed within one interval tau (§3.5 allows one).
void Bfc::count_resume(PortState& ps, size_t queue) {
  const uint64_t interval = static_cast<uint64_t>((ctx_.sim.now() - tick_origin_).ps / tick_.ps);
  if (ps.resume_interval[queue] != interval) {
    ps.resume_interval[queue] = interval;
    ps.resumed_in_interval[queue] = 0;
  }
  max_resumes_per_interval_ = std::max(max_resumes_per_interval_, ++ps.resumed_in_interval[queue]);
}

// recheck_threshold, at a listed flow's turn: is it still due? An entry that left the list
// (a departure above Th) or was reused is skipped; one whose queue is back above Th stays
// paused, and waits for its queue to fall if it has nothing queued.
bool Bfc::due_now(PortId out, size_t queue, uint32_t index) {
  VfidEntry& e = table_[index];
  if (!e.used || !e.pending || e.out != out.index() || e.queue != queue) return false;
  const double depth = static_cast<double>(sw_.port(out).queue_bytes(queue));
  if (depth <= threshold_bytes(PortId(e.in), out, queue)) return true;
  e.pending = false;
  ++rechecks_kept_paused_;
  if (e.queued == 0) {
    e.waiting = true;
    ports_[out.index()].waiting[queue].push_back(index);
  }
  return false;
}

void Bfc::release_queue(PortState& ps, size_t queue) {
  if (--ps.queue_vfids[queue] == 0) --ps.queues_in_use;
}

void Bfc::resume(uint32_t index) {
  VfidEntry& e = table_[index];
  e.pending = false;
  if (e.paused) {
    e.paused = false;
    ports_[e.in].paused.remove(shape_, e.vfid);
    ++resumes_;
    paused_ps_sum_ += ctx_.sim.now().ps;
  }
  const Delta feedback{static_cast<int64_t>(ports_[e.in].feedback_s * 1e12)};
  if (e.queued == 0 && !e.holds_queue) {
    // The entry goes now; the burst this resume lets go is told at its arrival by its VFID.
    ports_[e.out].released_resumes.push_back(
        ReleasedResume{e.vfid, e.in, ctx_.sim.now() + feedback * 2});
    table_.release(index);
    return;
  }
  e.burst_due = true;
  if (e.holds_queue) {
    // keep_queue: the queue stays the flow's until the packets the resume lets go arrive,
    // at most one feedback delay (HRTT + tau) of the link they come by, twice over.
    ports_[e.out].held_after_resume.push_back(HeldQueue{index, ctx_.sim.now() + feedback * 2});
  }
}

// Was (vfid, in) resumed here within the last 2 (HRTT + tau), its entry gone since? Each
// resume is told once; those whose time is up are dropped on the way.
bool Bfc::released_resume(PortState& ps, uint32_t vfid, uint16_t in) {
  const Time now = ctx_.sim.now();
  std::vector<ReleasedResume>& list = ps.released_resumes;
  bool found = false;
  for (size_t k = 0; k < list.size();) {
    const bool match = !found && list[k].vfid == vfid && list[k].in == in;
    if (match || list[k].until <= now) {
      found = found || (match && list[k].until > now);
      list[k] = list.back();
      list.pop_back();
    } else {
      ++k;
    }
  }
  return found;
}

// Fig. 10: a resume's burst arriving in a physical queue: how deep the queue it lands on
// is, and whether it lands within tau of the previous one there (paced resumes space them
// a tau apart at the resuming switch).
void Bfc::count_burst(PortState& ps, size_t queue, int64_t queue_bytes) {
  if (queue >= ps.last_burst.size()) return;  // the overflow queue
  const Time now = ctx_.sim.now();
  ++resume_bursts_;
  max_queue_bytes_at_burst_ =
      std::max(max_queue_bytes_at_burst_, static_cast<uint64_t>(queue_bytes));
  if (ps.last_burst[queue] != Time::never() && now - ps.last_burst[queue] < tick_)
    ++stacked_bursts_;
  ps.last_burst[queue] = now;
}

// keep_queue: holds whose time is up, and whose flow sent nothing more, end.
void Bfc::end_held_queues(PortState& ps, size_t port, Time now) {
  while (!ps.held_after_resume.empty() && ps.held_after_resume.front().until <= now) {
    const uint32_t i = ps.held_after_resume.pop_front().index;
    VfidEntry& e = table_[i];
    if (!e.used || !e.holds_queue || e.paused || e.out != port) continue;
    e.holds_queue = false;
    release_queue(ps, e.queue);
    ++held_queues_expired_;
    if (e.queued == 0 && !e.pending) table_.release(i);
  }
}

void Bfc::on_dequeue(PortId out, size_t queue, Packet& p) {
  backstop_.on_dequeue(out, queue, p);
  const BfcTag t = ctx_.field(tag_, p);
  if (t.kind == kUntracked) return;
  EgressPort& port = sw_.port(out);
  // §3.6: a flow the downstream filter names must not leave this port. Counted, not acted
  // on: the hold state is what enforces it (a test asserts the count stays 0).
  if (t.kind != kHigh &&
      shape_.matches(ports_[out.index()].peer_filter, vfid_of(p.flow_hash, params_.vfids)))
    ++sent_while_paused_;
  if (t.kind == kTracked) {
    const uint32_t i = t.entry;
    VfidEntry& e = table_[i];
    PortState& ps = ports_[out.index()];
    const bool last = --e.queued == 0;
    if (last) {
      if (params_.keep_queue && e.paused)
        e.holds_queue = true;
      else
        release_queue(ps, t.queue);
    }
    const double depth = static_cast<double>(port.queue_bytes(t.queue));
    const bool below = depth <= threshold_bytes(PortId(e.in), out, t.queue);
    if (params_.resume_all) {
      if (below) {
        Ring<uint32_t>& list = ps.to_resume[t.queue];
        if (!list.empty()) --ps.lists_pending;
        while (!list.empty()) {
          resume(list.pop_front());
          count_resume(ps, t.queue);
        }
      }
    } else if (e.paused && e.pending && params_.recheck_threshold && !below) {
      e.pending = false;  // §3.3: not due any more; the list skips it at its turn
      if (last) {         // and with nothing left to depart, it waits for its queue to fall
        e.waiting = true;
        ps.waiting[t.queue].push_back(i);
      }
    } else if (e.paused && !e.pending) {
      // §3.5: a flow due to resume waits its turn on the queue's list.
      if (below) {
        ask_resume(ps, e, i);
      } else if (last) {
        // No departure of its own will come: it waits for its queue to fall below Th
        // (the paper does not say; resuming it now would refill a queue above Th).
        e.waiting = true;
        ps.waiting[t.queue].push_back(i);
      }
    }
    if (below && !ps.waiting[t.queue].empty()) release_waiting(ps, out, t.queue);
    // The state goes with the flow's last packet (§3.3), unless a pause still needs it.
    if (last && e.used && !e.paused && !e.pending) table_.release(i);
  }
  // Upstream role: the queue's next head decides whether it stays held (§3.6: "we
  // recompute the match ... after every packet send").
  if (t.kind != kHigh) match_head(out, t.queue);
}

bool Bfc::head_matches(PortId out, size_t queue) const {
  // A failed link's last filter is stale (no new one can come): it holds nothing.
  if (sw_.port(out).link_down()) return false;
  const PacketId head = sw_.port(out).queue_head(queue);
  return head.valid() && shape_.matches(ports_[out.index()].peer_filter,
                                        vfid_of(ctx_.pkt(head).flow_hash, params_.vfids));
}

void Bfc::match_head(PortId out, size_t queue) {
  sw_.port(out).hold_queue(queue, head_matches(out, queue));
}

bool Bfc::on_frame(PortId in, const Packet& p) {
  if (p.type == PacketType::kPause) return backstop_.on_frame(in, p);
  if (p.type != PacketType::kControl || p.control_kind != control_kind_) return false;
  ports_[in.index()].peer_filter.swap(shared_->of(p.self));
  // Every new hold before any release: a release sends at once, and it must not pick a
  // queue whose head the new filter names but whose hold is not yet applied.
  EgressPort& port = sw_.port(in);
  for (size_t q = 0; q <= overflow_queue_; ++q) held_scratch_[q] = head_matches(in, q);
  for (size_t q = 0; q <= overflow_queue_; ++q)
    if (held_scratch_[q]) port.hold_queue(q, true);
  for (size_t q = 0; q <= overflow_queue_; ++q)
    if (!held_scratch_[q]) port.hold_queue(q, false);
  return true;
}

void Bfc::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kTick && ctx_.sim.timer_fired(timer_, arg, handler_, kTick)) tick();
}

// The filters go out every tau while the switch has traffic or pauses to lift; an idle
// switch stops its timer (it would only send empty filters to idle links) and the next
// data packet restarts it on the same grid of times.
void Bfc::wake() {
  seen_data_ = true;
  if (timer_.armed()) return;
  const Time now = ctx_.sim.now();
  const int64_t k = (now - tick_origin_).ps / tick_.ps + 1;
  ctx_.sim.arm(timer_, tick_origin_ + Delta{k * tick_.ps}, handler_, kTick);
}

bool Bfc::keeps_ticking() const {
  if (seen_data_ || nonempty_sent_ > 0) return true;
  for (size_t i = 0; i < ports_.size(); ++i) {
    const PortState& ps = ports_[i];
    if (ps.lists_pending > 0 || !ps.paused.empty() || !ps.held_after_resume.empty()) return true;
    if (sw_.port(PortId(static_cast<uint16_t>(i))).data_queue_bytes() > 0) return true;
  }
  return false;
}

// Every tau: each to-be-resumed list gives up its oldest flows (§3.5), then each link
// whose interval is up gets the filter of the flows paused on it (§3.6).
void Bfc::tick() {
  const Time now = ctx_.sim.now();
  for (size_t port = 0; port < ports_.size(); ++port) {
    PortState& ps = ports_[port];
    end_held_queues(ps, port, now);
    if (ps.lists_pending == 0) continue;
    for (Ring<uint32_t>& list : ps.to_resume) {
      if (list.empty()) continue;
      const size_t queue = static_cast<size_t>(&list - ps.to_resume.data());
      for (uint32_t k = 0; k < params_.resumes_per_interval && !list.empty();) {
        const uint32_t i = list.pop_front();
        // BufferOpt lists a flow at its pause and lets it go below Th: nothing to re-check,
        // and a flow taken off its list there would never be listed again.
        if (params_.recheck_threshold && !params_.resume_all &&
            !due_now(PortId(static_cast<uint16_t>(port)), queue, i))
          continue;  // left the list, or stays paused: the turn passes to the next
        resume(i);
        count_resume(ps, queue);
        ++k;
      }
      if (list.empty()) --ps.lists_pending;
    }
  }
  for (size_t i = 0; i < ports_.size(); ++i) {
    PortState& ps = ports_[i];
    if (ps.next_filter > now) continue;
    // Not into a link that is down: no peer hears it (the peer ignores its last filter).
    const PortId port(static_cast<uint16_t>(i));
    if (!sw_.port(port).link_down()) send_filter(port);
    ps.next_filter = now + ps.interval;
  }
  const bool again = keeps_ticking();
  seen_data_ = false;
  if (again) ctx_.sim.arm(timer_, now + tick_, handler_, kTick);
}

void Bfc::send_filter(PortId port) {
  const PacketId id = ctx_.alloc_packet();
  Packet& f = ctx_.pkt(id);
  f.type = PacketType::kControl;
  f.control_kind = control_kind_;
  f.ecn_capable = false;
  f.src = sw_.id();
  f.wire_bytes = params_.filter_bytes + params_.filter_header_bytes + ctx_.wire.phy_overhead_bytes;
  const CountingBloomFilter& paused = ports_[port.index()].paused;
  shared_->of(id) = paused.bits();  // into the slot's own buffer
  PortState& ps = ports_[port.index()];
  const bool nonempty = !paused.empty();
  if (nonempty != ps.sent_nonempty) {
    ps.sent_nonempty = nonempty;
    nonempty ? ++nonempty_sent_ : --nonempty_sent_;
  }
  ++filter_frames_;
  filter_bytes_ += f.wire_bytes;
  sw_.send_control(id, port);
}

std::string Bfc::check_drained() const {
  std::string s = backstop_.check_drained();
  if (!s.empty()) return s;
  for (const PortState& ps : ports_)
    for (uint32_t n : ps.queue_vfids)
      if (n) return "bfc: a physical queue still has VFIDs assigned";
  return {};
}

void Bfc::add_stats(std::vector<SchemeStat>& out) const {
  out.push_back({"bfc.filter_frames", static_cast<double>(filter_frames_)});
  out.push_back({"bfc.filter_bytes", static_cast<double>(filter_bytes_)});
  out.push_back({"bfc.pauses", static_cast<double>(pauses_)});
  out.push_back({"bfc.sent_while_paused", static_cast<double>(sent_while_paused_)});
  out.push_back({"bfc.rechecks_kept_paused", static_cast<double>(rechecks_kept_paused_)});
  out.push_back({"bfc.held_queues_expired", static_cast<double>(held_queues_expired_)});
  out.push_back({"bfc.resumes", static_cast<double>(resumes_)});
  // Every pause's length, those still on counted to now; / bfc.pauses is the mean pause.
  const int64_t open_pauses = static_cast<int64_t>(pauses_ - resumes_);
  out.push_back({"bfc.paused_time_us",
                 static_cast<double>(paused_ps_sum_ + open_pauses * ctx_.sim.now().ps) * 1e-6});
  out.push_back({"bfc.resume_bursts", static_cast<double>(resume_bursts_)});
  out.push_back({"bfc.stacked_resume_bursts", static_cast<double>(stacked_bursts_)});
  out.push_back({"bfc.max_physical_queue_bytes_at_burst",
                 static_cast<double>(max_queue_bytes_at_burst_), true});
  out.push_back({"bfc.queue_assignments", static_cast<double>(assignments_)});
  out.push_back({"bfc.queue_collisions", static_cast<double>(queue_collisions_)});
  out.push_back({"bfc.vfid_collisions", static_cast<double>(vfid_collisions_)});
  out.push_back({"bfc.high_priority_packets", static_cast<double>(hp_packets_)});
  out.push_back({"bfc.overflow_queue_packets", static_cast<double>(overflow_packets_)});
  out.push_back({"bfc.tcam_inserts", static_cast<double>(table_.tcam_inserts())});
  out.push_back({"bfc.max_vfids_in_use", static_cast<double>(table_.max_in_use()), true});
  out.push_back({"bfc.max_tcam_in_use", static_cast<double>(table_.max_tcam_in_use()), true});
  out.push_back({"bfc.max_physical_queue_bytes", static_cast<double>(max_queue_bytes_), true});
  out.push_back({"bfc.max_resumes_per_queue_per_interval",
                 static_cast<double>(max_resumes_per_interval_), true});
  uint64_t arrivals = 0;
  for (uint64_t n : depth_kb_) arrivals += n;
  // A KB bin's upper edge.
  out.push_back(
      {"bfc.p99_physical_queue_kb_at_arrival",
       arrivals ? static_cast<double>(histogram_percentile(depth_kb_, arrivals, 99) + 1) : 0.0,
       true});
  // Fig. 11a: how many physical queues a port already used when a flow needed one.
  const auto in_use_pct = [this](uint64_t pct) {
    return assignments_
               ? static_cast<double>(histogram_percentile(in_use_at_assignment_, assignments_, pct))
               : 0.0;
  };
  out.push_back({"bfc.p50_queues_in_use_at_assignment", in_use_pct(50), true});
  out.push_back({"bfc.p99_queues_in_use_at_assignment", in_use_pct(99), true});
  out.push_back({"bfc.assignments_with_all_queues_in_use",
                 static_cast<double>(in_use_at_assignment_.back())});
  // Switch state as hardware would hold it (§3.8, §4.1): a 32-bit entry per hash-table
  // slot (the paper's 256 KB for 16K x 4), a TCAM entry adds the 32-bit VFID key, and a
  // counting filter of 8-bit counters per ingress link.
  const double entries = static_cast<double>(params_.vfids) * params_.bucket_entries;
  out.push_back({"bfc.hash_table_bytes_per_switch", entries * 4, true});
  out.push_back({"bfc.tcam_bytes_per_switch", params_.tcam_entries * 8.0, true});
  out.push_back({"bfc.filter_state_bytes_per_switch",
                 static_cast<double>(ports_.size()) * params_.filter_bytes * 8, true});
}

// ------------------------------------------------------------------------- NIC

BfcNic::BfcNic(Host& host, const BfcParams& params)
    : host_(host),
      params_(params),
      pfc_(host),
      shape_(params.filter_bytes, params.filter_hashes),
      filters_(host.port_count(), std::vector<uint64_t>(shape_.words(), 0)),
      shared_(shared_of(host.context())),
      control_kind_(host.context().state.layout().control_kind("bfc")) {}

bool BfcNic::on_frame(PortId in, const Packet& p) {
  if (p.type == PacketType::kPause) return pfc_.on_frame(in, p);
  if (p.type != PacketType::kControl || p.control_kind != control_kind_) return false;
  std::vector<uint64_t>& snapshot = shared_->of(p.self);
  std::vector<uint64_t>& filter = filters_[in.index()];
  const bool changed = snapshot != filter;
  filter.swap(snapshot);
  if (changed) host_.port(in).kick();  // a flow may have been resumed
  return true;
}

bool BfcNic::flow_paused(uint32_t flow_hash, PortId port) const {
  return shape_.matches(filters_[port.index()], vfid_of(flow_hash, params_.vfids));
}

// ------------------------------------------------------------------------- config

std::shared_ptr<const SchedulerConfig> BfcConfig::switch_scheduler() const {
  return std::make_shared<BfcSchedulerConfig>();
}

std::unique_ptr<FlowControl> BfcConfig::build(Switch& sw) const {
  return std::make_unique<Bfc>(sw, params_);
}

std::unique_ptr<FlowControl> BfcConfig::build(Host& host) const {
  return std::make_unique<BfcNic>(host, params_);
}

}  // namespace rocelab
