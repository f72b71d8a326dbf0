// Event-queue micro-benchmark: a steady population of pending events, each pop followed by
// a push a random delay later (the hold model), as a simulation's event list behaves.
#include <benchmark/benchmark.h>

#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/simulator.h"

namespace rocelab {
namespace {

void BM_EventQueueHold(benchmark::State& state) {
  const int64_t population = state.range(0);
  EventQueue q;
  RandomStream rng(1, "bench");
  for (int64_t i = 0; i < population; ++i)
    q.push(Time{static_cast<int64_t>(rng.below(1000000))}, 0, 0, static_cast<uint64_t>(i));
  for (auto _ : state) {
    const Event e = q.pop();
    q.push(e.time + Delta{static_cast<int64_t>(1 + rng.below(1000000))}, e.target, e.kind, e.arg);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);

// The delays a fabric schedules: serialization of a 1082 B frame at 100 Gb/s (86.56 ns),
// a 1 us propagation delay, an ACK's serialization, and now and then a 55 us CC timer.
void BM_EventQueueNetworkDelays(benchmark::State& state) {
  const int64_t population = state.range(0);
  const int64_t delays[] = {86560, 1000000, 6880, 86560, 1000000, 6880, 86560, 55000000};
  EventQueue q;
  RandomStream rng(1, "bench");
  for (int64_t i = 0; i < population; ++i)
    q.push(Time{static_cast<int64_t>(rng.below(1000000))}, 0, 0, static_cast<uint64_t>(i));
  for (auto _ : state) {
    const Event e = q.pop();
    q.push(e.time + Delta{delays[rng.below(8)]}, e.target, e.kind, e.arg);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueNetworkDelays)->Arg(1024)->Arg(16384);

struct Bouncer : EventHandler {
  Simulator* sim = nullptr;
  uint32_t id = 0;
  void on_event(uint32_t kind, uint64_t arg) override {
    sim->schedule_in(Delta{static_cast<int64_t>(1000 + (arg & 1023))}, id, kind, arg * 7 + 1);
  }
};

// The whole dispatch loop: pop, virtual call, push.
void BM_SimulatorDispatch(benchmark::State& state) {
  Simulator sim;
  Bouncer b;
  b.sim = &sim;
  b.id = sim.add_handler(&b);
  for (int64_t i = 0; i < state.range(0); ++i) sim.schedule(Time{i}, b.id, 0, i);
  uint64_t events = 0;
  for (auto _ : state) {
    // About 1000 events per step: each event re-schedules itself ~1.5 ns x population later.
    const uint64_t before = sim.events_processed();
    sim.run_until(sim.now() + Delta{1500 * 1000 / state.range(0) + 1});
    events += sim.events_processed() - before;
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulatorDispatch)->Arg(1024)->Arg(16384);

}  // namespace
}  // namespace rocelab

BENCHMARK_MAIN();
