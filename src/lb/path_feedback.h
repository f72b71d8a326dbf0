// Edge-to-edge path telemetry, the part every in-network scheme shares (CONGA §3.3,
// FLB §3.1, Proteus §IV-C): a destination edge keeps one entry per path from each source
// edge and feeds them back one per packet travelling to that source edge, round robin
// over the entries that changed since they were last sent. This is the round robin; the
// values (CONGA's metric, FLB's one-way delay, Proteus' delay and utilisation) stay with
// each scheme.
#pragma once

#include <cstdint>
#include <vector>

namespace rocelab {

class FeedbackRoundRobin {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  void resize(uint32_t paths) {
    changed_.assign(paths, 0);
    pending_ = 0;
    cursor_ = 0;
  }
  uint32_t paths() const { return static_cast<uint32_t>(changed_.size()); }
  // The entry of `path` has a value not yet fed back.
  void mark_changed(uint32_t path) {
    if (changed_[path]) return;
    changed_[path] = 1;
    ++pending_;
  }
  bool changed(uint32_t path) const { return changed_[path] != 0; }
  uint32_t pending() const { return pending_; }

  // The next changed entry from the cursor, now counted as sent; kNone if none changed.
  uint32_t take_changed() {
    if (pending_ == 0) return kNone;
    return take([](uint32_t) { return true; }, false);
  }
  // The next changed entry for which live(path) holds; with fall_back_to_live, else the
  // next live one (CONGA §3.3 favours changed metrics but keeps feeding the others back).
  template <class Live>
  uint32_t take(Live live, bool fall_back_to_live) {
    const uint32_t n = paths();
    for (int pass = 0; pass < (fall_back_to_live ? 2 : 1); ++pass) {
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t path = (cursor_ + i) % n;
        if ((pass == 0 && !changed_[path]) || !live(path)) continue;
        if (changed_[path]) {
          changed_[path] = 0;
          --pending_;
        }
        cursor_ = (path + 1) % n;
        return path;
      }
    }
    return kNone;
  }

 private:
  std::vector<uint8_t> changed_;
  uint32_t pending_ = 0;
  uint32_t cursor_ = 0;
};

}  // namespace rocelab
