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
  cfg_ = cfg;
  headroom_per_port_ = headroom_per_port;
  const size_t n = headroom_per_port.size() * kPriorities;
  guaranteed_used_.assign(n, 0);
  shared_used_.assign(n, 0);
  headroom_used_.assign(n, 0);
  pause_sent_.assign(n, 0);
  int64_t reserved = 0;
  if (cfg.pfc.enabled) {
    const int lossless_classes = std::popcount(cfg.pfc.lossless_priorities & 0xffu);
    for (int64_t h : headroom_per_port) reserved += h * lossless_classes;
    reserved += cfg.pfc.pool_reserve_per_port_bytes * static_cast<int64_t>(n / kPriorities);
  }
  shared_capacity_ = cfg.buffer_bytes - reserved;
  alpha_per_port_.assign(headroom_per_port.size(), cfg.pfc.alpha);
  const BitsPerSec ref = cfg.pfc.alpha_rate_reference_bps;
  for (size_t p = 0; ref > 0 && p < rate_per_port.size(); ++p)
    for (BitsPerSec r = rate_per_port[p]; r > ref && alpha_per_port_[p] < 1; r /= 2)
      alpha_per_port_[p] = std::min(1.0, alpha_per_port_[p] * 2);
}

int64_t Mmu::xoff_threshold(PortId in) const {
  if (cfg_.pfc.mode == PfcThresholdMode::kStatic) return cfg_.pfc.static_xoff_bytes;
  const int64_t free_bytes = std::max<int64_t>(0, shared_capacity_ - shared_total_);
  return static_cast<int64_t>(alpha_per_port_[in.index()] * static_cast<double>(free_bytes));
}

bool Mmu::admit(PortId in, Priority prio, int64_t bytes) {
  const size_t i = slot(in, prio);
  // The class's own guaranteed bytes first (no PFC count, no shared pool).
  const bool pool_full_mode = cfg_.pfc.headroom_when_pool_full;
  if (lossless(prio) && guaranteed_used_[i] + bytes <= cfg_.pfc.guaranteed_bytes) {
    guaranteed_used_[i] += bytes;
    if (pool_full_mode) shared_total_ += bytes;
    return true;
  }
  const bool under_threshold =
      (pool_full_mode && lossless(prio)) || shared_used_[i] + bytes <= xoff_threshold(in);
  if (under_threshold && shared_total_ + bytes <= shared_capacity_) {
    shared_used_[i] += bytes;
    shared_total_ += bytes;
    return true;
  }
  if (lossless(prio) && headroom_used_[i] + bytes <= headroom_per_port_[in.index()]) {
    headroom_used_[i] += bytes;
    headroom_total_used_ += bytes;
    return true;
  }
  return false;
}

void Mmu::release(PortId in, Priority prio, int64_t bytes) {
  // Headroom drains first, so the ingress leaves the paused state as early as it may; the
  // guaranteed bytes last, as a counter that counts from zero would.
  const size_t i = slot(in, prio);
  const int64_t from_headroom = std::min(bytes, headroom_used_[i]);
  headroom_used_[i] -= from_headroom;
  headroom_total_used_ -= from_headroom;
  const int64_t from_shared = std::min(bytes - from_headroom, shared_used_[i]);
  shared_used_[i] -= from_shared;
  shared_total_ -= from_shared;
  const int64_t from_guaranteed = bytes - from_headroom - from_shared;
  guaranteed_used_[i] -= from_guaranteed;
  if (cfg_.pfc.headroom_when_pool_full) shared_total_ -= from_guaranteed;
}

bool Mmu::take_pause(PortId in, Priority prio) {
  const size_t i = slot(in, prio);
  if (!lossless(prio) || pause_sent_[i]) return false;
  // XOFF once the counter reaches the threshold or spills into headroom.
  if (headroom_used_[i] == 0 && shared_used_[i] < xoff_threshold(in)) return false;
  pause_sent_[i] = 1;
  return true;
}

bool Mmu::take_resume(PortId in, Priority prio) {
  const size_t i = slot(in, prio);
  if (!pause_sent_[i] || headroom_used_[i] > 0) return false;
  if (shared_used_[i] > 0 && shared_used_[i] + cfg_.pfc.resume_offset_bytes > xoff_threshold(in))
    return false;
  pause_sent_[i] = 0;
  return true;
}

std::string Mmu::check_drained() const {
  for (size_t i = 0; i < guaranteed_used_.size(); ++i)
    if (guaranteed_used_[i] != 0) return "guaranteed counter " + std::to_string(i) + " not zero";
  if (shared_total_ != 0 || headroom_total_used_ != 0)
    return "buffer not empty: shared " + std::to_string(shared_total_) + " B, headroom " +
           std::to_string(headroom_total_used_) + " B";
  for (size_t i = 0; i < shared_used_.size(); ++i)
    if (shared_used_[i] != 0 || headroom_used_[i] != 0)
      return "ingress counter " + std::to_string(i) + " not zero";
  return {};
}

}  // namespace rocelab
