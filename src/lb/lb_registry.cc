#include "lb/lb_registry.h"

#include "lb/ecmp.h"
#include "lb/letflow.h"
#include "lb/rps.h"

namespace rocelab {

const Registry<LbFactory>& lb_registry() {
  static const Registry<LbFactory> registry = [] {
    Registry<LbFactory> r;
    r.add("ecmp", "per-flow 5-tuple hash over equal-cost next hops",
          [](Switch&) { return std::make_unique<Ecmp>(); });
    r.add("rps", "random packet spraying: a random next hop per packet",
          [](Switch&) { return std::make_unique<Rps>(); });
    r.add("letflow", "flowlets (50 us gap) on random next hops (Vanini et al., NSDI'17)",
          [](Switch&) { return std::make_unique<LetFlow>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
