#include "fc/fc_registry.h"

#include "fc/bfc.h"
#include "fc/sfq.h"
#include "fc/strict_priority.h"
#include "net/drr_scheduler.h"
#include "net/pfc.h"

namespace rocelab {

const Registry<FlowControlFactory>& fc_registry() {
  static const Registry<FlowControlFactory> registry = [] {
    Registry<FlowControlFactory> r;
    r.add("pfc", "IEEE 802.1Qbb priority flow control: lossless",
          [] { return std::make_shared<PfcConfigFactory>(true); });
    r.add("none", "no PFC: lossy shared buffer, the loss recovery resends (transport.recovery)",
          [] { return std::make_shared<PfcConfigFactory>(false); });
    r.add("bfc",
          "BFC (Goyal et al., NSDI'22): per-hop per-flow pauses by bloom filter, dynamic "
          "physical queues, PFC as the backstop",
          [] { return std::make_shared<BfcConfig>(); });
    r.add("sfq",
          "stochastic fair queueing: flows hashed into `queues` DRR queues per port, PFC "
          "(BFC §4.1 DCQCN+Win+SFQ; with 1000 queues and a huge buffer its Ideal-FQ)",
          [] { return std::make_shared<SfqConfig>(); });
    return r;
  }();
  return registry;
}

const Registry<SchedulerFactory>& scheduler_registry() {
  static const Registry<SchedulerFactory> registry = [] {
    Registry<SchedulerFactory> r;
    r.add("drr", "deficit round robin among data queues, one MTU frame per round (default)",
          [] { return std::make_shared<DrrSchedulerConfig>(); });
    r.add("strict", "strict priority: the highest-numbered ready queue sends first",
          [] { return std::make_shared<StrictPrioritySchedulerConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
