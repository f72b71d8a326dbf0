#include "cc/hpcc.h"

#include <algorithm>

#include "transport/rdma_transport.h"

namespace rocelab {

void HpccSchemeConfig::describe(ParamVisitor& v) {
  v.real("eta", cfg.eta, 0.01, 1, "target utilisation (0.95, HPCC §5)");
  v.count("max_stage", cfg.max_stage, 0, 1000,
          "additive-increase steps before a multiplicative one (5, HPCC §5; HPCC-ns3 runs: 0)");
  v.rate("rate_ai", cfg.rate_ai_bps, 0, gbps(10000),
         "W_AI / T, the additive step as a rate (0: line rate / 2500, 40 Mb/s at 100 Gb/s)");
  v.rate("min_rate", cfg.min_rate_bps, 1, gbps(10000), "rate floor (1 Gb/s, HPCC-ns3)");
  v.duration("base_rtt", cfg.base_rtt, Delta::zero(), Delta::max(),
             "T (0: the largest host-to-host base RTT of the topology)");
  v.flag("fast_react", cfg.fast_react, "react to every ACK, not once per RTT (true)");
  v.real("initial_utilisation", cfg.initial_utilisation, 0, 100,
         "U before the first INT sample (1, HPCC-ns3)");
  v.count("int_data_header_bytes", cfg.int_data_header_bytes, 0, 10000,
          "INT bytes every data packet carries (42: 5 hops x 8 B + 2 B)");
  v.count("int_ack_header_bytes", cfg.int_ack_header_bytes, 0, 10000,
          "bytes the echoed INT adds to an ACK (42)");
}

std::unique_ptr<CongestionControl> HpccSchemeConfig::build() const {
  return std::make_unique<Hpcc>(cfg);
}

CcFabricNeeds Hpcc::fabric_needs() const {
  CcFabricNeeds n;
  n.switch_features = {"int"};
  n.data_header_bytes = cfg_.int_data_header_bytes;
  n.ack_header_bytes = cfg_.int_ack_header_bytes;
  return n;
}

void Hpcc::attach(RdmaTransport& transport) {
  CongestionControl::attach(transport);
  int_ = int_stack_field(transport.packet_layout());
  base_rtt_ = cfg_.base_rtt;
  if (base_rtt_ == Delta::zero()) {
    const WireModel& wire = transport.network().context().wire;
    base_rtt_ = transport.network().max_route_sum([&wire](BitsPerSec rate, Delta delay) {
      return delay * 2 + wire.serialize(wire.mtu_payload_bytes, rate);
    });
  }
}

void Hpcc::on_flow_start(FlowId f) {
  if (state_.size() <= f.index()) state_.resize(f.index() + 1);
  State& s = state_[f.index()];
  s = State{};
  s.u = cfg_.initial_utilisation;
  s.rc = transport_->line_rate_bps(f);  // a flow starts at line rate with a window of W0
  set_rate(f, s.rc);
}

void Hpcc::on_ack(FlowId f, const AckEvent& ack) {
  on_feedback(f, *ack.ack, ack.snd_una);
}

// The authors' simulator runs the same update on a NAK's INT (rdma-hw.cc ReceiveAck).
void Hpcc::on_nak(FlowId f, const Packet& nak) {
  on_feedback(f, nak, nak.seq);
}

bool Hpcc::measure(State& s, const IntStack& stack, double* hop_u, Delta* hop_tau) const {
  const double t_s = base_rtt_.seconds();
  double best = 0;
  Delta best_tau;
  bool any = false;
  for (uint32_t i = 0; i < stack.hops; ++i) {
    const IntHop& now = stack.hop[i];
    IntHop& prev = s.hops[i];
    const bool same_port = i < s.hop_count && prev.node == now.node && prev.port == now.port;
    const Delta tau = now.ts - prev.ts;
    if (same_port && tau > Delta::zero()) {
      const double b = static_cast<double>(now.rate_bps);
      const double tx_rate = static_cast<double>(now.tx_bytes - prev.tx_bytes) * 8 / tau.seconds();
      const double queue = static_cast<double>(std::min(now.qlen_bytes, prev.qlen_bytes));
      const double u = queue * 8 / (b * t_s) + tx_rate / b;
      if (u > best) {  // strictly: ties keep the hop nearer the sender
        best = u;
        best_tau = tau;
      }
      any = true;
    }
    prev = now;  // every hop's snapshot moves on, fast reaction or not
  }
  s.hop_count = stack.hops;
  *hop_u = best;
  *hop_tau = best_tau;
  return any;
}

void Hpcc::on_feedback(FlowId f, const Packet& reply, uint64_t ack_seq) {
  State& s = state_[f.index()];
  const IntStack& stack = transport_->field(int_, reply);
  if (stack.hops == 0 || stack.hops > IntStack::kMaxHops) return;
  const bool per_rtt = ack_seq > s.last_update_seq;
  if (!per_rtt && !cfg_.fast_react) return;
  const uint64_t sent = transport_->snd_nxt(f);
  double hop_u = 0;
  Delta tau;
  // The first INT only becomes the reference: no hop of it compares with a stored one.
  if (measure(s, stack, &hop_u, &tau)) {
    // Alg. 1: U = (1 - tau/T) U + (tau/T) u, tau capped at T.
    const Delta t = base_rtt_;
    tau = std::min(tau, t);
    s.u = (s.u * static_cast<double>((t - tau).ps) + hop_u * static_cast<double>(tau.ps)) /
          static_cast<double>(t.ps);
    const double k = s.u / cfg_.eta;
    const BitsPerSec line = transport_->line_rate_bps(f);
    const BitsPerSec ai = cfg_.rate_ai_bps > 0 ? cfg_.rate_ai_bps : line / 2500;
    BitsPerSec rate;
    uint32_t stage;
    if (k >= 1 || s.stage >= cfg_.max_stage) {  // Alg. 1 ComputeWind, multiplicative
      rate = static_cast<BitsPerSec>(static_cast<double>(s.rc) / k) + ai;
      stage = 0;
    } else {  // additive
      rate = s.rc + ai;
      stage = s.stage + 1;
    }
    rate = std::clamp(rate, std::min(cfg_.min_rate_bps, line), line);
    set_rate(f, rate);
    if (per_rtt) {
      s.rc = rate;
      s.stage = stage;
    }
  }
  if (per_rtt && sent > s.last_update_seq) s.last_update_seq = sent;
}

// R = W / T: the window follows the rate, W = W0 R / line with W0 = line x T.
void Hpcc::set_rate(FlowId f, BitsPerSec rate) {
  RdmaTransport& t = *transport_;
  const BitsPerSec line = t.line_rate_bps(f);
  const int64_t w0 = bytes_in(base_rtt_, line);
  const auto window = static_cast<uint64_t>(static_cast<__int128>(w0) * rate / line);
  t.set_window(f, std::max<uint64_t>(window, 1));
  t.set_rate(f, rate);
}

}  // namespace rocelab
