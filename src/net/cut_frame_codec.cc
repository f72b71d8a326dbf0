#include "net/cut_frame_codec.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "net/network.h"

namespace rocelab {

CutFrameCodec::CutFrameCodec(Network& net) : net_(net) {
  for (size_t n = 0; n < net.node_count(); ++n) {
    Node& node = net.node(NodeId(static_cast<uint32_t>(n)));
    for (size_t p = 0; p < node.port_count(); ++p) {
      EgressPort& port = node.port(PortId(static_cast<uint16_t>(p)));
      if (!port.cut()) continue;
      if (port.handler() >= by_handler_.size()) by_handler_.resize(port.handler() + 1, nullptr);
      by_handler_[port.handler()] = &port;
    }
  }
}

EgressPort& CutFrameCodec::port_of(uint32_t target) const {
  if (target >= by_handler_.size() || !by_handler_[target])
    throw std::runtime_error("an event for handler " + std::to_string(target) +
                             " crossed to another rank, and only cut links' frames may");
  return *by_handler_[target];
}

void CutFrameCodec::encode(const EventEntry& e, ByteWriter& out) {
  port_of(e.payload.target);
  if ((e.payload.kind & ((1u << kEventKindBits) - 1)) != EgressPort::kDeliverCut)
    throw std::runtime_error("a cut port's event of kind " + std::to_string(e.payload.kind) +
                             " crossed to another rank; only frame deliveries may");
  out.put(e.key);
  out.put(e.payload.target);
  out.put(e.payload.kind);
  NetContext& ctx = net_.context();
  const PacketId frame(static_cast<uint32_t>(e.payload.arg));
  out.put(ctx.pkt(frame));
  out.put_raw(ctx.state.side_slot(frame.index()), ctx.state.side_bytes());
  for (PacketSideData* side : ctx.side_data) side->encode(frame, out);
  ctx.free_packet(frame);  // it lives on at the receiving rank
}

EventEntry CutFrameCodec::decode(ByteReader& in) {
  EventEntry e;
  e.key = in.get<EventKey>();
  e.payload.target = in.get<uint32_t>();
  e.payload.kind = in.get<uint32_t>();
  port_of(e.payload.target).note_cut_arrival(Time{event_key_time(e.key)});
  NetContext& ctx = net_.context();
  const PacketId frame = ctx.alloc_packet();
  Packet& p = ctx.pkt(frame);
  in.get_raw(&p, sizeof(Packet));
  p.self = frame;
  in.get_raw(ctx.state.side_slot(frame.index()), ctx.state.side_bytes());
  for (PacketSideData* side : ctx.side_data) side->decode(frame, in);
  e.payload.arg = frame.index();
  return e;
}

}  // namespace rocelab
