// Parameter descriptions of the network model's configuration (see sim/params.h).
#include <string>

#include "net/packet.h"
#include "net/switch_config.h"

namespace rocelab {

void describe(ParamVisitor& v, WireModel& w) {
  v.bytes32("mtu_payload", w.mtu_payload_bytes, 64, 9000,
            "RDMA payload per full packet (1000 B: HPCC/ConWeave ns-3 PACKET_PAYLOAD_SIZE)");
  v.bytes32("data_header", w.data_header_bytes, 0, 1000,
            "headers of a data frame: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4");
  v.bytes32("ack_frame", w.ack_bytes, 0, 1000, "ACK/NAK frame: data headers + AETH 4");
  v.bytes32("cnp_frame", w.cnp_bytes, 0, 1000, "CNP frame: headers + 16 reserved bytes");
  v.bytes32(
      "pfc_frame", w.pfc_frame_bytes, 1, 1000,
      "PFC frame: minimum Ethernet frame (64 B; the ns-3 simulators send 43 B, their presets)");
  v.bytes32("phy_overhead", w.phy_overhead_bytes, 0, 100,
            "preamble+SFD 8 + inter-frame gap 12 per frame; 0 to match simulators that omit it");
  v.duration("serialization_resolution", w.serialization_resolution, Delta::zero(),
             Delta::from_us(1),
             "transmission times truncated to a multiple of this (0: exact; ns-3 presets: "
             "1 ns, ns-3's time resolution)");
}

void describe(ParamVisitor& v, PfcConfig& c) {
  static const std::string kModes[] = {"dynamic", "static"};
  std::string mode = c.mode == PfcThresholdMode::kDynamic ? "dynamic" : "static";
  v.choice("threshold", mode, kModes,
           "XOFF threshold per (ingress, priority): dynamic = alpha x free shared buffer, "
           "static = static_xoff");
  c.mode = mode == "dynamic" ? PfcThresholdMode::kDynamic : PfcThresholdMode::kStatic;
  v.real("alpha", c.alpha, 1.0 / 1024, 64,
         "dynamic threshold factor (1/8: HPCC ns-3 pfc_a_shift 3)");
  v.bytes("static_xoff", c.static_xoff_bytes, 1, kNoLimit,
          "static XOFF threshold (256 KiB: FLB §4.3)");
  v.bytes("resume_offset", c.resume_offset_bytes, 0, kNoLimit,
          "XON when the counter is this far below XOFF (3 KiB: HPCC ns-3 resume_offset)");
  v.bytes("guaranteed", c.guaranteed_bytes, 0, kNoLimit,
          "bytes per ingress and class outside the XOFF count and the shared pool (0; HPCC "
          "ns-3 4 KiB, ConWeave ns-3 2 x 1048 B)");
  v.bytes("pool_reserve_per_port", c.pool_reserve_per_port_bytes, 0, kNoLimit,
          "taken off the shared pool per port (0; HPCC ns-3 4 KiB, ConWeave ns-3 8 x 1048 B)");
  v.rate("alpha_rate_reference", c.alpha_rate_reference_bps, 0, gbps(100000),
         "alpha doubles per doubling of the ingress rate over this, up to 1 (0 = off; HPCC "
         "ns-3: the NIC rate)");
  v.real("egress_alpha", c.egress_alpha, 0, 1000,
         "> 0: a packet is dropped when its egress queue would pass this times the free "
         "egress pool (checked before the ingress; lossy, counted as egress_threshold_drops) "
         "(0 = none; ConWeave ns-3: 1)");
  v.bytes("egress_queue_min", c.egress_queue_min_bytes, 0, kNoLimit,
          "bytes of each egress queue outside egress_alpha's count (ConWeave ns-3: 1 + 1048 B)");
  v.flag("headroom_when_pool_full", c.headroom_when_pool_full,
         "after XOFF an ingress keeps filling the shared pool, headroom only once it is full, "
         "and the pool counts guaranteed bytes (false; ConWeave ns-3: true)");
  v.flag("pause_ahead_of_control", c.pause_ahead_of_control,
         "PAUSE frames leave ahead of queued ACK/NAK/CNP frames, as a MAC sends them (true; the "
         "ns-3 forks: false, FIFO in their control queue)");
  v.bytes("headroom", c.headroom_bytes, 0, kNoLimit,
          "headroom per ingress and lossless class; 0 = sized from the link (below)");
  v.real("headroom_delay_factor", c.headroom_delay_factor, 0, 100,
         "auto headroom: this many one-way delays of line-rate data (2; HPCC ns-3: 3)");
  v.count("headroom_mtus", c.headroom_mtus, 0, 1000,
          "auto headroom: plus this many MTU frames (3; ConWeave ns-3: 2)");
  static const std::string kStyles[] = {"standard", "per_packet", "until_resume"};
  std::string style = kStyles[static_cast<size_t>(c.pause.style)];
  v.choice("pause_style", style, kStyles,
           "how a PAUSE holds and ends: standard (802.1Qbb: the time it carries, refreshed while "
           "XOFF holds, XON ends it), per_packet (ConWeave-ns3: a PAUSE per packet over the "
           "threshold, no XON once the sender's record lapsed), until_resume (HPCC-ns3: held "
           "until the XON)");
  for (size_t k = 0; k < 3; ++k)
    if (style == kStyles[k]) c.pause.style = static_cast<PfcPauseStyle>(k);
  v.count("pause_quanta", c.pause.quanta, 1, 65535,
          "pause time a PAUSE carries, in 512-bit-time quanta at the link's rate (65535: the "
          "802.1Qbb maximum, 335.5 us at 100 Gb/s)");
  v.duration("pause_time", c.pause.time, Delta::zero(), Delta::max(),
             "> 0: the pause time every PAUSE carries instead of pause_quanta (the ns-3 forks: "
             "5 us)");
  v.duration("pause_refresh", c.pause.refresh, Delta::zero(), Delta::max(),
             "standard: XOFF re-sent this often while it holds; 0 = half the pause time");
  std::vector<std::string> prios;
  for (int p = 0; p < 8; ++p)
    if ((c.lossless_priorities >> p) & 1u) prios.push_back(std::to_string(p));
  v.text_list("lossless_priorities", prios, "lossless (PFC) classes; RDMA commonly on 3");
  if (v.reading()) {
    c.lossless_priorities = 0;
    for (const std::string& s : prios) {
      const bool ok = s.size() == 1 && s[0] >= '0' && s[0] <= '7';
      v.require(ok, "lossless_priorities",
                "each priority must be an integer 0..7, got '" + s + "'");
      if (ok) c.lossless_priorities |= 1u << (s[0] - '0');
    }
  }
}

void describe(ParamVisitor& v, EcnConfig& c) {
  v.flag("enabled", c.enabled, "RED/ECN marking at egress (the DCQCN congestion point)");
  v.bytes("kmin", c.kmin_bytes, 0, kNoLimit, "no marking at or below (5 KB: DCQCN paper)");
  v.bytes("kmax", c.kmax_bytes, 0, kNoLimit, "always mark above (200 KB: DCQCN paper)");
  v.real("pmax", c.pmax, 0, 1, "marking probability at kmax (1%: DCQCN paper)");
  v.rate("reference_rate", c.reference_rate_bps, 0, kNoLimit,
         "if set, kmin/kmax hold at this port rate and scale with each port's rate");
  v.require(c.kmin_bytes < c.kmax_bytes, "kmax", "kmin must be below kmax");
  size_t n = c.per_rate.size();
  v.list(
      "per_rate", n, [&](size_t k) { c.per_rate.resize(k); },
      [&](ParamVisitor& item, size_t i) {
        auto& r = c.per_rate[i];
        item.rate("rate", r.rate_bps, 1, kNoLimit, "ports of exactly this rate");
        item.bytes("kmin", r.kmin_bytes, 0, kNoLimit, "no marking at or below");
        item.bytes("kmax", r.kmax_bytes, 0, kNoLimit, "always mark above");
        item.real("pmax", r.pmax, 0, 1, "marking probability at kmax");
        item.require(r.kmin_bytes <= r.kmax_bytes, "kmax", "kmin must not be above kmax");
      },
      "thresholds for ports of given rates, ahead of kmin/kmax/pmax (the ns-3 simulators' "
      "KMIN_MAP/KMAX_MAP/PMAX_MAP)");
}

Delta PfcPauseTiming::pause_for(BitsPerSec rate_bps) const {
  if (time > Delta::zero()) return time;
  // 512 bit times per quantum, rounded up to the picosecond.
  const __int128 bit_ps = static_cast<__int128>(quanta) * 512 * 1'000'000'000'000;
  return Delta{static_cast<int64_t>((bit_ps + rate_bps - 1) / rate_bps)};
}

Delta PfcPauseTiming::refresh_for(BitsPerSec rate_bps) const {
  return refresh > Delta::zero() ? refresh : Delta{pause_for(rate_bps).ps / 2};
}

EcnConfig EcnConfig::for_port(BitsPerSec rate_bps) const {
  EcnConfig ecn = *this;
  for (const RateSetting& r : per_rate)
    if (r.rate_bps == rate_bps) {
      ecn.kmin_bytes = r.kmin_bytes;
      ecn.kmax_bytes = r.kmax_bytes;
      ecn.pmax = r.pmax;
      return ecn;
    }
  if (reference_rate_bps > 0) {
    const double k = static_cast<double>(rate_bps) / static_cast<double>(reference_rate_bps);
    ecn.kmin_bytes = static_cast<int64_t>(static_cast<double>(kmin_bytes) * k);
    ecn.kmax_bytes = static_cast<int64_t>(static_cast<double>(kmax_bytes) * k);
  }
  return ecn;
}

void describe(ParamVisitor& v, SwitchConfig& c) {
  v.bytes("buffer", c.buffer_bytes, 1, kNoLimit,
          "shared buffer per switch (12 MB; FLB testbed 22 MB, FLB simulations 9 MB)");
  size_t n = c.buffers.size();
  v.list(
      "buffers", n, [&](size_t k) { c.buffers.resize(k); },
      [&](ParamVisitor& item, size_t i) {
        item.text("switch", c.buffers[i].switch_name, "switch name");
        item.bytes("buffer", c.buffers[i].buffer_bytes, 1, kNoLimit, "its shared buffer");
      },
      "switches whose buffer is not switch.buffer (BFC §5: the gateways' 60 MB)");
  v.count("queues", c.num_queues, 1, 1024, "data queues per egress port (8 802.1p classes)");
  static const std::string kAckQueues[] = {"control", "data"};
  v.choice("ack_queue", c.ack_queue, kAckQueues,
           "ACK/NAK at switch egress: control = strict priority over data (ConWeave ns-3), data "
           "= in their class's queue with data, counted by the MMU (HPCC ns-3 switches)");
  static const std::string kHashes[] = {"rocelab", "ns3"};
  v.choice("ecmp_hash", c.ecmp_hash, kHashes,
           "equal-cost next-hop hash: rocelab, or ns3 (MurmurHash3 of sip, dip, ports seeded "
           "with the switch id, as the HPCC/ConWeave ns-3 simulators)");
  v.section(
      "ecn", [&](ParamVisitor& s) { describe(s, c.ecn); }, "RED/ECN marking");
}

}  // namespace rocelab
