#include "fc/sfq.h"

#include <stdexcept>

#include "net/switch_node.h"
#include "sim/random.h"

namespace rocelab {

void SfqConfig::describe(ParamVisitor& v) {
  v.count("queues", params_.queues, 1, 1u << 16,
          "FIFO queues per switch egress port, chosen by flow hash (32: BFC §4.1; its "
          "Ideal-FQ uses 1000 with an unbounded buffer)");
}

Sfq::Sfq(Switch& sw, const SfqParams& params) : params_(params), pfc_(sw, true) {
  for (size_t i = 0; i < sw.port_count(); ++i) {
    EgressPort& port = sw.port(PortId(static_cast<uint16_t>(i)));
    if (port.num_queues() != params.queues)
      throw std::logic_error("sfq: switch ports need `queues` data queues");
    port.set_pfc_pauses_all_queues(true);
  }
}

// Non-data frames that travel as data (switch.ack_queue: data) share queue 0.
size_t Sfq::classify(const EgressPort&, const Packet& p) const {
  if (p.type != PacketType::kData) return 0;
  return static_cast<size_t>(mix64(uint64_t{p.flow_hash} ^ 0x5fc5fc5fULL) % params_.queues);
}

bool Sfq::admit(PortId in, PortId out, Packet& p) {
  return pfc_.admit(in, out, p);
}

void Sfq::on_dequeue(PortId out, size_t queue, Packet& p) {
  pfc_.on_dequeue(out, queue, p);
}

std::unique_ptr<FlowControl> SfqConfig::build(Switch& sw) const {
  return std::make_unique<Sfq>(sw, params_);
}

std::unique_ptr<FlowControl> SfqConfig::build(Host& host) const {
  return std::make_unique<Pfc>(host);
}

}  // namespace rocelab
