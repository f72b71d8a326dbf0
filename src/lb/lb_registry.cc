#include "lb/lb_registry.h"

#include "lb/conga.h"
#include "lb/conweave.h"
#include "lb/drill.h"
#include "lb/ecmp.h"
#include "lb/flb.h"
#include "lb/lbodsn.h"
#include "lb/letflow.h"
#include "lb/proteus.h"
#include "lb/rps.h"

namespace rocelab {

namespace {
template <class Lb>
class StatelessConfig final : public LbConfig {
 public:
  std::unique_ptr<LoadBalancer> build(const SwitchView& sw) const override {
    return std::make_unique<Lb>(sw);
  }
};
}  // namespace

const Registry<LbConfigFactory>& lb_registry() {
  static const Registry<LbConfigFactory> registry = [] {
    Registry<LbConfigFactory> r;
    r.add("ecmp", "per-flow 5-tuple hash over equal-cost next hops",
          [] { return std::make_unique<EcmpConfig>(); });
    r.add("rps", "random packet spraying: a random next hop per packet (Dixit et al.)",
          [] { return std::make_unique<StatelessConfig<Rps>>(); });
    r.add("letflow", "flowlets on random next hops (Vanini et al., NSDI'17)",
          [] { return std::make_unique<LetFlowSchemeConfig>(); });
    r.add("flb",
          "FLB (ATC'25): delay-based rerouting without reordering + congested-flow isolation",
          [] { return std::make_unique<FlbSchemeConfig>(); });
    r.add("drill",
          "DRILL (Ghorbani et al., SIGCOMM'17): per packet, the least-loaded of d random ports "
          "and m remembered ones",
          [] { return std::make_unique<DrillSchemeConfig>(); });
    r.add("conga",
          "CONGA (Alizadeh et al., SIGCOMM'14): flowlets on the path of least congestion, "
          "from leaf-to-leaf feedback of per-link DREs",
          [] { return std::make_unique<CongaSchemeConfig>(); });
    r.add("conweave",
          "ConWeave (Song et al., SIGCOMM'23): RTT-probed rerouting at the source ToR, "
          "in-network reordering at the destination ToR",
          [] { return std::make_unique<ConWeaveSchemeConfig>(); });
    r.add("proteus",
          "Proteus (Hu et al., ToN'24): RTT-level path classes (delay + utilisation) for the "
          "initial path, cumulative-sojourn-time rerouting through PFC pauses (better late "
          "than never)",
          [] { return std::make_unique<ProteusSchemeConfig>(); });
    r.add("lbodsn",
          "LBoDSN (Shi et al.): PFC-pause prediction at the destination ToR, flow congestion "
          "notifications straight to the source ToR, stale-CNP discard, in-network reordering",
          [] { return std::make_unique<LbodsnSchemeConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
