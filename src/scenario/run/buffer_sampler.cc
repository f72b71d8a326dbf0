#include "scenario/run/buffer_sampler.h"

#include <algorithm>
#include <cmath>

namespace rocelab {

BufferSampler::BufferSampler(Experiment& exp, Delta interval)
    : exp_(exp), interval_(interval), handler_(exp.sim().add_handler(this, kGlobalLp)) {
  exp.sim().schedule(Time::zero() + interval_, handler_, 0);
}

void BufferSampler::on_event(uint32_t, uint64_t) {
  if (stopped_) return;
  Network& net = exp_.network();
  for (NodeId s : net.switches()) {
    if (!net.owns(s)) continue;  // its rank samples it
    const Node& node = net.node(s);
    int64_t bytes = 0;
    for (size_t p = 0; p < node.port_count(); ++p)
      bytes += node.port(PortId(static_cast<uint16_t>(p))).data_queue_bytes();
    samples_bytes_.push_back(bytes);
  }
  exp_.sim().schedule_in(interval_, handler_, 0);
}

void BufferSampler::gather_over_ranks(RankGroup& ranks) {
  samples_bytes_ = gather_values(ranks, samples_bytes_);
}

nlohmann::json BufferSampler::summary() const {
  std::vector<int64_t> v = samples_bytes_;
  std::sort(v.begin(), v.end());
  auto kb_at = [&](double pct) {
    if (v.empty()) return 0.0;
    const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(pct / 100 * v.size())));
    return static_cast<double>(v[rank - 1]) / 1e3;
  };
  double sum = 0;
  for (int64_t b : v) sum += static_cast<double>(b);
  nlohmann::json j;
  j["interval_ns"] = interval_.ps / 1000;
  j["samples"] = v.size();
  j["mean_kb"] = v.empty() ? 0.0 : sum / static_cast<double>(v.size()) / 1e3;
  j["p50_kb"] = kb_at(50);
  j["p90_kb"] = kb_at(90);
  j["p99_kb"] = kb_at(99);
  j["max_kb"] = kb_at(100);
  nlohmann::json cdf = nlohmann::json::array();
  for (int pct = 0; pct <= 100; pct += 5) cdf.push_back(kb_at(pct));
  j["cdf_kb"] = cdf;
  return j;
}

}  // namespace rocelab
