// RoCE RC transport parameters. Each default names its source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/ids.h"
#include "sim/params.h"
#include "sim/time.h"

namespace rocelab {

class HostPathConfig;

// The NIC's ACK/NAK/CNP frames while the data class is paused by the switch.
enum class AckPause : uint8_t {
  // As the preset's simulator does for the chosen congestion control (Preset::acks_wait:
  // HPCC-ns3 with cc: hpcc waits), else kSend. Resolved when a scenario is built
  // (resolve_ack_pause); an ExperimentSpec made in code with kAuto sends.
  kAuto,
  // They go out anyway, from a queue PFC never holds (both ns-3 forks' NICs with
  // ACK_HIGH_PRIO 1: their DCQCN and TIMELY runs).
  kSend,
  // They wait with the data (HPCC ns-3 with ACK_HIGH_PRIO 0: run.py sets it for --cc hp,
  // dctcp and the *_vwin DCQCN modes; qbb-net-device.cc GetNextQindex, ack_q_idx 3).
  kWait,
};

// How a NIC of several ports (planes, dual ToR) places a new QP (nic.port_select).
enum class PortSelect : uint8_t {
  kHash,        // a hash of the QP's 5-tuple, as NICs spread QPs over a bond's ports
  kRoundRobin,  // in order of QP creation at each sender (Linux bonding's tx affinity)
};

// The out-of-order window of selective_repeat and reorder_buffer receivers: one BDP of the
// QP's path in packets (IRN's bitmap, Mittal et al. SIGCOMM'18 §3.3), no bound (memory a
// NIC does not have), or a count.
enum class OooWindow : uint8_t { kBdp, kUnbounded, kPackets };

struct TransportConfig {
  // What the receiver does with data beyond the next expected sequence, and how the sender
  // recovers: a loss recovery by name (transport/loss_recovery.h).
  std::string recovery = "go_back_n";
  // Priority class of RDMA data (RoCE deployments commonly use 3; see PfcConfig).
  Priority data_priority = 3;
  // One ACK per `ack_interval_packets` in-order data packets (and always for the last).
  // 1 = ACK per packet, as the HPCC/ConWeave ns-3 simulators do by default.
  uint32_t ack_interval_packets = 1;
  // A NAK for the same expected sequence is repeated at most once per this interval
  // (HPCC ns-3 rdma-hw "NACK Interval", 500 us).
  Delta nak_interval = Delta::from_us(500);
  // What the NIC does with its ACK/NAK/CNP frames while its data class is paused.
  AckPause ack_pause = AckPause::kAuto;
  // Retransmission timeout (go-back-N from the oldest unacked byte; selective repeat
  // resends every packet not selectively acked). Meant to be above the longest a packet
  // and its ACK can queue, so that it fires only after real loss; when it fires with
  // nothing lost, `rocelab run` and `compare` say so.
  // Zero: no timer at all (the HPCC ns-3 simulator's NIC has none; it relies on PFC and
  // NAKs), allowed only in a lossless fabric.
  Delta rto = Delta::from_ms(1);
  // `transport.rto: auto` (the default): the scenario builder sets rto from the fabric, the
  // longest a packet can queue along a path (scenario/build/fabric_rto.h). A transport
  // built without it keeps rto as set.
  bool rto_auto = true;
  // The timer restarts on each ACK that acknowledges new data (IB spec vol. 1 o9-85, which
  // real NICs follow); with this, also on each data packet the NIC sends, as the ConWeave
  // ns-3 simulator does (rdma-hw.cc PktSent), so that a flow still sending never times out.
  bool rto_restarts_on_send = false;
  // And on each ACK or NAK that arrives while data is in flight, whether it acknowledges
  // new data or not (the ns-3 forks' rdma-hw.cc ReceiveAck).
  bool rto_restarts_on_reply = false;
  // The host path policy by name (transport/host_path.h) and its parameters, made for
  // path_params_for; when that is not path_policy, the transport builds the policy's
  // defaults.
  std::string path_policy = "fixed";
  std::shared_ptr<HostPathConfig> path_params;
  std::string path_params_for;
  // recovery: bitmap: out-of-order packets kept beyond the next expected one (L, MP-RDMA).
  uint32_t bitmap_packets = 64;
  // selective_repeat and reorder_buffer: how far beyond the next expected packet the
  // receiver keeps data (RdmaTransport::ooo_window_packets).
  OooWindow ooo_window = OooWindow::kBdp;
  uint32_t ooo_window_packets = 0;  // kPackets
  // NICs of several ports (the `nic` section): where a QP goes, and how long after one of
  // its host links fails the QPs on that port move to a live one (failover_auto: the
  // failure's own detection delay, events.N.detection_delay).
  PortSelect port_select = PortSelect::kHash;
  Delta failover_delay;
  bool failover_auto = true;
};

// The `nic` section: port_select and failover_delay.
void describe_nic(ParamVisitor& v, TransportConfig& c);

// Makes path_params the path policy's defaults unless they were made for it already.
void ensure_path_params(TransportConfig& c);
void describe(ParamVisitor& v, TransportConfig& c);

}  // namespace rocelab
