// What crosses between ranks of a run spread over processes (issue 52, sim/ranks.h): the
// frames of cut links. A frame's delivery names its packet by its index in the sending
// rank's pool; across ranks it travels as bytes (the packet, its scheme fields beside it,
// and what schemes keep by its index, NetContext::side_data), and is rebuilt in the
// receiving rank's pool, where it is delivered as it would have been in one process.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ranks.h"

namespace rocelab {

class EgressPort;
class Network;

class CutFrameCodec final : public RemoteEventCodec {
 public:
  explicit CutFrameCodec(Network& net);
  void encode(const EventEntry& e, ByteWriter& out) override;
  EventEntry decode(ByteReader& in) override;

 private:
  EgressPort& port_of(uint32_t target) const;
  Network& net_;
  std::vector<EgressPort*> by_handler_;  // a cut port by its handler's target
};

}  // namespace rocelab
