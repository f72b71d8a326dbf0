#include "scenario/config/switch_features.h"

#include "net/ecn.h"
#include "net/int_telemetry.h"
#include "net/net_context.h"
#include "net/np_ecn.h"

namespace rocelab {

namespace {
class EcnFeatureConfig final : public SwitchFeatureConfig {
 public:
  explicit EcnFeatureConfig(NetCounterLanes& counters) : counters_(counters) {}
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<RedEcnMarking>(sw, &counters_);
  }

 private:
  NetCounterLanes& counters_;
};
class NpEcnFeatureConfig final : public SwitchFeatureConfig {
 public:
  explicit NpEcnFeatureConfig(NetCounterLanes& counters) : counters_(counters) {}
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<NpEcnMarking>(sw, counters_);
  }

 private:
  NetCounterLanes& counters_;
};
class IntFeatureConfig final : public SwitchFeatureConfig {
 public:
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<IntStamping>(sw);
  }
};
}  // namespace

Registry<SwitchFeatureFactory>& switch_feature_registry() {
  static Registry<SwitchFeatureFactory> registry = [] {
    Registry<SwitchFeatureFactory> r;
    r.add("ecn", "RED/ECN marking at egress, the DCQCN congestion point (switch.ecn)",
          [](NetCounterLanes& c) { return std::make_unique<EcnFeatureConfig>(c); });
    r.add("np_ecn",
          "PCN's Non-PAUSE ECN: marks above switch.ecn.kmin, but not packets that waited "
          "through a PAUSE; takes the place of ecn",
          [](NetCounterLanes& c) { return std::make_unique<NpEcnFeatureConfig>(c); });
    r.add("int", "in-band telemetry: each egress stamps time, tx bytes, queue, rate (HPCC)",
          [](NetCounterLanes&) { return std::make_unique<IntFeatureConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
