// Congestion control "none": every flow sends at line rate, no window. Under PFC this is
// the lossless-fabric baseline whose only brake is PAUSE.
#pragma once

#include "transport/congestion_control.h"

namespace rocelab {

class NoCongestionControl final : public CongestionControl {};

}  // namespace rocelab
