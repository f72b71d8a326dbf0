#include "transport/rdma_transport.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "net/source_route.h"
#include "sim/random.h"

namespace rocelab {

RdmaTransport::RdmaTransport(Network& net, const TransportConfig& cfg,
                             std::unique_ptr<CongestionControl> cc)
    : net_(net),
      ctx_(net.context()),
      cfg_(cfg),
      cc_(std::move(cc)),
      handler_(net.sim().add_handler(this)),
      hosts_(net.node_count()),
      starts_(
          net.sim(), [this](FlowId f) { start_flow(f); },
          [this](FlowId f) { return LpId{records_[f.index()].src.index()}; }) {
  TransportConfig with_path = cfg_;
  ensure_path_params(with_path);  // a config made in code may name the policy alone
  path_ = with_path.path_params->build();
  const auto* recovery = loss_recovery_registry().find(cfg_.recovery);
  if (!recovery) throw std::invalid_argument("unknown loss recovery '" + cfg_.recovery + "'");
  recovery_ = recovery->factory();
  recovery_holds_packets_ = recovery_->holds_packets();
  recovery_acks_every_packet_ = recovery_->acks_every_packet();
  recovery_naks_while_holding_ = recovery_->naks_while_holding();
  recovery_skips_held_ = recovery_->skips_held();
  recovery_sets_rto_ = recovery_->sets_rto();
  for (NodeId h : net_.hosts()) {
    const uint32_t ports = ctx_.routing.port_count(h.index());
    if (ports > 1) hosts_[h.index()].other_ports.resize(ports - 1);
    const FlowControl* fc = net_.host(h).flow_control();
    if (fc && fc->gates_flows()) hosts_[h.index()].gate = fc;
    if (cfg_.ack_pause != AckPause::kWait) continue;  // kAuto without a preset: send
    Host& host = net_.host(h);
    for (size_t p = 0; p < host.port_count(); ++p) {
      EgressPort& nic = host.port(PortId(static_cast<uint16_t>(p)));
      nic.set_control_waits_for(nic.queue_of_priority(cfg_.data_priority));
    }
  }
  net_.set_host_agent(this);
  cc_->attach(*this);
  path_->attach(*this);
  recovery_->attach(*this);
  // Last, so that the schemes' own fields take the packet's inline bytes first (the
  // first-of-flow mark is already there when BFC declared it).
  sack_seq_ = packet_layout().declare<uint64_t>(kSackSeqField);
  first_of_flow_ = packet_layout().declare<uint8_t>(kFirstOfFlowField);
}

RdmaTransport::~RdmaTransport() {
  net_.set_host_agent(nullptr);
}

void TransportCounters::add(const TransportCounters& o) {
  data_packets_sent += o.data_packets_sent;
  payload_bytes_sent += o.payload_bytes_sent;
  retransmitted_bytes += o.retransmitted_bytes;
  payload_bytes_delivered += o.payload_bytes_delivered;
  acks_sent += o.acks_sent;
  naks_sent += o.naks_sent;
  cnps_sent += o.cnps_sent;
  timeouts += o.timeouts;
  out_of_order_packets += o.out_of_order_packets;
  network_reordered_packets += o.network_reordered_packets;
  flows_finished += o.flows_finished;
  bitmap_drops += o.bitmap_drops;
  ooo_window_drops += o.ooo_window_drops;
}

void RdmaTransport::set_lanes(uint32_t partitions) {
  counter_lanes_.set_lanes(partitions, TransportCounters{});
  ood_lanes_.set_lanes(partitions, std::vector<uint64_t>(kOodBuckets, 0));
  path_->set_lanes(partitions);
}

void RdmaTransport::fold_lanes() {
  counter_lanes_.fold(
      [](TransportCounters& into, const TransportCounters& from) { into.add(from); },
      TransportCounters{});
  ood_lanes_.fold(
      [](std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
        for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
      },
      std::vector<uint64_t>(kOodBuckets, 0));
  path_->fold_lanes();
}

FlowId RdmaTransport::add_flow(NodeId src, NodeId dst, uint64_t size_bytes, Time start,
                               uint16_t tag, std::optional<uint16_t> sport,
                               std::optional<uint16_t> dport, std::optional<uint32_t> path,
                               const FlowWait& wait, std::optional<FlowId> qp) {
  if (start < sim().now())
    throw std::invalid_argument("add_flow: start " + std::to_string(start.ps) +
                                " ps is before now (" + std::to_string(sim().now().ps) + " ps)");
  const FlowId f(static_cast<uint32_t>(records_.size()));
  // A message of no bytes on a shared QP sends nothing: it stays a flow of its own (done
  // at its start), and the QP's next message queues behind it.
  // `qp` names the QP by its first flow; from here on it is the QP's own number.
  std::optional<FlowId> on_qp;
  if (qp) {
    check_qp_message(f, src, dst, *qp, sport, dport, path, wait);
    if (size_bytes > 0) on_qp = records_[qp->index()].qp;
  }
  const FlowId q = on_qp.value_or(FlowId(static_cast<uint32_t>(flows_.size())));
  Sender s;
  s.src = src;
  s.dst = dst;
  s.size = size_bytes;
  // Source port from the flow id, as the ns-3 simulators give each QP its own port. A
  // message of a shared QP has its QP's, and its NIC port.
  if (on_qp) {
    s.sport = flows_[q.index()].sport;
    s.dport = flows_[q.index()].dport;
  } else {
    s.sport = sport.value_or(static_cast<uint16_t>(10000 + f.index() % 50000));
    s.dport = dport.value_or(4791);
  }
  s.flow_hash = roce_flow_hash(src, dst, s.sport);
  s.nic_port = on_qp ? flows_[q.index()].nic_port : choose_port(src, dst, s.flow_hash);
  if (path || !pinned_paths_.empty()) {
    if (path) {
      const Routing& r = ctx_.routing;
      const uint32_t src_edge = r.edge_of_host(src.index(), s.nic_port),
                     dst_edge = r.edge_of_host(dst.index(), s.nic_port);
      const std::string which = "add_flow: path " + std::to_string(*path) + " from host " +
                                std::to_string(src.index()) + " to host " +
                                std::to_string(dst.index());
      if (src_edge == dst_edge)
        throw std::invalid_argument(which + ": they share an edge switch, no path to pin");
      const uint64_t paths = r.path_count(src_edge, dst_edge);
      if (*path >= paths || *path == kNotPinned)
        throw std::invalid_argument(which + ": their edge switches have " + std::to_string(paths) +
                                    " paths between them");
    }
    pinned_paths_.resize(q.index() + 1, kNotPinned);
    if (path) pinned_paths_[q.index()] = *path;
  }
  s.line_rate_bps = net_.host_rate_bps(src, s.nic_port);
  s.rate_bps = s.line_rate_bps;
  // Sender, receiver, loss recovery and congestion control state are the QP's: a later
  // message keeps none, so a collective of millions of messages on thousands of QPs costs
  // per message its record, its place in the stream and its dependencies.
  if (!on_qp) {
    // Base RTT: one MTU data frame there and one ACK back on the default path, with
    // store-and-forward serialization at every hop, minus the NIC's own serialization of
    // the data frame (counted in the wire bytes / line rate term of the ideal FCT).
    const WireModel& w = ctx_.wire;
    s.base_rtt = net_.one_way_delay(src, dst, w.mtu_wire_bytes(), s.nic_port) -
                 w.serialize(w.mtu_wire_bytes(), s.line_rate_bps) +
                 net_.one_way_delay(dst, src, w.control_wire_bytes(PacketType::kAck), s.nic_port);
    flows_.push_back(s);
    ideal_memo_.emplace_back();
    receivers_.emplace_back();
    qp_first_flow_.push_back(f);
    if (!streams_.empty()) qp_stream_.push_back(kNoStream);
    recovery_->add_flow(q);
    cc_->reserve_flows(flows_.size());  // sized before a partitioned run, not during it
  }

  FlowRecord r;
  r.id = f;
  r.qp = q;
  r.src = src;
  r.dst = dst;
  r.size_bytes = size_bytes;
  r.start = start;
  r.tag = tag;
  r.sport = s.sport;
  r.dport = s.dport;
  if (size_bytes > 0) {
    // A QP's messages are mostly of one size: its last ideal serves again.
    IdealMemo& memo = ideal_memo_[q.index()];
    if (memo.size_bytes != size_bytes || memo.port != s.nic_port)
      memo = IdealMemo{size_bytes, ideal_fct(src, dst, size_bytes, s.nic_port), s.nic_port};
    r.ideal_fct = memo.ideal;
  }
  records_.push_back(r);
  if (on_qp) {
    add_to_stream(q, f, size_bytes);
  } else if (!stream_of_.empty()) {
    stream_of_.emplace_back();
  }

  if (wait.empty()) {
    starts_.add(f, start);
  } else {
    add_wait(f, wait, start);
  }
  return f;
}

Delta RdmaTransport::ideal_fct(NodeId src, NodeId dst, uint64_t size_bytes, uint32_t k) const {
  const WireModel& w = ctx_.wire;
  // Ideal FCT: the FCT of the flow alone on its idle default route. Its frames leave the NIC
  // back to back, the last one reaches the receiver (it serializes at its own size at each
  // hop, after waiting behind the full frame before it where that one takes longer) and
  // its ACK comes back. Not base_rtt + bytes / rate: that counts an MTU frame on every hop
  // and a bottleneck after the NIC twice. A flow of 0 bytes is done at its start.
  const uint64_t mtu = w.mtu_payload_bytes;
  const uint64_t frames = (size_bytes + mtu - 1) / mtu;
  const uint32_t last_wire =
      w.data_wire_bytes(static_cast<uint32_t>(size_bytes - (frames - 1) * mtu));
  const uint32_t ack_wire = w.control_wire_bytes(PacketType::kAck);
  Delta ack_sent = net_.message_delay(src, dst, frames, w.mtu_wire_bytes(), last_wire, k);
  // The receiver's previous ACK (for frame `prev`) may still hold the slowest link of the
  // way back when the last ACK gets there, when the last frame is short. ACKs before it
  // are further ahead, unless a link back is ~12x slower (1082 / 86 B) than the way there.
  const uint64_t prev = (frames - 1) / cfg_.ack_interval_packets * cfg_.ack_interval_packets;
  if (prev > 0) {
    ack_sent = std::max(
        ack_sent, net_.message_delay(src, dst, prev, w.mtu_wire_bytes(), w.mtu_wire_bytes(), k) +
                      net_.slowest_serialization(dst, src, ack_wire, k));
  }
  return ack_sent + net_.one_way_delay(dst, src, ack_wire, k);
}

void RdmaTransport::check_qp_message(FlowId f, NodeId src, NodeId dst, FlowId qp,
                                     std::optional<uint16_t> sport, std::optional<uint16_t> dport,
                                     std::optional<uint32_t> path, const FlowWait& wait) const {
  // Built only for an error: millions of messages pass here.
  const auto which = [&] {
    return "add_flow: flow " + std::to_string(f.index()) + " on QP " + std::to_string(qp.index());
  };
  if (qp.index() >= records_.size() || qp_first_flow_[records_[qp.index()].qp.index()] != qp)
    throw std::invalid_argument(which() + ": a QP is a flow added before it with no QP of its own");
  const FlowId q = records_[qp.index()].qp;
  if (records_[qp.index()].src != src || records_[qp.index()].dst != dst)
    throw std::invalid_argument(which() + ": a QP joins one pair of hosts, and its first message " +
                                "goes from host " +
                                std::to_string(records_[qp.index()].src.index()) + " to host " +
                                std::to_string(records_[qp.index()].dst.index()));
  if (records_[qp.index()].size_bytes == 0)
    throw std::invalid_argument(which() + ": the QP's first message has no bytes");
  // Its packets are the QP's: its own ports or path would be silently another's.
  const Sender& lead = flows_[q.index()];
  if ((sport && *sport != lead.sport) || (dport && *dport != lead.dport))
    throw std::invalid_argument(which() + ": its ports are the QP's (" +
                                std::to_string(lead.sport) + ", " + std::to_string(lead.dport) +
                                ")");
  if (path != pinned_path(q))
    throw std::invalid_argument(which() + ": its path is the QP's (" +
                                (pinned_path(q) ? std::to_string(*pinned_path(q)) : "none") + ")");
  // Its bytes join the stream before the QP starts (a stream's list is fixed by then).
  if (lead.started)
    throw std::invalid_argument(which() + ": the QP has started; its messages are added before");
  // A QP posts in order: the message waits for the QP's last one (or a flow after it) to
  // have sent its last byte.
  const QpStream* stream = stream_of_qp(q);
  const FlowId last = stream ? stream->messages.back().flow : qp;
  if (!wait.behind.valid() || wait.behind.index() < last.index())
    throw std::invalid_argument(which() + " must be queued behind the QP's last message (flow " +
                                std::to_string(last.index()) + ")");
}

void RdmaTransport::add_to_stream(FlowId qp, FlowId m, uint64_t size_bytes) {
  stream_of_.resize(records_.size());
  qp_stream_.resize(flows_.size(), kNoStream);
  const FlowId first = qp_first_flow_[qp.index()];
  StreamRef& lead = stream_of_[first.index()];
  if (lead.stream == kNoStream) {  // the QP's second message: its stream starts
    lead = StreamRef{static_cast<uint32_t>(streams_.size()), 0};
    qp_stream_[qp.index()] = lead.stream;
    streams_.emplace_back();
    streams_.back().messages.push_back(QpMessage{first, 0, records_[first.index()].size_bytes});
    streams_.back().ready.push_back(0);
  }
  QpStream& q = streams_[lead.stream];
  const uint64_t offset = QpStream::next_offset(q.messages.back().end, ctx_.wire.mtu_payload_bytes);
  q.messages.push_back(QpMessage{m, offset, offset + size_bytes});
  q.ready.push_back(0);
  stream_of_[m.index()] = StreamRef{lead.stream, static_cast<uint32_t>(q.messages.size() - 1)};
}

uint64_t RdmaTransport::delivered_bytes(FlowId f) const {
  if (stream_of(f) == nullptr) return receivers_[records_[f.index()].qp.index()].rcv_nxt;
  const QpMessage& m = stream_entry(f);
  const uint64_t rcv_nxt = receivers_[records_[f.index()].qp.index()].rcv_nxt;
  return std::clamp(rcv_nxt, m.offset, m.end) - m.offset;
}

void RdmaTransport::add_wait(FlowId f, const FlowWait& wait, Time start) {
  std::vector<FlowId> all(wait.after.begin(), wait.after.end());
  if (wait.behind.valid()) all.push_back(wait.behind);
  for (FlowId d : all)
    if (d.index() >= f.index())
      throw std::invalid_argument("add_flow: flow " + std::to_string(f.index()) +
                                  " waits for flow " + std::to_string(d.index()) +
                                  ", which is not added before it");
  has_waits_ = true;
  const Time at = dag_.add(
      f, wait.after, wait.behind, wait.delay, start, [this](FlowId d, FlowDag::Event event) {
        if (event == FlowDag::kDelivered) return records_[d.index()].delivered;
        if (const QpStream* q = stream_of(d))
          return stream_of_[d.index()].entry < q->sent ? sim().now() : Time::never();
        const Sender& s = flows_[records_[d.index()].qp.index()];
        return s.started && s.high_sent >= s.size ? sim().now() : Time::never();
      });
  if (at != Time::never()) {
    records_[f.index()].start = at;
    starts_.add(f, at);
  }
}

std::vector<std::pair<uint32_t, uint32_t>> RdmaTransport::dependent_host_pairs() const {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  dag_.for_each_edge([&](FlowId d, FlowDag::Event event, FlowId f) {
    const FlowRecord& awaited = records_[d.index()];
    // A delivery happens at the receiver (a flow with nothing to send is delivered as it
    // starts, at its sender); a last byte sent, at the sender.
    const bool at_receiver = event == FlowDag::kDelivered && awaited.size_bytes > 0;
    const uint32_t at = (at_receiver ? awaited.dst : awaited.src).index();
    const uint32_t starts = records_[f.index()].src.index();
    if (at != starts) pairs.emplace_back(std::min(at, starts), std::max(at, starts));
  });
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

void RdmaTransport::on_delivered(FlowId f) {
  records_[f.index()].delivered = sim().now();
  if (has_waits_) release_waiting(f, FlowDag::kDelivered);
}

void RdmaTransport::on_sent_all(FlowId f) {
  release_waiting(f, FlowDag::kSent);
}

void RdmaTransport::release_waiting(FlowId f, FlowDag::Event event) {
  dag_.on_event(f, event, sim().now(), [this](FlowId next, Time at) {
    records_[next.index()].start = at;
    starts_.add(next, at);
  });
}

void RdmaTransport::reserve_flows(size_t n, size_t qps) {
  records_.reserve(n);
  dag_.reserve(n);
  if (!stream_of_.empty()) stream_of_.reserve(n);
  flows_.reserve(qps);
  receivers_.reserve(qps);
  qp_first_flow_.reserve(qps);
  ideal_memo_.reserve(qps);
  cc_->reserve_flows(qps);
  recovery_->reserve_flows(qps);
}

size_t RdmaTransport::active_flows() const {
  size_t n = 0;
  for (const auto& h : hosts_) {
    n += h.nic.active();
    for (const NicScheduler& port : h.other_ports) n += port.active();
  }
  return n;
}

void RdmaTransport::set_rate(FlowId f, BitsPerSec rate_bps, bool keep_next_send) {
  Sender& s = flows_[f.index()];
  const BitsPerSec old = s.rate_bps;
  s.rate_bps = std::clamp<BitsPerSec>(rate_bps, 1, s.line_rate_bps);
  // A faster rate shortens the current pacing gap proportionally.
  if (!keep_next_send && s.rate_bps > old && s.next_send > sim().now()) {
    const Delta left = s.next_send - sim().now();
    s.next_send = sim().now() +
                  Delta{static_cast<int64_t>(static_cast<__int128>(left.ps) * old / s.rate_bps)};
    if (s.started && !s.finished) kick(f);
  }
}

void RdmaTransport::set_window(FlowId f, uint64_t window_bytes) {
  flows_[f.index()].window_bytes = window_bytes;
  if (flows_[f.index()].started) kick(f);
}

void RdmaTransport::set_hold(FlowId f, bool hold) {
  flows_[f.index()].hold = hold;
  if (!hold && flows_[f.index()].started) kick(f);
}

void RdmaTransport::on_event(uint32_t, uint64_t arg) {
  // Retransmission timeout (the only event of the transport's own): go back to the oldest
  // unacknowledged byte.
  const FlowId f(Simulator::timer_key(arg));
  Sender& s = flows_[f.index()];
  if (!sim().timer_fired(s.rto, arg, handler_, kRto) || s.finished) return;
  // Nothing unacknowledged: a flow paced slower than the timeout (a window below one
  // packet) or held has lost nothing. Its next packet arms the timer again.
  if (s.high_sent <= s.snd_una) return;
  ++lane_counters().timeouts;
  recovery_->on_timeout(f);
  count_unsent(s);
  cc_->on_timeout(f);
  path_->on_timeout(f);
  kick(f);  // the resent packet re-arms the timer when it leaves, however paced
}

void RdmaTransport::start_flow(FlowId m) {
  const FlowId f = records_[m.index()].qp;
  if (qp_first_flow_[f.index()] != m) {
    post_message(m);
    return;
  }
  Sender& s = flows_[f.index()];
  s.started = true;
  s.next_send = sim().now();
  if (s.size == 0) {
    if (has_waits_) on_sent_all(m);
    on_delivered(m);
    finish_flow(f);
    return;
  }
  if (!dead_ports_.empty()) [[unlikely]]
    s.nic_port = live_port(s);  // made on a port that has failed since
  hosts_[s.src.index()].sched(s.nic_port).activate(f);
  count_unsent(s);
  if (QpStream* q = stream_of_qp(f)) {
    q->ready[0] = 1;
    q->posted = 1;
  }
  if (cc_->window_cap_bdp() > 0)
    s.window_cap_bytes = std::max<uint64_t>(
        1, static_cast<uint64_t>(cc_->window_cap_bdp() * static_cast<double>(bdp_bytes(f))));
  if (recovery_->caps_inflight_at_window()) {
    const uint64_t packets = ooo_window_packets(f);
    if (packets != UINT64_MAX) {
      const uint64_t cap = packets * ctx_.wire.mtu_payload_bytes;
      s.window_cap_bytes = s.window_cap_bytes ? std::min(s.window_cap_bytes, cap) : cap;
    }
  }
  cc_->on_flow_start(f);
  restart_rto(s, f);
  kick(f);
  if (QpStream* q = stream_of_qp(f)) post_ready(f, *q);
}

// A later message of a shared QP: its bytes join the QP's stream, after the QP's last
// message (which has sent its last byte: add_flow made it wait behind it), and the QP sends
// on. The QP stays in its NIC's list between messages, with its congestion control state.
void RdmaTransport::post_message(FlowId m) {
  const FlowId qp = records_[m.index()].qp;
  QpStream& q = *stream_of(m);
  q.ready[stream_of_[m.index()].entry] = 1;
  post_ready(qp, q);
}

// The QP posts its messages in order: a message that starts before one ahead of it waits
// for it (a trace may queue it behind a flow that is not the QP's last message).
void RdmaTransport::post_ready(FlowId qp, QpStream& q) {
  Sender& s = flows_[qp.index()];
  if (!s.started) return;  // the QP's first message posts the rest
  const uint32_t before = q.posted;
  while (q.posted < q.messages.size() && q.ready[q.posted]) s.size = q.messages[q.posted++].end;
  if (q.posted == before) return;
  count_unsent(s);
  kick(qp);
}

void RdmaTransport::finish_flow(FlowId f) {
  finish_qp(f);
  finish_record(qp_first_flow_[f.index()]);
}

void RdmaTransport::finish_qp(FlowId f) {
  Sender& s = flows_[f.index()];
  s.finished = true;
  count_unsent(s);
  sim().cancel(s.rto);
  hosts_[s.src.index()].sched(s.nic_port).deactivate(f);
  cc_->on_flow_finish(f);
  path_->on_finish(f);
}

void RdmaTransport::finish_record(FlowId f) {
  records_[f.index()].finish = sim().now();
  ++lane_counters().flows_finished;
  if (on_finish_) on_finish_(records_[f.index()]);
}

void RdmaTransport::skip_held(FlowId f, Sender& s) {
  const uint64_t to = std::min(recovery_->skip_held(f, s.snd_nxt), s.size);
  if (to == s.snd_nxt) return;
  s.snd_nxt = to;
  count_unsent(s);
}

bool RdmaTransport::next_seq(FlowId f, Sender& s, uint64_t* seq) {
  if (s.in_recovery && recovery_->next_hole(f, seq)) return true;
  if (recovery_skips_held_ && s.snd_nxt < s.size) [[unlikely]]
    skip_held(f, s);
  if (s.snd_nxt >= s.size) return false;
  const uint64_t in_flight = s.snd_nxt - s.snd_una;
  if (s.window_bytes && in_flight >= s.window_bytes) return false;
  if (s.window_cap_bytes && in_flight >= s.window_cap_bytes) return false;
  *seq = s.snd_nxt;
  return true;
}

PacketId RdmaTransport::pull_data(NodeId host, const EgressPort& port, Time* next_ready) {
  HostQueues& hq = hosts_[host.index()];
  const Time now = sim().now();
  Time earliest = Time::never();
  // The RESUME kicks us. A NIC with fewer queues carries the class in its last queue.
  if (port.paused(port.queue_of_priority(cfg_.data_priority))) return PacketId::invalid();
  // The next flow, round robin, with a sequence it may send now (window, holes, holds,
  // the gate) and its pacing gap over.
  uint64_t seq = 0;
  const FlowId f = hq.sched(port.index().index())
                       .pick(
                           [&](FlowId g, Time* ready_at) {
                             Sender& s = flows_[g.index()];
                             if (s.hold || !next_seq(g, s, &seq)) return false;
                             if (hq.gate && hq.gate->flow_paused(s.flow_hash, port.index()))
                               return false;
                             if (s.next_send > now) {
                               *ready_at = s.next_send;
                               return false;
                             }
                             return true;
                           },
                           &earliest);
  if (!f.valid()) {
    *next_ready = earliest;
    return PacketId::invalid();
  }
  return send_data(f, seq, port);
}

// The sender: flow f's packet at `seq` leaves the NIC through `port` now.
PacketId RdmaTransport::send_data(FlowId f, uint64_t seq, const EgressPort& port) {
  Sender& s = flows_[f.index()];
  const Time now = sim().now();
  const PacketId id = ctx_.alloc_packet();
  Packet& p = ctx_.pkt(id);
  // A packet carries bytes of one message: of a shared QP's, the one holding seq.
  QpStream* stream = stream_of_qp(f);
  const uint64_t end = stream ? stream->holding(seq).end : s.size;
  const uint32_t payload =
      static_cast<uint32_t>(std::min<uint64_t>(ctx_.wire.mtu_payload_bytes, end - seq));
  p.type = PacketType::kData;
  p.priority = cfg_.data_priority;
  p.payload_bytes = payload;
  p.wire_bytes = ctx_.wire.data_wire_bytes(payload);
  p.src = s.src;
  p.dst = s.dst;
  p.flow = f;
  p.seq = seq;
  p.flow_hash = s.flow_hash;
  p.sport = s.sport;
  p.dport = s.dport;
  p.nic_port = s.nic_port;
  p.sent_time = now;
  if (seq == 0 && s.high_sent == 0) field(first_of_flow_, p) = 1;
  path_->on_send(f, p);
  // A pinned flow goes its own way whatever the policy chose (a policy that keeps
  // per-path state, Hermes, reads the pin itself).
  if (f.index() < pinned_paths_.size() && pinned_paths_[f.index()] != kNotPinned) [[unlikely]]
    pin_path_from_host(p, pinned_paths_[f.index()]);

  ++lane_counters().data_packets_sent;
  lane_counters().payload_bytes_sent += payload;
  if (seq < s.high_sent) lane_counters().retransmitted_bytes += payload;
  if (seq == s.snd_nxt) {
    s.snd_nxt += payload;
  } else {
    recovery_->on_hole_sent(f, seq + payload);
  }
  // The timer runs while something is in flight: a packet sent while it is not armed
  // (the first after an idle spell or after a timeout) starts it; under
  // rto_restarts_on_send every packet restarts it.
  if (cfg_.rto_restarts_on_send || !s.rto.armed()) restart_rto(s, f);
  // The QP's next message may go once this one's last byte is on its way (the first time).
  if (stream) [[unlikely]] {
    after_stream_send(s, *stream, seq, payload);
  } else if (has_waits_ && seq + payload >= s.size && s.high_sent < s.size) [[unlikely]] {
    on_sent_all(qp_first_flow_[f.index()]);
  }
  s.high_sent = std::max(s.high_sent, seq + payload);
  count_unsent(s);
  s.next_send =
      now + (s.rate_bps == port.rate_bps() ? port.tx_time(p.wire_bytes)
                                           : ctx_.wire.serialize(p.wire_bytes, s.rate_bps));
  cc_->on_packet_sent(f, p);
  return id;
}

void RdmaTransport::on_host_receive(NodeId, PacketId pkt) {
  const Packet& p = ctx_.pkt(pkt);
  if (p.type != PacketType::kData && p.flow.valid() && p.flow.index() < flows_.size())
    path_->on_feedback(p.flow, p);
  switch (p.type) {
    case PacketType::kData:
      on_data(pkt);
      break;
    case PacketType::kAck:
      on_ack(pkt);
      break;
    case PacketType::kNak:
      on_nak(pkt);
      break;
    case PacketType::kCnp:
      if (!flows_[p.flow.index()].finished) cc_->on_cnp(p.flow, p);
      break;
    default:
      if (p.flow.valid() && p.flow.index() < flows_.size()) cc_->on_control(p.flow, p);
      break;
  }
  ctx_.free_packet(pkt);
}

PacketId RdmaTransport::send_control(const Packet& data, PacketType type, uint64_t seq,
                                     uint64_t sack_seq) {
  const PacketId id = ctx_.alloc_packet();
  Packet& c = ctx_.pkt(id);
  c.type = type;
  c.priority = cfg_.data_priority;
  c.ecn_capable = false;
  c.wire_bytes = ctx_.wire.control_wire_bytes(type);
  c.src = data.dst;
  c.dst = data.src;
  c.flow = data.flow;
  c.seq = seq;
  if (sack_seq != 0) field(sack_seq_, c) = sack_seq;
  c.flow_hash = static_cast<uint32_t>(mix64(data.flow_hash ^ 0xac4c));  // reverse 5-tuple
  c.sport = data.sport;
  c.dport = data.dport;
  c.nic_port = data.nic_port;    // back by the port the data came in on
  c.sent_time = data.sent_time;  // echoed for RTT samples
  // ECN-Echo: an ACK/NAK says whether the data it answers was marked (host path policies
  // read it; the ACK itself is not ECN-capable, so nothing marks it on the way).
  c.ecn_ce = data.ecn_ce && type != PacketType::kCnp;
  ctx_.state.echo(data, c);
  if (type != PacketType::kCnp && cc_->flag_cnp_on_reply(data.flow, data, type)) {
    c.cnp_flag = true;
    ++lane_counters().cnps_sent;
  }
  net_.host(data.dst).nic(data.nic_port).enqueue(id);
  return id;
}

void RdmaTransport::send_ack(const Packet& data, uint64_t seq, uint64_t sack_seq) {
  ++lane_counters().acks_sent;
  send_control(data, PacketType::kAck, seq, sack_seq);
}

void RdmaTransport::send_nak(const Packet& data, uint64_t seq, uint64_t sack_seq) {
  ++lane_counters().naks_sent;
  send_control(data, PacketType::kNak, seq, sack_seq);
}

PacketId RdmaTransport::send_cnp(const Packet& data) {
  ++lane_counters().cnps_sent;
  return send_control(data, PacketType::kCnp, 0);
}

void RdmaTransport::on_data(PacketId pkt) {
  const Packet& p = ctx_.pkt(pkt);
  ReceiverState& r = receivers_[p.flow.index()];
  cc_->on_data_received(p.flow, p);
  if (p.sent_time < r.latest_sent) ++lane_counters().network_reordered_packets;
  r.latest_sent = std::max(r.latest_sent, p.sent_time);
  if (p.seq == r.rcv_nxt) {
    deliver_in_order(r, p);
  } else if (p.seq > r.rcv_nxt) {
    on_out_of_order(r, p);
  } else {
    // Duplicate of delivered data (after a retransmission): re-acknowledge.
    reply_at_rcv_nxt(r, p, 0);
  }
}

// An ACK of rcv_nxt carrying `ack_sack`, or under LossRecovery::naks_while_holding, while
// packets beyond rcv_nxt are still held, a NAK carrying the data's sequence.
void RdmaTransport::reply_at_rcv_nxt(const ReceiverState& r, const Packet& p, uint64_t ack_sack) {
  if (recovery_naks_while_holding_ && r.held.marked() > 0) [[unlikely]]
    send_nak(p, r.rcv_nxt, p.seq);
  else
    send_ack(p, r.rcv_nxt, ack_sack);
}

// Every message ending at or before `upto` has left the NIC: the flows queued behind it
// may start (once per message).
void RdmaTransport::mark_stream_sent(QpStream& q, uint64_t upto) {
  while (q.sent < q.messages.size() && upto >= q.messages[q.sent].end) {
    const FlowId done = q.messages[q.sent].flow;
    ++q.sent;
    if (has_waits_) on_sent_all(done);
  }
}

// Messages the QP's new data finished sending (the first time: kSent for the flows queued
// behind them); new data goes on at the next message's first byte.
void RdmaTransport::after_stream_send(Sender& s, QpStream& q, uint64_t seq, uint32_t payload) {
  const uint64_t sent_to = seq + payload;
  if (sent_to > s.high_sent) mark_stream_sent(q, sent_to);
  // New data goes on at the next packet boundary: inside a message that is where it stands;
  // after a message's short last packet, the next message's first byte (no second search
  // of the stream: send_data found the message already).
  if (s.snd_nxt == sent_to && sent_to < q.messages.back().end)
    s.snd_nxt = QpStream::next_offset(sent_to, ctx_.wire.mtu_payload_bytes);
}

// A shared QP's cumulative ACK: each message it covers is done; the QP is done with its
// last message.
void RdmaTransport::advance_stream_una(FlowId f, Sender& s, QpStream& q) {
  // An ACK beyond a message's end says it has left too (the receiver may hold bytes the
  // sender's new data never sent: a copy that overtook its original).
  mark_stream_sent(q, s.snd_una);
  while (q.acked < q.messages.size() && s.snd_una >= q.messages[q.acked].end)
    finish_record(q.messages[q.acked++].flow);
  if (q.acked == q.messages.size()) {
    finish_qp(f);
    return;
  }
  if (s.high_sent > s.snd_una) {
    restart_rto(s, f);
  } else {
    sim().cancel(s.rto);  // nothing in flight until the next message is posted
  }
}

// A shared QP's receiver: as deliver_in_order, with each message delivered when its last
// byte is, and the expected sequence moved over the gap to the next message's first byte.
void RdmaTransport::deliver_stream(ReceiverState& r, const Packet& p, QpStream& q) {
  const uint64_t mtu = ctx_.wire.mtu_payload_bytes;
  const auto count = static_cast<uint32_t>(q.messages.size());
  r.rcv_nxt += p.payload_bytes;
  uint64_t delivered = p.payload_bytes;
  bool message_done = false;
  const auto over_message_ends = [&] {
    while (q.delivered < count && r.rcv_nxt >= q.messages[q.delivered].end) {
      on_delivered(q.messages[q.delivered].flow);
      message_done = true;
      if (++q.delivered < count) r.rcv_nxt = std::max(r.rcv_nxt, q.messages[q.delivered].offset);
    }
  };
  over_message_ends();
  bool jumped = false;
  const uint64_t stream_end = q.messages.back().end;
  if (r.held.marked() > 0 && r.rcv_nxt < stream_end) {  // deliver the held run
    r.held.advance_to(r.rcv_nxt / mtu);
    const uint64_t run_end = std::min(r.held.advance_over_marked() * mtu, stream_end);
    // Message by message: the gaps between them carry no bytes.
    while (r.rcv_nxt < run_end) {
      const uint64_t upto = std::min(run_end, q.messages[q.delivered].end);
      delivered += upto - r.rcv_nxt;
      r.rcv_nxt = upto;
      jumped = true;
      if (upto < q.messages[q.delivered].end) break;
      over_message_ends();
    }
  }
  lane_counters().payload_bytes_delivered += delivered;
  // A message's last packet asks for its ACK (the AckReq bit), as a flow's does.
  if (++r.unacked_packets >= cfg_.ack_interval_packets || message_done || jumped ||
      recovery_acks_every_packet_) {
    r.unacked_packets = 0;
    send_ack(p, r.rcv_nxt, p.seq);
  }
}

void RdmaTransport::deliver_in_order(ReceiverState& r, const Packet& p) {
  if (QpStream* q = stream_of_qp(p.flow)) [[unlikely]] {
    deliver_stream(r, p, *q);
    return;
  }
  const FlowId message = qp_first_flow_[p.flow.index()];
  const uint64_t size = records_[message.index()].size_bytes;
  r.rcv_nxt += p.payload_bytes;
  lane_counters().payload_bytes_delivered += p.payload_bytes;
  bool jumped = false;
  if (r.held.marked() > 0 && r.rcv_nxt < size) {  // the hole is filled: deliver what was held
    const uint64_t mtu = ctx_.wire.mtu_payload_bytes;
    r.held.advance_to(r.rcv_nxt / mtu);
    // Every packet but the last is a full MTU, so the held run ends at a packet boundary
    // or at the end of the message.
    const uint64_t run_end = std::min(r.held.advance_over_marked() * mtu, size);
    jumped = run_end > r.rcv_nxt;
    lane_counters().payload_bytes_delivered += run_end - r.rcv_nxt;
    r.rcv_nxt = run_end;
  }
  if (++r.unacked_packets >= cfg_.ack_interval_packets || r.rcv_nxt >= size || jumped ||
      recovery_acks_every_packet_) {
    r.unacked_packets = 0;
    reply_at_rcv_nxt(r, p, p.seq);
  }
  if (r.rcv_nxt >= size) on_delivered(message);
}

void RdmaTransport::on_out_of_order(ReceiverState& r, const Packet& p) {
  ++lane_counters().out_of_order_packets;
  const uint64_t mtu = ctx_.wire.mtu_payload_bytes;
  ++ood_lanes_.local()[std::min<uint64_t>((p.seq - r.rcv_nxt) / mtu, kOodBuckets - 1)];
  // In-order delivery moves the held ring's base only while it holds packets; bring it up
  // to rcv_nxt before marking, or the ring would grow to span every packet since the last
  // reordering (the flow's start) instead of just the reorder window. O(1) when empty.
  if (recovery_holds_packets_) r.held.advance_to(r.rcv_nxt / mtu);
  recovery_->on_out_of_order(r, p);
}

// Drop it and ask the sender to go back to rcv_nxt: one NAK per sequence per nak_interval.
uint64_t RdmaTransport::ooo_window_packets(FlowId f) const {
  switch (cfg_.ooo_window) {
    case OooWindow::kUnbounded:
      return UINT64_MAX;
    case OooWindow::kPackets:
      return cfg_.ooo_window_packets;
    case OooWindow::kBdp:
      break;
  }
  const uint64_t mtu = ctx_.wire.mtu_payload_bytes;
  return std::max<uint64_t>(1, (bdp_bytes(f) + mtu - 1) / mtu);
}

void RdmaTransport::nak_go_back(ReceiverState& r, const Packet& p) {
  const Time now = sim().now();
  if (now < r.nak_blocked_until && r.last_nak_seq == r.rcv_nxt) return;
  r.nak_blocked_until = now + cfg_.nak_interval;
  r.last_nak_seq = r.rcv_nxt;
  send_nak(p, r.rcv_nxt);
}

bool RdmaTransport::advance_una(FlowId f, uint64_t ack_seq, const Packet& ack) {
  Sender& s = flows_[f.index()];
  if (s.finished || ack_seq <= s.snd_una) return false;
  AckEvent ev;
  ev.newly_acked_bytes = ack_seq - s.snd_una;
  s.snd_una = ack_seq;
  s.snd_nxt = std::max(s.snd_nxt, s.snd_una);
  ev.snd_una = s.snd_una;
  recovery_->on_una_advanced(f, s.snd_una);
  count_unsent(s);
  ev.rtt = sim().now() - ack.sent_time;
  ev.ack = &ack;
  cc_->on_ack(f, ev);
  if (QpStream* q = stream_of_qp(f)) [[unlikely]] {
    advance_stream_una(f, s, *q);
    return true;
  }
  if (s.snd_una >= s.size) {
    finish_flow(f);
    return true;
  }
  restart_rto(s, f);
  return true;
}

void RdmaTransport::on_ack(PacketId pkt) {
  const Packet& p = ctx_.pkt(pkt);
  const bool advanced = advance_una(p.flow, p.seq, p);
  if (!advanced) restart_rto_on_reply(p.flow);  // an advance restarted it already
  if (recovery_naks_while_holding_ && !flows_[p.flow.index()].finished) [[unlikely]]
    recovery_->on_ack(p.flow, p);
  // The ns-3 forks' ReceiveAck handles the acknowledgement, then the CNP flag.
  if (p.cnp_flag && !flows_[p.flow.index()].finished) cc_->on_cnp(p.flow, p);
  if (advanced && !flows_[p.flow.index()].finished) kick(p.flow);
}

void RdmaTransport::on_nak(PacketId pkt) {
  const Packet& p = ctx_.pkt(pkt);
  const FlowId f = p.flow;
  const bool advanced = advance_una(f, p.seq, p);
  if (flows_[f.index()].finished) return;
  if (!advanced) restart_rto_on_reply(f);
  recovery_->on_nak(f, p);
  kick(f);
}

void RdmaTransport::set_in_recovery(FlowId f, bool in_recovery) {
  Sender& s = flows_[f.index()];
  s.in_recovery = in_recovery;
  count_unsent(s);
}

void RdmaTransport::go_back_to(FlowId f, uint64_t seq) {
  Sender& s = flows_[f.index()];
  s.snd_nxt = std::max(seq, s.snd_una);
  count_unsent(s);
}

}  // namespace rocelab
