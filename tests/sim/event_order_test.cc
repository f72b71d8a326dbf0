// The canonical event order (DESIGN.md): time, then the logical process (LP) that scheduled
// the event, then that LP's own count. Nothing in it depends on the order in which LPs ran,
// which is what lets a run be spread over threads and give the same bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/simulator.h"

namespace rocelab {
namespace {

// Logs "name@time/lp" for each event it gets; on kind 1 it schedules `arg` events at
// now + 10 for itself (so their order among equal times shows the scheduling LP).
struct Logger {
  Simulator* sim = nullptr;
  std::string name;
  std::vector<std::string>* log = nullptr;
  uint32_t id = 0;
  void on_event(uint32_t kind, uint64_t arg) {
    log->push_back(name + "@" + std::to_string(sim->now().ps) + "/" +
                   std::to_string(sim->current_lp()) + ":" + std::to_string(arg));
    if (kind == 1)
      for (uint64_t i = 0; i < arg; ++i) sim->schedule(sim->now() + Delta{10}, id, 0, 100 + i);
  }
};

TEST(EventOrder, EqualTimesOrderBySchedulingLpThenItsCountNotByInsertion) {
  // Two runs whose LPs schedule the same events in opposite interleavings.
  auto run = [](bool lp7_first) {
    Simulator sim;
    std::vector<std::string> log;
    Logger a{&sim, "a", &log}, b{&sim, "b", &log};
    a.id = sim.add_handler(&a, 3);
    b.id = sim.add_handler(&b, 7);
    auto by3 = [&] { sim.schedule(Time{50}, a.id, 0, 1), sim.schedule(Time{50}, b.id, 0, 2); };
    auto by7 = [&] { sim.schedule(Time{50}, b.id, 0, 3), sim.schedule(Time{50}, a.id, 0, 4); };
    if (lp7_first) {
      sim.run_as(7, by7);
      sim.run_as(3, by3);
    } else {
      sim.run_as(3, by3);
      sim.run_as(7, by7);
    }
    sim.run_until(Time::never());
    return log;
  };
  const std::vector<std::string> want{"a@50/3:1", "b@50/7:2", "b@50/7:3", "a@50/3:4"};
  EXPECT_EQ(run(false), want);
  EXPECT_EQ(run(true), want) << "the order must not follow the insertion order";
}

TEST(EventOrder, AnEventRunsAtItsHandlersLpOrWhereItWasScheduled) {
  Simulator sim;
  std::vector<std::string> log;
  Logger node{&sim, "node", &log}, shared{&sim, "shared", &log};
  node.id = sim.add_handler(&node, 2);
  shared.id = sim.add_handler(&shared);  // kAnyLp: serves several nodes
  EXPECT_EQ(sim.current_lp(), kGlobalLp);
  sim.schedule(Time{5}, shared.id, 0, 0);  // scheduled at setup: the global LP
  sim.schedule(Time{10}, node.id, 1, 1);   // runs at LP 2, and schedules itself from there
  // Scheduled by LP 9, which sorts before the global LP at the same time.
  sim.run_as(9, [&] { sim.schedule(Time{10}, shared.id, 0, 7); });
  sim.schedule_on(4, Time{30}, shared.id, 0, 8);
  sim.run_until(Time::never());
  EXPECT_EQ(log, (std::vector<std::string>{"shared@5/" + std::to_string(kGlobalLp) + ":0",
                                           "shared@10/9:7", "node@10/2:1", "node@20/2:100",
                                           "shared@30/4:8"}));
  EXPECT_EQ(sim.current_lp(), kGlobalLp) << "outside events the global LP again";
}

TEST(EventOrder, AReservedNumberKeepsTheReservingLpsPlace) {
  Simulator sim;
  std::vector<std::string> log;
  Logger x{&sim, "x", &log}, y{&sim, "y", &log};
  x.id = sim.add_handler(&x, 1);
  y.id = sim.add_handler(&y, 5);
  uint64_t reserved = 0;
  sim.run_as(1, [&] { reserved = sim.reserve_seq(); });
  EXPECT_EQ(Simulator::origin_lp(reserved), 1u);
  sim.run_as(1, [&] { sim.schedule(Time{40}, y.id, 0, 2); });  // LP 1's second number
  sim.run_as(0, [&] { sim.schedule(Time{40}, y.id, 0, 3); });  // LP 0 sorts first
  sim.schedule_reserved(Time{40}, reserved, x.id, 0, 1);       // queued last, LP 1's first
  sim.run_until(Time::never());
  EXPECT_EQ(log, (std::vector<std::string>{"y@40/5:3", "x@40/1:1", "y@40/5:2"}));
}

}  // namespace
}  // namespace rocelab
