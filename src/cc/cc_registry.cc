#include "cc/cc_registry.h"

#include "cc/dcqcn.h"
#include "cc/flb_rc.h"
#include "cc/hpcc.h"
#include "cc/none.h"
#include "cc/pcn.h"
#include "cc/swift.h"
#include "cc/timely.h"

namespace rocelab {

namespace {

// A rate scheme under a per-flow cap of one end-to-end BDP in flight (BFC §4.1's "+Win").
template <class Config>
std::unique_ptr<CcConfig> one_bdp_window() {
  auto c = std::make_unique<Config>();
  c->window_cap_bdp = 1;
  return c;
}

}  // namespace

const Registry<CcConfigFactory>& cc_registry() {
  static const Registry<CcConfigFactory> registry = [] {
    Registry<CcConfigFactory> r;
    r.add("none", "no congestion control: line rate, PFC is the only brake",
          [] { return std::make_unique<NoCongestionControlConfig>(); });
    r.add("dcqcn", "DCQCN reaction point (Zhu et al., SIGCOMM'15) with ECN marking and CNPs",
          [] { return std::make_unique<DcqcnSchemeConfig>(); });
    r.add("dcqcn_win",
          "DCQCN with each flow's bytes in flight capped at one end-to-end BDP (BFC §4.1 "
          "DCQCN+Win, after its ref. [22])",
          one_bdp_window<DcqcnSchemeConfig>);
    r.add("win",
          "line rate with each flow's bytes in flight capped at one end-to-end BDP (the NIC "
          "of BFC and Ideal-FQ, BFC §4.1)",
          one_bdp_window<NoCongestionControlConfig>);
    r.add("rc", "FLB minimal rate control (ATC'25 §3.3): pause on CNM, resume at C/n",
          [] { return std::make_unique<FlbRcSchemeConfig>(); });
    r.add("hpcc", "HPCC (Li et al., SIGCOMM'19): INT-driven window and rate, per-ACK reaction",
          [] { return std::make_unique<HpccSchemeConfig>(); });
    r.add("swift", "Swift (Kumar et al., SIGCOMM'20): delay-based window with hop and flow scaling",
          [] { return std::make_unique<SwiftSchemeConfig>(); });
    r.add("pcn",
          "PCN (Cheng et al., NSDI'20): NP-ECN marking, receiver-reported rates, weighted "
          "increase",
          [] { return std::make_unique<PcnSchemeConfig>(); });
    r.add("timely", "TIMELY (Mittal et al., SIGCOMM'15): rate from the RTT gradient",
          [] { return std::make_unique<TimelySchemeConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
