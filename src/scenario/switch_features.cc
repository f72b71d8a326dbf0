#include "scenario/switch_features.h"

#include "net/ecn.h"
#include "net/int_telemetry.h"
#include "net/net_context.h"

namespace rocelab {

namespace {
class EcnFeatureConfig final : public SwitchFeatureConfig {
 public:
  explicit EcnFeatureConfig(NetCounters& counters) : counters_(counters) {}
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<RedEcnMarking>(sw, &counters_.ecn_marks);
  }

 private:
  NetCounters& counters_;
};
class IntFeatureConfig final : public SwitchFeatureConfig {
 public:
  std::unique_ptr<SwitchFeature> build(const SwitchView& sw) const override {
    return std::make_unique<IntStamping>(sw);
  }
};
}  // namespace

const Registry<SwitchFeatureFactory>& switch_feature_registry() {
  static const Registry<SwitchFeatureFactory> registry = [] {
    Registry<SwitchFeatureFactory> r;
    r.add("ecn", "RED/ECN marking at egress, the DCQCN congestion point (switch.ecn)",
          [](NetCounters& c) { return std::make_unique<EcnFeatureConfig>(c); });
    r.add("int", "in-band telemetry: each egress stamps time, tx bytes, queue, rate (HPCC)",
          [](NetCounters&) { return std::make_unique<IntFeatureConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
