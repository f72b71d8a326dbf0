// The pool in a parallel run (sim/pool.h, set_lanes): partitions allocate and release on
// their own threads, each from its own free list, and an object may be released by another
// lane than the one that took it (a packet that crossed a cut link).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "sim/lane.h"
#include "sim/pool.h"

namespace rocelab {
namespace {

struct Item {
  uint64_t owner = 0;
  uint64_t serial = 0;
};

TEST(PoolLanes, ThreadsTakeDistinctObjectsAndReleaseEachOthers) {
  constexpr uint32_t kLanes = 4;
  constexpr uint32_t kEach = 20000;  // several of the pool's chunks per lane
  Pool<Item> pool(20);
  pool.set_lanes(kLanes);
  std::vector<std::vector<uint32_t>> taken(kLanes);
  auto take = [&](uint32_t lane) {
    tls_sim_lane = lane + 1;
    for (uint32_t i = 0; i < kEach; ++i) {
      const uint32_t idx = pool.alloc();
      pool[idx] = Item{lane + 1, i};
      taken[lane].push_back(idx);
    }
    tls_sim_lane = 0;
  };
  std::vector<std::thread> threads;
  for (uint32_t lane = 0; lane < kLanes; ++lane) threads.emplace_back(take, lane);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pool.in_use(), size_t{kLanes} * kEach);
  std::vector<uint32_t> all;
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    for (uint32_t i = 0; i < kEach; ++i) {
      const uint32_t idx = taken[lane][i];
      ASSERT_EQ(pool[idx].owner, lane + 1) << "an object given to two lanes";
      ASSERT_EQ(pool[idx].serial, i);
      all.push_back(idx);
    }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());

  // Each lane releases the next lane's objects, then takes as many again: from the ones
  // released, with no new object made, each object given to one lane.
  const size_t made = pool.capacity();
  std::vector<std::vector<uint32_t>> retaken(kLanes);
  threads.clear();
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    threads.emplace_back([&, lane] {
      tls_sim_lane = lane + 1;
      for (const uint32_t idx : taken[(lane + 1) % kLanes]) pool.release(idx);
      for (uint32_t i = 0; i < kEach; ++i) {
        const uint32_t idx = pool.alloc();
        pool[idx] = Item{100 + lane, i};
        retaken[lane].push_back(idx);
      }
      tls_sim_lane = 0;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pool.in_use(), size_t{kLanes} * kEach);
  EXPECT_EQ(pool.capacity(), made);
  all.clear();
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    for (uint32_t i = 0; i < kEach; ++i) {
      const uint32_t idx = retaken[lane][i];
      ASSERT_EQ(pool[idx].owner, 100 + lane) << "an object given to two lanes";
      ASSERT_EQ(pool[idx].serial, i);
      all.push_back(idx);
    }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

// One lane takes, another releases (an incast's sender and receiver in two partitions),
// round after round: the releasing lane hands its surplus back and the taking lane reuses it,
// so the pool stops growing; without the hand-back it grew by a round's objects each round.
TEST(PoolLanes, ALaneThatOnlyReleasesHandsObjectsBack) {
  constexpr uint32_t kRound = 3000;
  Pool<Item> pool(20);
  pool.set_lanes(2);
  std::vector<uint32_t> batch;
  for (int round = 0; round < 100; ++round) {
    tls_sim_lane = 1;
    batch.clear();
    for (uint32_t i = 0; i < kRound; ++i) batch.push_back(pool.alloc());
    tls_sim_lane = 2;
    for (const uint32_t idx : batch) pool.release(idx);
  }
  tls_sim_lane = 0;
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_LE(pool.capacity(), 4 * Pool<Item>::kGrowObjects) << "100 rounds of 3,000 objects";
}

}  // namespace
}  // namespace rocelab
