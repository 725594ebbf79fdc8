// Tests for IndexedContainerPool (policy/common/indexed_container_pool): the
// views it keeps as containers come and go and tasks are bound and end (by
// free room, idle, by load) must always be what a recomputation from the
// held containers gives, and the newly idle ones what the history of idle
// sets gives. A property test drives random sequences of grants,
// losses, releases, launches (some refused, some into containers the
// platform no longer has) and ends, and after every step compares each view
// with a brute-force walk over the entries.
#include "policy/common/indexed_container_pool.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "fake_container_context.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

Resources R(double cpu, double mem) { return *Resources::FromUnits({cpu, mem, 0, 0}); }
TaskRef T(uint32_t i) { return TaskRef{JobId(0), 0, i}; }

// Brute force: the ids WithRoom should return.
std::vector<ContainerId> RoomByWalk(const IndexedContainerPool& pool, const Resources& demand, bool idle_only) {
  std::vector<ContainerId> ids;
  for (const ContainerPool::Entry& e : pool.entries()) {
    if (idle_only && e.tasks > 0) continue;
    if (demand.FitsIn(e.size - e.in_use)) ids.push_back(e.id);
  }
  return ids;
}

// Brute force: the give-back order (fewest tasks, latest granted first).
std::vector<std::pair<uint32_t, uint32_t>> LoadByWalk(const IndexedContainerPool& pool) {
  std::vector<std::pair<uint32_t, uint32_t>> order;
  for (const ContainerPool::Entry& e : pool.entries()) order.emplace_back(e.tasks, e.id.value());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  return order;
}

void ExpectViewsMatchAWalk(const IndexedContainerPool& pool, const std::vector<Resources>& demands) {
  EXPECT_EQ(pool.CheckViews(), "");
  std::vector<uint32_t> idle;
  for (const ContainerPool::Entry& e : pool.entries()) {
    if (e.tasks == 0) idle.push_back(e.id.value());
  }
  EXPECT_EQ(std::vector<uint32_t>(pool.idle().begin(), pool.idle().end()), idle);
  using Load = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(Load(pool.by_load().begin(), pool.by_load().end()), LoadByWalk(pool));
  for (const Resources& d : demands) {
    for (bool idle_only : {false, true}) {
      EXPECT_EQ(pool.WithRoom([&](const Resources& free) { return d.FitsIn(free); }, idle_only),
                RoomByWalk(pool, d, idle_only))
          << "demand " << d.ToString() << " idle_only " << idle_only;
    }
  }
}

TEST(IndexedContainerPoolTest, FindsRoomIdleAndLoadOrder) {
  FakeContainerContext ctx;
  IndexedContainerPool pool;
  pool.Add(ctx.Grant(4, R(2, 4)));
  pool.Add(ctx.Grant(2, R(2, 4)));
  pool.Add(ctx.Grant(9, R(1, 2)));
  ASSERT_TRUE(pool.LaunchIn(ctx, T(0), R(1, 1), ContainerId(2)));
  ASSERT_TRUE(pool.LaunchIn(ctx, T(1), R(1, 1), ContainerId(2)));  // 2 is full of cores
  ASSERT_TRUE(pool.LaunchIn(ctx, T(2), R(1, 1), ContainerId(4)));
  EXPECT_FALSE(pool.LaunchIn(ctx, T(3), R(1, 3), ContainerId(9)));  // memory: nothing changes

  auto fits = [](const Resources& d) { return [d](const Resources& free) { return d.FitsIn(free); }; };
  EXPECT_EQ(pool.WithRoom(fits(R(1, 1)), false), (std::vector<ContainerId>{ContainerId(4), ContainerId(9)}));
  EXPECT_EQ(pool.WithRoom(fits(R(1, 1)), true), (std::vector<ContainerId>{ContainerId(9)}));
  EXPECT_EQ(pool.WithRoom(fits(R(2, 1)), false), (std::vector<ContainerId>{}));
  EXPECT_EQ(std::vector<uint32_t>(pool.idle().begin(), pool.idle().end()), (std::vector<uint32_t>{9}));
  // Idle first, then fewest tasks, latest granted first among equals.
  using P = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(std::vector<P>(pool.by_load().begin(), pool.by_load().end()), (std::vector<P>{{0, 9}, {1, 4}, {2, 2}}));

  pool.Ended(ContainerId(2), R(1, 1));
  pool.Ended(ContainerId(2), R(1, 1));
  EXPECT_EQ(pool.WithRoom(fits(R(2, 4)), true), (std::vector<ContainerId>{ContainerId(2)}));
  // 9 was granted idle and 2 just emptied; 4 still runs a task.
  EXPECT_EQ(std::vector<uint32_t>(pool.newly_idle().begin(), pool.newly_idle().end()), (std::vector<uint32_t>{2, 9}));
  pool.ClearNewlyIdle();
  pool.Ended(ContainerId(2), R(1, 1));  // nothing runs there: ignored, not newly idle again
  EXPECT_TRUE(pool.newly_idle().empty());
  EXPECT_TRUE(pool.Remove(ContainerId(9)));
  EXPECT_FALSE(pool.Remove(ContainerId(9)));
  EXPECT_EQ(std::vector<uint32_t>(pool.idle().begin(), pool.idle().end()), (std::vector<uint32_t>{2}));
  EXPECT_EQ(pool.CheckViews(), "");
}

// The property: after every step of a random sequence, every view equals a
// recomputation from the entries. Missing one update anywhere (a launch, an
// end, a grant of a container already running tasks, a removal) fails it.
TEST(IndexedContainerPoolTest, ViewsEqualARecomputationAfterRandomEvents) {
  const std::vector<Resources> sizes = {R(1, 2), R(2, 4), R(4, 8), R(1.5, 2)};
  const std::vector<Resources> demands = {R(1, 2), R(0.5, 1), R(1, 1), R(0.25, 0.5), R(2, 2), R(0, 0)};
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return static_cast<size_t>(std::uniform_int_distribution<size_t>(0, n - 1)(rng)); };
    FakeContainerContext ctx;
    IndexedContainerPool pool;
    // What the test launched in each container and has not ended, to end it
    // with the demand it took (as a job manager does).
    absl::flat_hash_map<uint32_t, std::vector<Resources>> running;
    uint32_t next_id = 0;
    uint32_t next_task = 0;
    // newly_idle by its definition: the containers idle now that were not
    // (or were not held) at some step since the last ClearNewlyIdle, from
    // the idle set seen after each step.
    absl::btree_set<uint32_t> was_idle;
    absl::btree_set<uint32_t> turned_idle;
    for (int step = 0; step < 400; ++step) {
      std::vector<uint32_t> held;
      for (const ContainerPool::Entry& e : pool.entries()) held.push_back(e.id.value());
      if (pick(6) == 0) {
        pool.ClearNewlyIdle();
        turned_idle.clear();
      }
      const size_t op = pick(10);
      if (op < 2 || held.empty()) {
        // A grant; now and then a container the platform already runs tasks
        // in (an owner rebuilding its book), or one granted twice.
        ContainerInfo info = ctx.Grant(next_id++, sizes[pick(sizes.size())], static_cast<uint32_t>(pick(3)));
        if (pick(5) == 0) {
          info.in_use = R(0.5, 1);
          info.tasks = 1;
          running[info.id.value()].push_back(R(0.5, 1));
        }
        pool.Add(info);
        if (pick(8) == 0) pool.Add(info);
      } else if (op < 6) {
        const uint32_t id = held[pick(held.size())];
        ctx.refuse = pick(10) == 0;
        const Resources d = demands[pick(demands.size())];
        if (pool.LaunchIn(ctx, T(next_task++), d, ContainerId(id))) running[id].push_back(d);
        ctx.refuse = false;
      } else if (op < 8) {
        const uint32_t id = held[pick(held.size())];
        auto& r = running[id];
        if (r.empty()) {
          pool.Ended(ContainerId(id), R(1, 1));  // no task there: ignored
        } else {
          const size_t k = pick(r.size());
          pool.Ended(ContainerId(id), r[k]);
          r.erase(r.begin() + static_cast<std::ptrdiff_t>(k));
        }
      } else if (op == 8) {
        // The container dies with its machine: the platform forgets it first.
        const uint32_t id = held[pick(held.size())];
        ctx.containers.erase(id);
        if (pick(2) == 0) {
          pool.Remove(ContainerId(id));
          running.erase(id);
        }
      } else {
        const uint32_t id = pick(3) == 0 ? next_id + 7 : held[pick(held.size())];  // sometimes one never held
        if (pool.Remove(ContainerId(id))) {
          ctx.containers.erase(id);
          running.erase(id);
        }
      }
      ExpectViewsMatchAWalk(pool, demands);
      absl::btree_set<uint32_t> idle_now;
      for (const ContainerPool::Entry& e : pool.entries()) {
        if (e.tasks == 0) idle_now.insert(e.id.value());
      }
      for (uint32_t id : idle_now) {
        if (!was_idle.contains(id)) turned_idle.insert(id);
      }
      absl::erase_if(turned_idle, [&](uint32_t id) { return !idle_now.contains(id); });
      was_idle = idle_now;
      EXPECT_EQ(std::vector<uint32_t>(pool.newly_idle().begin(), pool.newly_idle().end()),
                std::vector<uint32_t>(turned_idle.begin(), turned_idle.end()));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace weft::policy
