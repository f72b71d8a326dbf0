// Congestion control "none": every flow sends at line rate, no window. Under PFC this is
// the lossless-fabric baseline whose only brake is PAUSE.
#pragma once

#include "transport/congestion_control.h"

namespace rocelab {

class NoCongestionControl final : public CongestionControl {};

class NoCongestionControlConfig final : public CcConfig {
 public:
  void describe(ParamVisitor& v) override { describe_window_cap(v); }
  std::unique_ptr<CongestionControl> build() const override {
    return with_window_cap(std::make_unique<NoCongestionControl>());
  }
};

}  // namespace rocelab
