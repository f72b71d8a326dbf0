// CONGA (Alizadeh et al., "CONGA: Distributed Congestion-Aware Load Balancing for
// Datacenters", SIGCOMM'14). Every fabric link keeps a discounting rate estimator (DRE,
// §3.5); a packet leaving its source leaf is tagged with its path and a congestion field CE
// that each hop raises to its link's quantised DRE (§3.3). The destination leaf stores the
// CE per source leaf and path (Congestion-From-Leaf) and piggybacks one of those metrics on
// packets going back, where the source leaf files it in Congestion-To-Leaf. A new flowlet
// takes the path that minimises max(local uplink DRE, remote metric) (§3.4).
//
// Paths are end-to-end choice sequences (Routing's path IDs), pinned by source routing, so
// the scheme runs unchanged on a 3-tier fat-tree: the source leaf chooses among every
// shortest path, and CE is the maximum over all its links. The paper defines CONGA for
// 2-tier leaf-spines, where a path is just the uplink (its LBTag).
//
// `model: ns3` follows ConWeave-ns3's conga-routing.cc where it departs from the paper
// (docs/schemes/conga.md lists each difference).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lb/dre.h"
#include "lb/path_feedback.h"
#include "net/load_balancer.h"
#include "net/packet_state.h"
#include "net/switch_view.h"
#include "sim/random.h"

namespace rocelab {

struct CongaConfig {
  std::string model = "paper";
  Delta flowlet_timeout = Delta::from_us(500);  // CONGA §5 (hardware default)
  // CONGA gives tau = T_dre / alpha = 160 us (§5) but not the two separately.
  Delta dre_period = Delta::from_us(16);
  double dre_alpha = 0.1;
  uint32_t quantization_bits = 3;            // Q (§3.5, §5)
  Delta metric_aging = Delta::from_ms(10);   // stale remote metrics reset (§3.3)
  uint32_t flowlet_table_entries = 1 << 16;  // §3.4: 64K entries, indexed by 5-tuple hash
};

class CongaSchemeConfig final : public LbConfig {
 public:
  void describe(ParamVisitor& v) override;
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override;
  CongaConfig cfg;
};

// The packet's CONGA header (VXLAN overlay in the paper, §3.2).
struct CongaTag {
  uint32_t path = 0;     // LBTag: the end-to-end path ID
  uint32_t fb_path = 0;  // FB_LBTag: the path the fed-back metric describes
  uint8_t ce = 0;        // congestion extent so far along the path
  uint8_t fb_metric = 0;
  uint8_t flags = 0;  // kTagged, kFeedback
};

class Conga final : public LoadBalancer {
 public:
  Conga(const SwitchView& sw, const CongaConfig& cfg);
  PortId choose_egress(const SwitchView& sw, Packet& p,
                       std::span<const PortId> candidates) override;
  bool on_receive(const SwitchView& sw, Packet& p, PortId in_port) override;
  bool wants_enqueue() const override { return ns3_; }
  void on_enqueue(const SwitchView& sw, Packet& p, PortId port) override;
  void on_dequeue(const SwitchView& sw, Packet& p, PortId port, size_t queue) override;
  void add_stats(std::vector<Stat>& out) const override;

  // For tests: the quantised DRE of `port` now.
  uint32_t local_metric(PortId port);

 private:
  static constexpr uint8_t kTagged = 1;
  static constexpr uint8_t kFeedback = 2;

  // One remote leaf, as seen from this leaf: per path, the metric it fed back to us
  // (Congestion-To-Leaf) and the metric we measured on packets from it (Congestion-From-
  // Leaf), to feed back.
  struct PathMetrics {
    Time to_updated = Time::never();
    Time from_updated = Time::never();
    uint8_t to_metric = 0;
    uint8_t from_metric = 0;
  };
  struct Remote {
    uint32_t paths = 0;
    FeedbackRoundRobin feedback;  // over the From-Leaf metrics
    std::vector<PathMetrics> metrics;
  };
  struct Flowlet {
    Time last_seen = Time::never();
    uint32_t path = 0;
  };

  void touch(Time now);
  uint64_t& dre(PortId port, Time now);  // X of the port's DRE, decayed to now
  uint32_t quantise(PortId port, uint64_t bytes) const;
  void count_bytes(const SwitchView& sw, Packet& p, PortId port);
  Remote& remote(uint32_t edge_index);
  bool aged(Time updated, Time now) const;
  bool flowlet_expired(const Flowlet& f, Time now) const;
  uint32_t best_path(Remote& r, std::span<const PortId> hops, uint32_t current, Time now);
  void add_feedback(Packet& p, uint32_t dst_edge_index, Time now);
  void on_arrival_from_fabric(Packet& p, Time now);

  const SwitchView sw_;
  CongaConfig cfg_;
  bool ns3_ = false;
  RandomStream rng_;
  PacketField<CongaTag> tag_;
  uint32_t self_ = 0;
  bool is_edge_ = false;
  Time origin_ = Time::never();  // first CONGA packet here: phase of the DRE and aging timers
  std::vector<DiscountingRateEstimator> dre_;
  std::vector<std::unique_ptr<Remote>> remotes_;  // by edge index, made on first use
  std::vector<Flowlet> flowlets_;                 // allocated on first use
  std::vector<uint32_t> scratch_;
  uint64_t flowlets_started_ = 0;
  uint64_t path_changes_ = 0;
  uint64_t feedback_sent_ = 0;
};

}  // namespace rocelab
