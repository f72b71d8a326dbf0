// ConWeave: the destination ToR (RTT_REPLY / CLEAR / NOTIFY around the shared reorder
// queues) and the aging of flow state. Line references are to ConWeave-ns3's
// conweave-routing.cc.
#include "lb/conweave.h"

namespace rocelab {

// One tagged data packet arriving from the fabric for a local host (R.cc:646-942).
// True when it is held in a reorder queue.
bool ConWeave::on_data_from_fabric(Packet& p, PortId in_port) {
  const ConWeaveTag tag = sw_.field(tag_, p);
  if (tag.flag == 0) return false;  // not balanced by ConWeave (single path)
  age(sw_.now());
  const InNetworkReorder::Verdict verdict =
      reorder_.arrive(ReorderTag{Time{tag.tx_time_ps}, Time{tag.tail_time_ps}, tag.epoch, tag.phase,
                                 tag.flag == kTail},
                      p);
  if (verdict == InNetworkReorder::Verdict::kOldEpoch) return false;

  if (p.ecn_ce) {  // R.cc:909-913: every CE mark, no rate limit
    send_control(p, in_port, ConWeaveControl{0, tag.path, 0, kNotify});
    ++stats_.notifies_sent;
  }
  if (tag.flag == kInit) {
    send_control(p, in_port, ConWeaveControl{tag.epoch, 0, 0, kReplyInit});
    ++stats_.replies_sent;
  } else if (tag.flag == kTail) {
    send_control(p, in_port, ConWeaveControl{tag.epoch, 0, 1, kReplyTail});
    ++stats_.clears_sent;
  }
  if (verdict != InNetworkReorder::Verdict::kHold) return false;
  reorder_.hold(p, in_port);
  return true;
}

// A control packet back to the data's source ToR (it consumes it), routed by ECMP in the
// control queue.
void ConWeave::send_control(const Packet& data, PortId in_port, const ConWeaveControl& c) {
  Packet& m = sw_.new_control(control_kind_, NodeId(sw_.routing().src_edge(data)), data.flow,
                              data.flow_hash ^ 0x5a17u);
  m.sport = data.dport;
  m.dport = data.sport;
  sw_.field(control_, m) = c;
  sw_.forward(m.self, in_port);
}

void ConWeave::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kFlushEvent) reorder_.on_flush_event(arg);
}

// Flow state idle for `aging` is dropped, in sweeps every `aging` (AgingEvent). A flow
// with a live reorder queue keeps its state.
void ConWeave::age(Time now) {
  if (next_aging == Time::zero()) next_aging = now + cfg_.aging;
  if (now < next_aging) return;
  next_aging = now + cfg_.aging;
  for (auto it = tx_.begin(); it != tx_.end();)
    it = now - it->second.active > cfg_.aging ? tx_.erase(it) : it + 1;
  reorder_.drop_idle(now, cfg_.aging);
}

}  // namespace rocelab
