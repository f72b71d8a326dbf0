// The lane of the running thread: 0 outside a parallel run's windows (a serial run, setup,
// the global LP), else 1 + the index of the partition the thread is running. Shared state
// that a parallel run splits per partition (the packet pool's free lists) picks its part by
// it, so the model code does not know it runs in parallel.
#pragma once

#include <cstdint>

namespace rocelab {

inline thread_local uint32_t tls_sim_lane = 0;

}  // namespace rocelab
