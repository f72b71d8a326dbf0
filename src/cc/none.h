// Congestion control "none": every flow sends at line rate, no window. Under PFC this is
// the lossless-fabric baseline whose only brake is PAUSE.
#pragma once

#include "transport/congestion_control.h"

namespace rocelab {

class NoCongestionControl final : public CongestionControl {};

class NoCongestionControlConfig final : public CcConfig {
 public:
  std::unique_ptr<CongestionControl> build() const override {
    return std::make_unique<NoCongestionControl>();
  }
};

}  // namespace rocelab
