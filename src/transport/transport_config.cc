#include "transport/transport_config.h"

#include "sim/units.h"
#include "transport/host_path.h"
#include "transport/loss_recovery.h"

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rocelab {

namespace {

// An enum read and written by name: names[i] is the value i.
template <class Enum, size_t N>
void enum_choice(ParamVisitor& v, std::string_view key, Enum& value, const std::string (&names)[N],
                 std::string_view help) {
  std::string name = names[static_cast<size_t>(value)];
  v.choice(key, name, names, help);
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) value = static_cast<Enum>(i);
}

// A duration that may be `auto` (is_auto), read and written as text; `example` shows one.
void auto_or_duration(ParamVisitor& v, std::string_view key, bool& is_auto, Delta& value,
                      std::string_view example, std::string_view help) {
  std::string text = is_auto ? "auto" : format_duration(value);
  v.text(key, text, help);
  if (!v.reading()) return;
  std::string why;
  const std::optional<Delta> d =
      text == "auto" ? std::optional<Delta>() : parse_duration(text, &why);
  v.require(text == "auto" || (d && *d >= Delta::zero()), key,
            "expected auto or a duration such as " + std::string(example) + " (" + why + ")");
  is_auto = text == "auto";
  if (d) value = *d;
}

// `ooo_window: bdp | unbounded | N`.
void describe_ooo_window(ParamVisitor& v, TransportConfig& c) {
  std::string text = c.ooo_window == OooWindow::kBdp         ? "bdp"
                     : c.ooo_window == OooWindow::kUnbounded ? "unbounded"
                                                             : std::to_string(c.ooo_window_packets);
  v.text("ooo_window", text,
         "selective_repeat, irn_ns3 and reorder_buffer: out-of-order packets kept beyond the "
         "next expected one; beyond, a packet is dropped (ooo_window_drops) and NAKed (not "
         "under irn_ns3). bdp = one BDP of the QP's path (IRN's bitmap; irn_ns3 wants its "
         "simulator's one value per topology, 104 on its leaf-spine); unbounded = keep "
         "everything (no NIC has the memory); or a count");
  if (!v.reading()) return;
  if (text == "bdp" || text == "unbounded") {
    c.ooo_window = text == "bdp" ? OooWindow::kBdp : OooWindow::kUnbounded;
    return;
  }
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  const bool ok = !text.empty() && end == text.c_str() + text.size() && n >= 1 && n <= (1u << 20);
  v.require(ok, "ooo_window", "expected bdp, unbounded or a packet count from 1 to 1048576");
  if (!ok) return;
  c.ooo_window = OooWindow::kPackets;
  c.ooo_window_packets = static_cast<uint32_t>(n);
}

}  // namespace

void ensure_path_params(TransportConfig& c) {
  if (c.path_params && c.path_params_for == c.path_policy) return;
  const auto* e = host_path_registry().find(c.path_policy);
  if (!e) throw std::invalid_argument("unknown host path policy '" + c.path_policy + "'");
  c.path_params = e->factory();
  c.path_params_for = c.path_policy;
}

void describe(ParamVisitor& v, TransportConfig& c) {
  const std::vector<std::string> recoveries = loss_recovery_registry().names();
  v.choice("recovery", c.recovery, recoveries,
           "out-of-order data: go_back_n = drop + NAK, resend from there (commodity NICs); "
           "selective_repeat = keep + NAK with SACK, resend holes (IRN); reorder_buffer = "
           "keep, cumulative ACKs only, timeout for loss; bitmap = keep within "
           "bitmap_packets, ACK every packet, drop + NAK beyond (MP-RDMA); irn_ns3 = IRN as "
           "ConWeave-ns3 runs it (its --pfc 0 --irn 1; docs/schemes/loss-recovery.md)");
  v.count("bitmap_packets", c.bitmap_packets, 1, 1u << 20,
          "recovery bitmap: out-of-order packets kept beyond the next expected (L = 64: "
          "MP-RDMA reimplementations; the paper's value unverified)");
  describe_ooo_window(v, c);
  int64_t prio = c.data_priority;
  v.integer("data_priority", prio, 0, 7, "802.1p class of RDMA data (3 is common)");
  c.data_priority = static_cast<Priority>(prio);
  v.count("ack_interval", c.ack_interval_packets, 1, 1u << 20,
          "ACK every this many in-order packets (1: HPCC/ConWeave ns-3 L2_ACK_INTERVAL)");
  v.duration("nak_interval", c.nak_interval, Delta::zero(), Delta::max(),
             "minimum gap between NAKs for the same sequence (500 us: HPCC ns-3)");
  static const std::string kAckPause[] = {"auto", "send", "wait"};
  enum_choice(v, "ack_pause", c.ack_pause, kAckPause,
              "the NIC's ACK/NAK/CNP frames while its data class is paused: send = through the "
              "PAUSE (ns-3 ACK_HIGH_PRIO 1); wait = with the data (HPCC ns-3 ACK_HIGH_PRIO 0); "
              "auto = as the preset's simulator for the chosen cc (hpcc-ns3 with hpcc: wait), "
              "else send");
  static constexpr std::string_view kRtoHelp =
      "retransmission timeout: resend from the oldest unacked byte (unsacked ones under "
      "selective_repeat); auto = the longest a packet can queue on a path of the fabric, "
      "each switch's buffer drained at its slowest port, plus the path's round trip "
      "(docs/schemes/loss-recovery.md); 0 = no timer (HPCC ns-3), lossless fabrics only";
  if (v.reading() || c.rto_auto) {
    auto_or_duration(v, "rto", c.rto_auto, c.rto, "2ms", kRtoHelp);
  } else {
    v.duration("rto", c.rto, Delta::zero(), Delta::max(), kRtoHelp);  // written as before auto
  }
  v.flag("rto_restarts_on_send", c.rto_restarts_on_send,
         "the timer restarts on each data packet sent too, not only on each new ACK (ConWeave "
         "ns-3 PktSent)");
  v.flag("rto_restarts_on_reply", c.rto_restarts_on_reply,
         "the timer restarts on every ACK or NAK that arrives while data is in flight, not only "
         "on one that acknowledges new data (the ns-3 forks' ReceiveAck)");
  static const std::vector<std::string> policies = host_path_registry().names();
  v.section(
      "path_policy",
      [&](ParamVisitor& s) {
        s.choice("name", c.path_policy, policies,
                 "path entropy per data packet at the sender: fixed = one source port per flow, "
                 "spray = a random one per packet, hermes = Hermes' sensing and rerouting, "
                 "mprdma = MP-RDMA's multipath transport (with cc: none, recovery: bitmap)");
        ensure_path_params(c);
        c.path_params->describe(s);
      },
      "the host path policy and its parameters (docs/schemes/host-path.md)", "name");
}

void describe_nic(ParamVisitor& v, TransportConfig& c) {
  static const std::string kPortSelect[] = {"hash", "round_robin"};
  enum_choice(v, "port_select", c.port_select, kPortSelect,
              "NICs with a port per plane or ToR: hash = a QP's port from the hash of its "
              "5-tuple (as NICs spread QPs over ports); round_robin = each sender's QPs in turn");
  static constexpr std::string_view kHelp =
      "a failed NIC port's QPs move to a live port this long after the failure; auto = the "
      "failure's detection_delay";
  auto_or_duration(v, "failover_delay", c.failover_auto, c.failover_delay, "100us", kHelp);
}

}  // namespace rocelab
