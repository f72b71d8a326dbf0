#include "scenario/run/timeseries.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "scenario/results/results.h"

namespace rocelab {

TimeSeriesRecorder::TimeSeriesRecorder(Experiment& exp, const OutputConfig& cfg,
                                       const std::string& dir, RankGroup* ranks)
    : exp_(exp),
      cfg_(cfg),
      ranks_(ranks),
      writes_(!ranks || ranks->rank() == 0),
      handler_(exp.sim().add_handler(this, kGlobalLp)) {
  if (writes_) std::filesystem::create_directories(dir);
  Network& net = exp.network();
  for (NodeId s : net.switches()) {
    const Node& node = net.node(s);
    const bool edge = net.routing().is_edge(s.index());
    for (size_t p = 0; p < node.port_count(); ++p) {
      const PortId port(static_cast<uint16_t>(p));
      const bool to_switch = node.port(port).peer()->kind() == NodeKind::kSwitch;
      ports_.push_back(PortRef{s, port, edge && to_switch});
    }
  }
  last_port_bytes_.assign(ports_.size(), 0);
  if (cfg.flow_throughput) {
    if (writes_) flows_.open(dir + "/ts_flow_throughput.csv");
    flows_ << "time_ns,flow,goodput_gbps\n";
  }
  if (cfg.link_utilization) {
    if (writes_) links_.open(dir + "/ts_link_utilization.csv");
    links_ << "time_ns,node,port,peer,utilization\n";
  }
  if (cfg.path_throughput) {
    if (writes_) paths_.open(dir + "/ts_path_throughput.csv");
    paths_ << "time_ns,edge,uplink_port,next_hop,throughput_gbps\n";
  }
  if (cfg.queue_length) {
    if (writes_) queues_.open(dir + "/ts_queue_length.csv");
    queues_ << "time_ns,switch,port,queue_bytes\n";
  }
  if (cfg.pfc_events) {
    if (writes_) pfc_.open(dir + "/pfc_events.csv");
    pfc_ << "time_ns,switch,port,paused_peer,priority,event\n";
    exp.network().context().on_pfc = [this](const PfcEvent& e) {
      Simulator& sim = exp_.sim();
      if (!sim.parallel()) {  // made in the serial order
        write_pfc(e);
        return;
      }
      std::vector<PfcRecord>& mine = pfc_records_.local();
      const EventKey key = sim.current_event_key();
      const uint32_t place = !mine.empty() && mine.back().key == key ? mine.back().place + 1 : 0;
      mine.push_back(PfcRecord{key, place, e});
    };
  }
  if (cfg.timeseries_interval > Delta::zero())
    exp.sim().schedule(Time::zero() + cfg.timeseries_interval, handler_, 0);
}

TimeSeriesRecorder::~TimeSeriesRecorder() {
  exp_.network().context().on_pfc = nullptr;
}

void TimeSeriesRecorder::write_pfc(const PfcEvent& e) {
  const Node& n = exp_.network().node(e.node);
  pfc_ << ns_text(e.time.ps) << ',' << n.name() << ',' << e.port.index() << ','
       << n.port(e.port).peer()->name() << ',' << int{e.priority} << ','
       << (e.expired ? "EXPIRED"
           : e.xoff  ? "XOFF"
                     : "XON")
       << '\n';
}

void TimeSeriesRecorder::set_lanes(uint32_t partitions) {
  pfc_records_.set_lanes(partitions, {});
}

void TimeSeriesRecorder::write_pfc_records() {
  pfc_merge_.clear();
  for (uint32_t lane = 0; lane < pfc_records_.lanes(); ++lane) {
    std::vector<PfcRecord>& records = pfc_records_.lane(lane);
    pfc_merge_.insert(pfc_merge_.end(), records.begin(), records.end());
    records.clear();
  }
  if (ranks_) pfc_merge_ = gather_values(*ranks_, pfc_merge_);  // every rank's records
  if (!writes_) {
    pfc_merge_.clear();
    return;
  }
  // Each event runs in one partition, so (key, place) is unique: the serial order.
  std::sort(pfc_merge_.begin(), pfc_merge_.end(), [](const PfcRecord& a, const PfcRecord& b) {
    return a.key != b.key ? a.key < b.key : a.place < b.place;
  });
  for (const PfcRecord& r : pfc_merge_) write_pfc(r.event);
}

void TimeSeriesRecorder::on_event(uint32_t, uint64_t) {
  if (stopped_) return;
  // A global event: every partition has run the events before it, and none after.
  write_pfc_records();
  sample();
  exp_.sim().schedule_in(cfg_.timeseries_interval, handler_, 0);
}

void TimeSeriesRecorder::sample() {
  const Time now = exp_.sim().now();
  const std::string t = ns_text(now.ps);
  const double secs = cfg_.timeseries_interval.seconds();
  Network& net = exp_.network();
  // Each file's rows by the port or flow they are of: a rank has those of its own nodes
  // (a flow's at its receiver), and rank 0 writes every rank's in that order.
  std::vector<Row> rows;
  auto row = [&](File file, size_t index) -> std::string& {
    rows.push_back(Row{file, static_cast<uint32_t>(index), t + ','});
    return rows.back().text;
  };
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (!net.owns(ports_[i].node)) continue;
    const Node& node = net.node(ports_[i].node);
    const EgressPort& port = node.port(ports_[i].port);
    const uint64_t bytes = port.counters().tx_data_bytes;
    const uint64_t delta = bytes - last_port_bytes_[i];
    last_port_bytes_[i] = bytes;
    const double bps = static_cast<double>(delta) * 8 / secs;
    const std::string where = node.name() + ',' + std::to_string(ports_[i].port.index()) + ',';
    if (delta > 0 && cfg_.link_utilization)
      row(kLinks, i) += where + port.peer()->name() + ',' +
                        fmt::format("{:.4f}", bps / static_cast<double>(port.rate_bps())) + '\n';
    if (delta > 0 && ports_[i].edge_uplink && cfg_.path_throughput)
      row(kPaths, i) += where + port.peer()->name() + ',' + fmt::format("{:.3f}", bps / 1e9) + '\n';
    if (cfg_.queue_length && port.data_queue_bytes() > 0)
      row(kQueues, i) += where + std::to_string(port.data_queue_bytes()) + '\n';
  }
  if (cfg_.flow_throughput) {
    RdmaTransport& tr = exp_.transport();
    last_flow_bytes_.resize(tr.flow_count(), 0);
    for (size_t f = 0; f < tr.flow_count(); ++f) {
      const FlowId id(static_cast<uint32_t>(f));
      if (!net.owns(tr.record(id).dst)) continue;
      const uint64_t b = tr.delivered_bytes(id);
      if (b == last_flow_bytes_[f]) continue;
      row(kFlows, f) +=
          std::to_string(f) + ',' +
          fmt::format("{:.3f}", static_cast<double>(b - last_flow_bytes_[f]) * 8 / secs / 1e9) +
          '\n';
      last_flow_bytes_[f] = b;
    }
  }
  if (ranks_) gather_rows(rows);
  if (!writes_) return;
  std::ofstream* files[] = {&links_, &paths_, &queues_, &flows_};
  for (const Row& r : rows) *files[r.file] << r.text;
}

void TimeSeriesRecorder::gather_rows(std::vector<Row>& rows) const {
  Bytes mine;
  ByteWriter out(mine);
  for (const Row& r : rows) {
    out.put(r.file);
    out.put(r.index);
    out.put(static_cast<uint32_t>(r.text.size()));
    out.put_raw(r.text.data(), r.text.size());
  }
  rows.clear();
  for (const Bytes& theirs : ranks_->gather_all(std::move(mine))) {
    ByteReader in(theirs);
    while (!in.done()) {
      Row r;
      r.file = in.get<File>();
      r.index = in.get<uint32_t>();
      r.text.resize(in.get<uint32_t>());
      in.get_raw(r.text.data(), r.text.size());
      rows.push_back(std::move(r));
    }
  }
  // One process's order: by file, then port or flow (each is one rank's).
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.file != b.file ? a.file < b.file : a.index < b.index;
  });
}

void TimeSeriesRecorder::finish() {
  stopped_ = true;
  exp_.network().context().on_pfc = nullptr;
  write_pfc_records();
  for (std::ofstream* f : {&flows_, &links_, &paths_, &queues_, &pfc_})
    if (f->is_open()) f->flush();
}

}  // namespace rocelab
