// BFC's per-switch flow state (BFC §3.3, §3.8): the virtual-flow hash table, one bucket
// of `bucket_entries` per VFID so the VFID is never stored, each entry told apart by its
// (ingress, egress); and the small associative overflow cache ("TCAM") for full buckets.
// An entry lives while its flow has packets queued here, or is paused.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ids.h"

namespace rocelab {

struct VfidEntry {
  uint32_t queued = 0;  // packets queued at the egress
  uint32_t flow = 0;    // last flow seen on it (collision accounting only)
  uint32_t vfid = 0;
  uint16_t in = 0;
  uint16_t out = 0;
  uint16_t queue = 0;  // physical queue while queued > 0
  bool used = false;
  bool paused = false;       // its bits are in the ingress's counting filter
  bool pending = false;      // on its queue's to-be-resumed list
  bool waiting = false;      // paused with no packet queued: resumes once `queue` is below Th
  bool holds_queue = false;  // keep_queue: paused with nothing queued, `queue` still its own
  bool burst_due = false;    // resumed here: its next arrival is the burst the resume lets go
};

class VfidTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  VfidTable(uint32_t vfids, uint32_t bucket_entries, uint32_t tcam_entries);

  // The entry of (vfid, in, out), or kNone.
  uint32_t find(uint32_t vfid, PortId in, PortId out) const;
  // The entry of (vfid, in, out), made when missing; kNone when its bucket and the
  // overflow cache are full.
  uint32_t find_or_add(uint32_t vfid, PortId in, PortId out);
  void release(uint32_t index);

  VfidEntry& operator[](uint32_t index) {
    return index < table_.size() ? table_[index] : tcam_[index - table_.size()];
  }
  uint32_t in_use() const { return in_use_; }
  uint32_t tcam_in_use() const { return tcam_in_use_; }
  uint32_t max_in_use() const { return max_in_use_; }
  uint32_t max_tcam_in_use() const { return max_tcam_in_use_; }
  uint64_t tcam_inserts() const { return tcam_inserts_; }

 private:
  uint32_t take(VfidEntry& e, uint32_t vfid, PortId in, PortId out, uint32_t index);

  uint32_t bucket_entries_;
  std::vector<VfidEntry> table_;
  std::vector<VfidEntry> tcam_;
  uint32_t in_use_ = 0;
  uint32_t tcam_in_use_ = 0;
  uint32_t max_in_use_ = 0;
  uint32_t max_tcam_in_use_ = 0;
  uint64_t tcam_inserts_ = 0;
};

}  // namespace rocelab
