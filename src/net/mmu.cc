#include "net/mmu.h"

#include <algorithm>
#include <bit>

namespace rocelab {

int64_t pfc_headroom_bytes(const PfcConfig& pfc, const WireModel& wire, BitsPerSec rate_bps,
                           Delta delay) {
  if (pfc.headroom_bytes > 0) return pfc.headroom_bytes;
  return static_cast<int64_t>(pfc.headroom_delay_factor *
                              static_cast<double>(bytes_in(delay, rate_bps))) +
         int64_t{pfc.headroom_mtus} * wire.mtu_wire_bytes() +
         wire.control_wire_bytes(PacketType::kPause);
}

void Mmu::init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
               const std::vector<BitsPerSec>& rate_per_port) {
  pfc_ = cfg.pfc;
  const size_t ports = headroom_per_port.size();
  counters_.assign(ports * kPriorities, PortPrio{});
  int64_t reserved = 0;
  // The Broadcom-style MMU keeps its headroom and reserves apart with PFC off too (ConWeave
  // ns-3 SwitchMmu::InitSwitch sizes m_buffer_cell_limit_sp the same way either way).
  if (cfg.pfc.enabled || cfg.pfc.headroom_when_pool_full) {
    const int lossless_classes = std::popcount(cfg.pfc.lossless_priorities & 0xffu);
    for (int64_t h : headroom_per_port) reserved += h * lossless_classes;
    reserved += cfg.pfc.pool_reserve_per_port_bytes * static_cast<int64_t>(ports);
  }
  shared_capacity_ = cfg.buffer_bytes - reserved;
  if (cfg.pfc.egress_alpha > 0) {
    egress_.capacity = cfg.buffer_bytes - cfg.pfc.pool_reserve_per_port_bytes * int64_t(ports);
    egress_.alpha = cfg.pfc.egress_alpha;
    egress_.queue_min_bytes = cfg.pfc.egress_queue_min_bytes;
  }
  const BitsPerSec ref = cfg.pfc.alpha_rate_reference_bps;
  for (size_t p = 0; p < ports; ++p) {
    double alpha = cfg.pfc.alpha;
    for (BitsPerSec r = p < rate_per_port.size() ? rate_per_port[p] : 0;
         ref > 0 && r > ref && alpha < 1; r /= 2)
      alpha = std::min(1.0, alpha * 2);
    for (size_t prio = 0; prio < kPriorities; ++prio) {
      PortPrio& c = counters_[p * kPriorities + prio];
      c.headroom_limit = headroom_per_port[p];
      c.alpha = alpha;
    }
  }
}

int64_t Mmu::xoff_threshold(PortId in) const {
  return xoff_threshold(counters_[slot(in, 0)]);
}

int64_t Mmu::xoff_threshold(const PortPrio& c) const {
  if (pfc_.mode == PfcThresholdMode::kStatic) return pfc_.static_xoff_bytes;
  const int64_t free_bytes = std::max<int64_t>(0, shared_capacity_ - shared_total_);
  return static_cast<int64_t>(c.alpha * static_cast<double>(free_bytes));
}

bool Mmu::admit(PortId in, Priority prio, int64_t bytes) {
  PortPrio& c = counters_[slot(in, prio)];
  const bool buffered = buffered_as_lossless(prio);
  // The class's own guaranteed bytes first (no PFC count, no shared pool).
  const bool pool_full_mode = pfc_.headroom_when_pool_full;
  if (buffered && c.guaranteed + bytes <= pfc_.guaranteed_bytes) {
    c.guaranteed += bytes;
    if (pool_full_mode) shared_total_ += bytes;
    return true;
  }
  const bool under_threshold =
      (pool_full_mode && buffered) || c.shared + bytes <= xoff_threshold(c);
  if (under_threshold && shared_total_ + bytes <= shared_capacity_) {
    c.shared += bytes;
    shared_total_ += bytes;
    return true;
  }
  if (buffered && c.headroom + bytes <= c.headroom_limit) {
    c.headroom += bytes;
    headroom_total_used_ += bytes;
    return true;
  }
  return false;
}

void Mmu::release(PortId in, Priority prio, int64_t bytes) {
  // Headroom drains first, so the ingress leaves the paused state as early as it may; the
  // guaranteed bytes last, as a counter that counts from zero would.
  PortPrio& c = counters_[slot(in, prio)];
  const int64_t from_headroom = std::min(bytes, c.headroom);
  c.headroom -= from_headroom;
  headroom_total_used_ -= from_headroom;
  const int64_t from_shared = std::min(bytes - from_headroom, c.shared);
  c.shared -= from_shared;
  shared_total_ -= from_shared;
  const int64_t from_guaranteed = bytes - from_headroom - from_shared;
  c.guaranteed -= from_guaranteed;
  if (pfc_.headroom_when_pool_full) shared_total_ -= from_guaranteed;
}

bool Mmu::take_pause(PortId in, Priority prio) {
  if (pause_sent(in, prio) || !over_xoff(in, prio)) return false;
  set_pause_sent(in, prio, true);
  return true;
}

// XOFF once the counter reaches the threshold or spills into headroom.
bool Mmu::over_xoff(PortId in, Priority prio) const {
  const PortPrio& c = counters_[slot(in, prio)];
  return lossless(prio) && (c.headroom > 0 || c.shared >= xoff_threshold(c));
}

void Mmu::set_pause_sent(PortId in, Priority prio, bool sent) {
  counters_[slot(in, prio)].pause_sent = sent;
}

bool Mmu::take_resume(PortId in, Priority prio) {
  PortPrio& c = counters_[slot(in, prio)];
  if (!c.pause_sent || c.headroom > 0) return false;
  if (c.shared > 0 && c.shared + pfc_.resume_offset_bytes > xoff_threshold(c)) return false;
  c.pause_sent = false;
  return true;
}

std::string Mmu::check_drained() const {
  for (size_t i = 0; i < counters_.size(); ++i)
    if (counters_[i].guaranteed != 0)
      return "guaranteed counter " + std::to_string(i) + " not zero";
  if (egress_.used != 0 || std::any_of(counters_.begin(), counters_.end(),
                                       [](const PortPrio& c) { return c.egress_bytes != 0; }))
    return "egress queues not empty: pool " + std::to_string(egress_.used) + " B";
  if (shared_total_ != 0 || headroom_total_used_ != 0)
    return "buffer not empty: shared " + std::to_string(shared_total_) + " B, headroom " +
           std::to_string(headroom_total_used_) + " B";
  for (size_t i = 0; i < counters_.size(); ++i)
    if (counters_[i].shared != 0 || counters_[i].headroom != 0)
      return "ingress counter " + std::to_string(i) + " not zero";
  return {};
}

}  // namespace rocelab
