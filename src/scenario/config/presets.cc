// Presets: the settings of the ns-3 reference simulators, so that a user can run the same
// topology and flow files in rocelab and compare run for run. Sources in
// docs/reference-parameters.md; the values below cite the file each comes from.
#include "scenario/config/presets.h"

#include "cc/dcqcn.h"
#include "cc/hpcc.h"
#include "cc/timely.h"
#include "lb/conga.h"
#include "lb/conweave.h"
#include "lb/drill.h"
#include "lb/lbodsn.h"
#include "lb/letflow.h"
#include "scenario/config/yaml_params.h"

namespace rocelab {

namespace {

// Shared by both simulators (their src/point-to-point/model/rdma-hw.cc and
// qbb-net-device.cc agree): 1000 B payload, no preamble/IFG on the wire, per-packet ACKs,
// the CNP as a flag on the ACK of a marked packet, DCQCN as their Mellanox NIC model.
void ns3_common(ScenarioConfig& c) {
  c.wire.mtu_payload_bytes = 1000;  // PACKET_PAYLOAD_SIZE 1000
  c.wire.phy_overhead_bytes = 0;    // ns-3 point-to-point links carry no preamble/IFG
  // qbb-net-device.cc TransmitStart: m_bps.CalculateBytesTxTime (the Time of a double
  // number of seconds, truncated to ns-3's 1 ns resolution); rdma-hw.cc paces with the same.
  c.wire.serialization_resolution = Delta::from_ns(1);
  // rdma-hw.cc GetNxtPacket: SeqTsHeader 6 (pg, seq; no INT under DCQCN) + UDP 8 + IPv4 20
  // + PPP 14 (ppp-header.cc GetStaticSize: the protocol and 12 zero bytes, "as Ethernet")
  // around the payload; a 1000 B packet is 1048 B on the link.
  c.wire.data_header_bytes = 48;
  // rdma-hw.cc ReceiveUdp: the qbbHeader padded to 60 - 14 - 20 B, plus IPv4 20 and PPP 14.
  c.wire.ack_bytes = 60;
  // qbb-net-device.cc SendPfc: PauseHeader 9 + IPv4 20 + PPP 14.
  c.wire.pfc_frame_bytes = 43;
  c.transport.ack_interval_packets = 1;  // L2_ACK_INTERVAL 1
  c.switch_config.ecn.enabled = true;    // ENABLE_QCN 1
  // switch-node.cc EcmpHash: ECMP (and every ACK/NAK, whatever the load balancer) hashes as
  // theirs, so imported flows take their paths.
  c.switch_config.ecmp_hash = "ns3";
  c.fc = "pfc";
  c.pfc.mode = PfcThresholdMode::kDynamic;  // USE_DYNAMIC_PFC_THRESHOLD 1
  c.cc = "dcqcn";                           // CC_MODE 1
}

// HPCC simulator (alibaba-edu/High-Precision-Congestion-Control), DCQCN as its
// simulation/run.py sets it for 100 Gb/s hosts (bw = 100).
void hpcc_ns3(ScenarioConfig& c) {
  ns3_common(c);
  // run.py BUFFER_SIZE 16 * bw / 50; third.cc ConfigBufferSize(buffer_size * 1024 * 1024)
  c.switch_config.buffer_bytes = 32 * 1024 * 1024;
  c.switch_config.ecn.kmin_bytes = 100 * 1000;        // KMIN 100 * bw / 25 KB at 25G ...
  c.switch_config.ecn.kmax_bytes = 400 * 1000;        // KMAX 400 * bw / 25 KB
  c.switch_config.ecn.reference_rate_bps = gbps(25);  // ... scaled with each port's rate
  c.switch_config.ecn.pmax = 0.2;                     // PMAX 0.2
  // run.py KMIN_MAP / KMAX_MAP / PMAX_MAP at bw = 100: the host rate and 4x it.
  c.switch_config.ecn.per_rate = {{gbps(100), 400 * 1000, 1600 * 1000, 0.2},
                                  {gbps(400), 1600 * 1000, 6400 * 1000, 0.2}};
  c.pfc.alpha = 1.0 / 8;                         // third.cc pfc_a_shift 3 ...
  c.pfc.alpha_rate_reference_bps = gbps(100);    // ... minus 1 per doubling over the NIC
  c.pfc.resume_offset_bytes = 3 * 1024;          // switch-mmu.cc resume_offset 3 KB
  c.pfc.guaranteed_bytes = 4 * 1024;             // switch-mmu.cc reserve 4 KB
  c.pfc.pool_reserve_per_port_bytes = 4 * 1024;  // ConfigNPort: total_rsrv += reserve
  c.pfc.headroom_delay_factor = 3;               // headroom = rate * delay * 3
  c.pfc.headroom_mtus = 0;
  c.pfc.pause_ahead_of_control = false;  // qbb-net-device.cc SendPfc: FIFO in queue 0
  // switch-mmu.cc CheckShouldPause: one PAUSE per crossing; qbb-net-device.cc Receive
  // pauses until the RESUME, ignoring the 5 us (third.cc pause_time) the frame carries.
  c.pfc.pause.style = PfcPauseStyle::kUntilResume;
  c.pfc.pause.time = Delta::from_us(5);
  c.transport.nak_interval = Delta::from_us(500);  // rdma-hw.cc NACK Generation Interval
  // rdma-hw.cc schedules no retransmission timer: loss is recovered by NAKs alone.
  c.transport.rto = Delta::zero();
  c.transport.rto_auto = false;
  // third.cc sets the hosts' ACK queue from ACK_HIGH_PRIO but never the switches'
  // AckHighPrio attribute, which stays 0: at switches ACKs share queue pg 3 with data.
  c.switch_config.ack_queue = "data";
}

// ConWeave simulator (conweave-project/conweave-ns3), run.py at 100 Gb/s.
void conweave_ns3(ScenarioConfig& c) {
  ns3_common(c);
  // run.py --buffer 9; network-load-balance.cc ConfigBufferSize(buffer_size * 1024 * 1024)
  c.switch_config.buffer_bytes = 9 * 1024 * 1024;
  c.switch_config.ecn.kmin_bytes = 100 * 1000;  // run.py KMIN_MAP: 100 KB at every rate
  c.switch_config.ecn.kmax_bytes = 400 * 1000;  // KMAX_MAP: 400 KB
  c.switch_config.ecn.reference_rate_bps = 0;
  c.switch_config.ecn.pmax = 0.2;  // PMAX_MAP 0.2
  // run.py's maps for bw = 100 list six rates; its PMAX_MAP formats the first two with
  // %d, so 20G and 50G ports mark with probability 0 below kmax.
  c.switch_config.ecn.per_rate.clear();
  for (BitsPerSec r : {gbps(20), gbps(50), gbps(100), gbps(200), gbps(250), gbps(400)})
    c.switch_config.ecn.per_rate.push_back({r, 100 * 1000, 400 * 1000, r < gbps(100) ? 0.0 : 0.2});
  c.pfc.alpha = 1.0 / 16;  // switch-mmu.cc IngressAlpha 0.0625
  // switch-mmu.cc GetPauseClasses: the count above m_pg_min_cell + m_port_min_cell (two
  // 1048 B MTUs) against alpha x (the pool less qCnt = 8 MTUs per port, less what is
  // used); GetResumeClasses: below alpha x (... - 16 B), i.e. 1 B under the threshold.
  c.pfc.guaranteed_bytes = 2 * 1048;
  c.pfc.pool_reserve_per_port_bytes = 8 * 1048;
  c.pfc.resume_offset_bytes = 1;
  c.pfc.headroom_when_pool_full =
      true;  // UpdateIngressAdmission: headroom past m_buffer_cell_limit_sp
  // switch-mmu.cc CheckEgressAdmission, checked first: an egress queue's bytes past
  // m_q_min_cell (1 + MTU) against EgressAlpha 1 x (the buffer less 8 MTUs per port, less
  // what the egress pool holds).
  c.pfc.egress_alpha = 1.0;
  c.pfc.egress_queue_min_bytes = 1 + 1048;
  c.pfc.headroom_delay_factor = 2;  // rate * delay * 2 + 2 * MTU
  c.pfc.headroom_mtus = 2;
  c.pfc.pause_ahead_of_control = false;  // qbb-net-device.cc SendPfc: FIFO in queue 0
  // switch-node.cc CheckAndSendPfc: a PAUSE for every packet admitted over the threshold,
  // carrying network-load-balance.cc's pause_time 5 us; the receiver holds 5 us from the
  // last one (qbb-net-device.cc Receive); the switch's own record lapses 5 us after its
  // last PAUSE and no RESUME follows then (switch-mmu.cc SetPause, GetResumeClasses).
  c.pfc.pause.style = PfcPauseStyle::kPerPacket;
  c.pfc.pause.time = Delta::from_us(5);
  c.transport.nak_interval = Delta::from_us(4);  // rdma-hw.cc NACKGenerationInterval 4
  // rdma-hw.cc L2Timeout 4 ms (no run script sets it); GetRto returns it without IRN. The
  // timer is rescheduled by every data packet sent (PktSent) and every ACK or NAK while data
  // is in flight (ReceiveAck).
  c.transport.rto = Delta::from_ms(4);
  c.transport.rto_auto = false;
  c.transport.rto_restarts_on_send = true;
  c.transport.rto_restarts_on_reply = true;
}

// The DCQCN settings both forks' run scripts (run.py config template) share at 100 Gb/s.
void ns3_dcqcn(DcqcnConfig& d) {
  d.model = "ns3_mlx";                             // CC_MODE 1: the *Mlx functions
  d.g = 1.0 / 256;                                 // EWMA_GAIN 0.00390625
  d.alpha_update_interval = Delta::from_us(1);     // ALPHA_RESUME_INTERVAL 1
  d.rate_decrease_interval = Delta::from_us(4);    // RATE_DECREASE_INTERVAL 4
  d.clamp_target_rate = false;                     // CLAMP_TARGET_RATE 0
  d.rate_on_first_cnp = 1.0;                       // RateOnFirstCnp attribute default
  d.rate_increase_interval = Delta::from_us(300);  // RP_TIMER 300
  d.fast_recovery_steps = 1;                       // FAST_RECOVERY_TIMES 1
  d.byte_counter_bytes = int64_t{1} << 60;         // the Mlx model has no byte counter
  d.np.cnp_delivery = CnpDelivery::kAckFlag;       // ReceiveUdp: seqh.SetCnp()
  d.np.cnp_interval = Delta::zero();               // a flag for every marked packet
}

// HPCC and TIMELY as HPCC-ns3's run.py sets them at 100 Gb/s (`--cc hp`, `--cc timely`);
// rdma-hw.cc is the same in ConWeave-ns3.
bool ns3_hpcc_timely(CcConfig& cc) {
  if (auto* hpcc = dynamic_cast<HpccSchemeConfig*>(&cc)) {
    HpccConfig& h = hpcc->cfg;
    h.eta = 0.95;                  // U_TARGET 0.95
    h.max_stage = 0;               // MI_THRESH 0: every update multiplicative
    h.rate_ai_bps = mbps(40);      // RATE_AI 10 * bw / 25 Mb/s
    h.min_rate_bps = gbps(1);      // MIN_RATE 1000Mb/s
    h.base_rtt = Delta::zero();    // GLOBAL_T 1: the topology's largest base RTT
    h.fast_react = true;           // FAST_REACT 1
    h.initial_utilisation = 1.0;   // rdma-queue-pair.cc hp.u = 1
    h.int_data_header_bytes = 42;  // int-header.cc: 5 hops x 8 B + nhop 2
    // ReceiveUdp pads an ACK to 60 B; with the 42 B INT copy the qbbHeader needs no padding:
    // 12 + 42 + IPv4 20 + PPP 14 = 88 B, 28 B more than the padded 60.
    h.int_ack_header_bytes = 28;
    return true;
  }
  if (auto* timely = dynamic_cast<TimelySchemeConfig*>(&cc)) {
    TimelyConfig& t = timely->cfg;
    t.model = "ns3";
    t.rate_ai_bps = mbps(100);       // RATE_AI 10 * bw / 10 Mb/s
    t.rate_hai_bps = mbps(500);      // RATE_HAI 50 * bw / 10 Mb/s
    t.min_rate_bps = gbps(1);        // MIN_RATE 1000Mb/s
    t.alpha = 0.875;                 // rdma-hw.cc TimelyAlpha attribute default
    t.beta = 0.8;                    // TimelyBeta
    t.t_low = Delta::from_us(50);    // TimelyTLow 50000 ns
    t.t_high = Delta::from_us(500);  // TimelyTHigh 500000 ns
    t.min_rtt = Delta::from_us(20);  // TimelyMinRtt 20000 ns
    t.timestamp_header_bytes = 8;    // int-header.cc TS mode: an 8 B send timestamp
    return true;
  }
  return false;
}

void hpcc_ns3_cc(CcConfig& cc) {
  if (ns3_hpcc_timely(cc)) return;
  auto* dcqcn = dynamic_cast<DcqcnSchemeConfig*>(&cc);
  if (!dcqcn) return;
  DcqcnConfig& d = dcqcn->cfg;
  ns3_dcqcn(d);
  d.rate_ai_bps = mbps(20);     // simulation/run.py RATE_AI 5 * bw / 25 Mb/s (bw 100)
  d.rate_hai_bps = mbps(200);   // RATE_HAI 50 * bw / 25 Mb/s
  d.min_rate_bps = mbps(1000);  // MIN_RATE 1000 Mb/s
}

void conweave_ns3_cc(CcConfig& cc) {
  if (ns3_hpcc_timely(cc)) return;
  auto* dcqcn = dynamic_cast<DcqcnSchemeConfig*>(&cc);
  if (!dcqcn) return;
  DcqcnConfig& d = dcqcn->cfg;
  ns3_dcqcn(d);
  d.rate_ai_bps = mbps(40);    // run.py ai = 10 * bw / 25 Mb/s (bw 100)
  d.rate_hai_bps = mbps(100);  // hai = 25 * bw / 25 Mb/s
  d.min_rate_bps = mbps(100);  // MIN_RATE 100Mb/s
  d.np.cnp_on_nak = true;      // rdma-hw.cc ReceiverCheckSeq: a NAK carries a CNP
}

void conweave_ns3_lb(LbConfig& lb) {
  // scratch/network-load-balance.cc: letflow_flowletTimeout = 100 us.
  if (auto* letflow = dynamic_cast<LetFlowSchemeConfig*>(&lb))
    letflow->cfg.flowlet_timeout = Delta::from_us(100);
  // network-load-balance.cc: conga_flowletTimeout 100 us, conga_dreTime 50 us,
  // conga_agingTime 500 us, conga_quantizeBit 3, conga_alpha 0.2; conga-routing.cc's
  // behaviour where it departs from the paper (model: ns3).
  if (auto* conga = dynamic_cast<CongaSchemeConfig*>(&lb)) {
    CongaConfig& c = conga->cfg;
    c.model = "ns3";
    c.flowlet_timeout = Delta::from_us(100);
    c.dre_period = Delta::from_us(50);
    c.dre_alpha = 0.2;
    c.metric_aging = Delta::from_us(500);
    c.quantization_bits = 3;
  }
  // run.py's ConWeave values for a leaf-spine are the scheme's defaults (its fat-tree
  // values are in docs/schemes/conweave.md); the simulator holds reordered packets
  // outside the buffer accounting.
  if (auto* conweave = dynamic_cast<ConWeaveSchemeConfig*>(&lb))
    conweave->cfg.reorder_buffer = "outside";
  // LBoDSN reorders "like ConWeave" (its §3.3) and was built on this simulator: the same.
  if (auto* lbodsn = dynamic_cast<LbodsnSchemeConfig*>(&lb)) lbodsn->cfg.reorder_buffer = "outside";
  // switch-node.cc DoLbDrill: m_drill_candidate 2, one remembered port per destination.
  if (auto* drill = dynamic_cast<DrillSchemeConfig*>(&lb)) drill->cfg.model = "ns3";
}

}  // namespace

const Registry<Preset>& preset_registry() {
  static const Registry<Preset> registry = [] {
    Registry<Preset> r;
    r.add("hpcc-ns3",
          "the HPCC ns-3 simulator's settings at 100 Gb/s (see docs/reference-parameters.md)",
          {hpcc_ns3, nullptr, hpcc_ns3_cc,
           // run.py ACK_HIGH_PRIO: 0 for --cc hp (and dctcp, *_vwin), 1 for dcqcn and timely.
           [](const std::string& cc) { return cc == "hpcc"; }});
    r.add("conweave-ns3",
          "the ConWeave ns-3 simulator's settings at 100 Gb/s (see docs/reference-parameters.md)",
          // qbb-net-device.cc: ack_q_idx = 0 whatever the run (ACKs never wait).
          {conweave_ns3, conweave_ns3_lb, conweave_ns3_cc, nullptr});
    return r;
  }();
  return registry;
}

AckPause resolve_ack_pause(AckPause mode, const std::string& preset, const std::string& cc) {
  if (mode != AckPause::kAuto) return mode;
  const auto* p = preset_registry().find(preset);
  return p && p->factory.acks_wait && p->factory.acks_wait(cc) ? AckPause::kWait : AckPause::kSend;
}

std::vector<std::string> preset_choices() {
  std::vector<std::string> names = preset_registry().names();
  names.insert(names.begin(), "none");
  return names;
}

void apply_preset(const std::string& name, ScenarioConfig& c) {
  const auto* preset = preset_registry().find(name);
  if (!preset && name != "none") throw ConfigError("preset: " + not_one_of(name, preset_choices()));
  c.preset = name;
  if (preset) preset->factory.apply(c);
  // Scheme parameters are made afresh, with the preset's values, for whichever scheme the
  // scenario picks (apply_preset_scheme).
  c.lb_params.reset();
  c.cc_params.reset();
  c.fc_params.reset();
}

void apply_preset_scheme(const std::string& preset, LbConfig& lb) {
  const auto* p = preset_registry().find(preset);
  if (p && p->factory.lb) p->factory.lb(lb);
}

void apply_preset_scheme(const std::string& preset, CcConfig& cc) {
  const auto* p = preset_registry().find(preset);
  if (p && p->factory.cc) p->factory.cc(cc);
}

}  // namespace rocelab
