// Parallel runs of the simulator (issue 52): LPs spread over partitions and threads run
// their events in the serial order, so a model gives the same results on any number of
// either. The model here is a toy: LPs that keep an order-sensitive state, follow up on
// their own events (at the same picosecond too), pass messages to each other over "links"
// of unequal delays (nine walkers), and a global LP that reads every LP's state and pokes
// some of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/simulator.h"

namespace rocelab {
namespace {

constexpr uint32_t kLps = 12;
constexpr int64_t kMinDelayPs = 20000;  // the shortest link: the lookahead of any cut
constexpr int64_t kTrafficEndPs = 40'000'000;
constexpr int64_t kQuietUntilPs = 20'000'000;  // LPs 9-11 get nothing before this

struct Model;

struct Lp {
  Model* model = nullptr;
  LpId lp = 0;
  uint32_t handler = 0;
  uint64_t state = 1;
  RandomStream rng;
  TimerSlot timer;
  std::vector<std::string> log;
  std::vector<uint32_t> lanes;  // the lanes (sim/lane.h) its events ran on
  void on_event(uint32_t kind, uint64_t arg);
};

struct Global {
  Model* model = nullptr;
  uint32_t handler = 0;
  std::vector<std::string> log;
  void on_event(uint32_t kind, uint64_t arg);
};

struct Model {
  Simulator sim;
  std::vector<Lp> lps = std::vector<Lp>(kLps);
  Global global;
  size_t stop_after = 0;  // LP 4 asks for a stop at its event of this number (0: never)
  // One-way delay between two LPs: unequal, never below kMinDelayPs.
  static int64_t delay_ps(uint32_t a, uint32_t b) {
    return kMinDelayPs + static_cast<int64_t>((a * 7 + b * 3) % 5) * 7000;
  }
  Model() {
    for (uint32_t i = 0; i < kLps; ++i) {
      Lp& l = lps[i];
      l.model = this;
      l.lp = i;
      l.rng = RandomStream(5, "lp", i);
      l.handler = sim.add_handler(&l, i);
    }
    sim.set_stop_quantum(Delta{kMinDelayPs});
    global.model = this;
    global.handler = sim.add_handler(&global, kGlobalLp);
    for (uint32_t i = 0; i < 9; ++i)
      sim.schedule(Time{int64_t(i % 3) * 1500}, lps[i].handler, 0, i);
    sim.schedule(Time{2'500'000}, global.handler, 0, 0);
  }
};

void Lp::on_event(uint32_t kind, uint64_t arg) {
  Simulator& sim = model->sim;
  const Time now = sim.now();
  if (std::find(lanes.begin(), lanes.end(), tls_sim_lane) == lanes.end())
    lanes.push_back(tls_sim_lane);
  log.push_back(std::to_string(now.ps) + " k" + std::to_string(kind) + " " + std::to_string(arg) +
                " s" + std::to_string(state));
  state = state * 1000003 + arg + kind;
  if (lp == 4 && log.size() == model->stop_after) sim.stop();
  if (kind == 3) sim.timer_fired(timer, arg, handler, 3);
  // Messages (kind 0 and 1) walk on; follow-ups, timers and the global LP's pokes end there.
  if (kind >= 2 || now.ps >= kTrafficEndPs) return;
  // A message to another LP, over its link; one in four takes its number now and is queued
  // from a later event of this LP (as a port's deliveries are).
  uint32_t to = static_cast<uint32_t>(rng.below(kLps - 1));
  if (to >= lp) ++to;
  if (to >= 9 && now.ps < kQuietUntilPs) to = to % 9 == lp ? (lp + 1) % 9 : to % 9;
  const Time arrival = now + Delta{Model::delay_ps(lp, to)};
  const uint64_t payload = rng.below(1000);
  if (rng.below(4) == 0) {
    const uint64_t seq = sim.reserve_seq();
    sim.schedule_reserved_on(to, arrival, seq, model->lps[to].handler, 1, payload);
  } else {
    sim.schedule(arrival, model->lps[to].handler, 1, payload);
  }
  // A follow-up of its own, sometimes at this very picosecond.
  if (rng.below(2) == 0)
    sim.schedule(now + Delta{int64_t(rng.below(3)) * 400}, handler, 2, state % 97);
  // A timer, re-armed later or earlier.
  if (rng.below(3) == 0) sim.arm(timer, now + Delta{int64_t(rng.below(5000))}, handler, 3);
}

void Global::on_event(uint32_t, uint64_t arg) {
  Simulator& sim = model->sim;
  EXPECT_EQ(tls_sim_lane, 0u) << "global events run outside the partitions' lanes";
  uint64_t sum = 0;
  for (const Lp& l : model->lps) sum += l.state;
  log.push_back(std::to_string(sim.now().ps) + " " + std::to_string(sum));
  // A scripted event acting on two LPs at once (as a fault does), at this picosecond.
  sim.schedule(sim.now(), model->lps[arg % kLps].handler, 4, sum % 13);
  sim.schedule(sim.now() + Delta{10}, model->lps[(arg + 5) % kLps].handler, 4, sum % 7);
  if (sim.now().ps < kTrafficEndPs) sim.schedule(sim.now() + Delta{2'500'000}, handler, 0, arg + 1);
}

struct Outcome {
  std::vector<std::vector<std::string>> logs;
  std::vector<std::string> global_log;
  uint64_t events = 0;
  int64_t end_ps = 0;
  bool operator==(const Outcome&) const = default;
};

// `partitions` 0: serial. `blocked`: LPs in runs of neighbours, else round robin.
Outcome run(uint32_t partitions, uint32_t threads, bool blocked = false,
            Time stop_at = Time::never(), size_t stop_after = 0) {
  Model m;
  m.stop_after = stop_after;
  if (partitions > 0) {
    std::vector<uint32_t> part(kLps);
    for (uint32_t i = 0; i < kLps; ++i) part[i] = blocked ? i * partitions / kLps : i % partitions;
    m.sim.set_partitions(part, partitions, Delta{kMinDelayPs}, threads);
  }
  if (stop_at != Time::never()) m.sim.run_until(stop_at);
  m.sim.run_until(Time::never());
  Outcome o;
  if (stop_after > 0) {
    // Stopped where the stop quantum's grid says, wherever the asking LP ran.
    EXPECT_TRUE(m.sim.stopped());
    EXPECT_EQ(m.sim.stop_time().ps % kMinDelayPs, 0);
    EXPECT_GE(m.sim.stop_time().ps, m.sim.now().ps);
    o.events = m.sim.events_processed();
    o.end_ps = m.sim.now().ps;
    for (const Lp& l : m.lps) o.logs.push_back(l.log);
    o.global_log = m.global.log;
    return o;
  }
  for (uint32_t i = 0; i < kLps; ++i) {
    const uint32_t lane =
        partitions == 0 ? 0 : (blocked ? i * partitions / kLps : i % partitions) + 1;
    EXPECT_EQ(m.lps[i].lanes, std::vector<uint32_t>{lane}) << "LP " << i;
  }
  for (const Lp& l : m.lps) o.logs.push_back(l.log);
  o.global_log = m.global.log;
  o.events = m.sim.events_processed();
  o.end_ps = m.sim.now().ps;
  if (partitions > 1) {
    const ParallelProfile& prof = m.sim.parallel_profile();
    EXPECT_GT(prof.windows, 100u);
    EXPECT_EQ(prof.node_events + prof.global_events, o.events);
    EXPECT_LE(prof.critical_path_events, prof.node_events);
    EXPECT_GE(prof.critical_path_events * partitions, prof.node_events);
  }
  return o;
}

TEST(ParallelRun, TheSameEventsInTheSameOrderOnAnyPartitionsAndThreads) {
  const Outcome serial = run(0, 1);
  ASSERT_GT(serial.events, 15000u);
  ASSERT_GE(serial.global_log.size(), 16u);
  for (uint32_t lp = 9; lp < kLps; ++lp) ASSERT_FALSE(serial.logs[lp].empty());
  for (const uint32_t partitions : {1u, 2u, 3u, 4u, 8u})
    for (const uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
      EXPECT_EQ(run(partitions, threads), serial)
          << partitions << " partitions, " << threads << " threads";
    }
  EXPECT_EQ(run(3, 2, true), serial) << "LPs in blocks";
  EXPECT_EQ(run(12, 4, true), serial) << "an LP per partition";
}

TEST(ParallelRun, ARunStoppedAndContinuedEndsTheSame) {
  const Outcome serial = run(0, 1);
  EXPECT_EQ(run(0, 1, false, Time{17'333'333}), serial);
  EXPECT_EQ(run(4, 3, false, Time{17'333'333}), serial);
}

TEST(ParallelRun, AStopTakesEffectAtTheSamePointOnAnyPartitions) {
  const Outcome serial = run(0, 1, false, Time::never(), 700);
  const Outcome full = run(0, 1);
  ASSERT_LT(serial.events, full.events);
  const Time asked{std::stoll(serial.logs[4][699])};
  size_t after_ask = 0;  // events between the ask and the stop point
  for (const auto& log : serial.logs)
    for (const std::string& line : log) after_ask += std::stoll(line) > asked.ps;
  EXPECT_GT(after_ask, 0u) << "the rest of the stop quantum ran";
  for (const uint32_t partitions : {2u, 3u, 8u})
    for (const uint32_t threads : {1u, 2u, 4u})
      EXPECT_EQ(run(partitions, threads, false, Time::never(), 700), serial)
          << partitions << " partitions, " << threads << " threads";
  // A run_until that ends after the ask and before the stop point: the stop waits for the
  // next run_until.
  ASSERT_LT(asked.ps, serial.end_ps);
  EXPECT_EQ(run(0, 1, false, asked, 700), serial);
  EXPECT_EQ(run(3, 2, false, asked, 700), serial);
}

// LP 0 sends to LP 1, in the other partition, 10 ps ahead: less than the lookahead.
void send_inside_the_window() {
  Simulator sim;
  struct Sender {
    Simulator* sim;
    uint32_t to;
    void on_event(uint32_t, uint64_t) { sim->schedule(sim->now() + Delta{10}, to, 0); }
  };
  Sender s{&sim, 0}, r{&sim, 0};
  s.to = sim.add_handler(&r, 1);
  r.to = sim.add_handler(&s, 0);
  sim.schedule(Time{0}, r.to, 0);
  sim.set_stop_quantum(Delta{1'000'000});  // windows as long as the lookahead
  sim.set_partitions({0, 1}, 2, Delta{1000}, 2);
  sim.run_until(Time{100000});
}

TEST(ParallelRun, AnEventAcrossPartitionsInsideTheWindowIsABug) {
  EXPECT_DEATH(send_inside_the_window(), "inside the window");
}

}  // namespace
}  // namespace rocelab
