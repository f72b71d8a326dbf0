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

  // Each lane releases the next lane's objects, then takes as many again: from the ones it
  // released, with no new object made.
  const size_t made = pool.capacity();
  threads.clear();
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    threads.emplace_back([&, lane] {
      tls_sim_lane = lane + 1;
      for (const uint32_t idx : taken[(lane + 1) % kLanes]) pool.release(idx);
      for (uint32_t i = 0; i < kEach; ++i) pool[pool.alloc()].owner = 100 + lane;
      tls_sim_lane = 0;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pool.in_use(), size_t{kLanes} * kEach);
  EXPECT_EQ(pool.capacity(), made);
  std::vector<uint32_t> owners(kLanes, 0);
  for (const uint32_t idx : all) ++owners[pool[idx].owner - 100];
  EXPECT_EQ(owners, std::vector<uint32_t>(kLanes, kEach));
}

}  // namespace
}  // namespace rocelab
