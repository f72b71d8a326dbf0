#include "fc/bfc_table.h"

#include <algorithm>

namespace rocelab {

VfidTable::VfidTable(uint32_t vfids, uint32_t bucket_entries, uint32_t tcam_entries)
    : bucket_entries_(bucket_entries),
      table_(size_t{vfids} * bucket_entries),
      tcam_(tcam_entries) {}

uint32_t VfidTable::find(uint32_t vfid, PortId in, PortId out) const {
  const size_t base = size_t{vfid} * bucket_entries_;
  for (uint32_t i = 0; i < bucket_entries_; ++i) {
    const VfidEntry& e = table_[base + i];
    if (e.used && e.in == in.index() && e.out == out.index())
      return static_cast<uint32_t>(base + i);
  }
  if (tcam_in_use_ == 0) return kNone;
  for (size_t i = 0; i < tcam_.size(); ++i) {
    const VfidEntry& e = tcam_[i];
    if (e.used && e.vfid == vfid && e.in == in.index() && e.out == out.index())
      return static_cast<uint32_t>(table_.size() + i);
  }
  return kNone;
}

uint32_t VfidTable::find_or_add(uint32_t vfid, PortId in, PortId out) {
  const uint32_t found = find(vfid, in, out);
  if (found != kNone) return found;
  const size_t base = size_t{vfid} * bucket_entries_;
  for (uint32_t i = 0; i < bucket_entries_; ++i)
    if (!table_[base + i].used)
      return take(table_[base + i], vfid, in, out, static_cast<uint32_t>(base + i));
  // §3.8: a full bucket spills into the associative overflow cache.
  for (size_t i = 0; i < tcam_.size(); ++i) {
    if (tcam_[i].used) continue;
    ++tcam_in_use_;
    ++tcam_inserts_;
    max_tcam_in_use_ = std::max(max_tcam_in_use_, tcam_in_use_);
    return take(tcam_[i], vfid, in, out, static_cast<uint32_t>(table_.size() + i));
  }
  return kNone;
}

uint32_t VfidTable::take(VfidEntry& e, uint32_t vfid, PortId in, PortId out, uint32_t index) {
  e = VfidEntry{};
  e.used = true;
  e.vfid = vfid;
  e.in = in.index();
  e.out = out.index();
  ++in_use_;
  max_in_use_ = std::max(max_in_use_, in_use_);
  return index;
}

void VfidTable::release(uint32_t index) {
  VfidEntry& e = (*this)[index];
  e.used = false;
  --in_use_;
  if (index >= table_.size()) --tcam_in_use_;
}

}  // namespace rocelab
