// Stochastic fair queueing (McKenney, INFOCOM'90) at every switch egress port: a flow's
// packets go to the data queue its 5-tuple hash picks, and DRR serves the queues. BFC §4.1
// uses it with 32 queues (DCQCN+Win+SFQ), with 1000 queues and an unbounded buffer as its
// Ideal-FQ bound, and with 32 queues and an unbounded buffer (SFQ+InfBuffer, §4.2). All
// queues carry the one lossless class, so a PFC PAUSE holds them all.
#pragma once

#include "net/flow_control.h"
#include "net/packet_state.h"
#include "net/pfc.h"

namespace rocelab {

struct SfqParams {
  uint32_t queues = 32;  // BFC §4.1: "Matching BFC, we use 32 physical queues per port"
};

class Sfq final : public FlowControl {
 public:
  Sfq(Switch& sw, const SfqParams& params);
  size_t classify(const EgressPort& port, const Packet& p) const override;
  bool admit(PortId in, PortId out, Packet& p) override;
  void on_dequeue(PortId out, size_t queue, Packet& p) override;
  bool on_frame(PortId in, const Packet& p) override { return pfc_.on_frame(in, p); }
  bool lossless() const override { return true; }
  const Mmu* buffer() const override { return pfc_.buffer(); }
  std::string check_drained() const override { return pfc_.check_drained(); }

 private:
  SfqParams params_;
  Pfc pfc_;
};

class SfqConfig final : public FlowControlConfig {
 public:
  void describe(ParamVisitor& v) override;
  bool lossless() const override { return true; }
  size_t switch_queues(size_t) const override { return params_.queues; }
  std::unique_ptr<FlowControl> build(Switch& sw) const override;
  std::unique_ptr<FlowControl> build(Host& host) const override;
  SfqParams& params() { return params_; }

 private:
  SfqParams params_;
};

}  // namespace rocelab
