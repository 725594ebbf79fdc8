// Tests for ContainerPool (policy/common/container_pool): the job-side book
// of held containers, driven through a fake Context that knows a set of
// containers and accepts or refuses launches.
#include "policy/common/container_pool.h"

#include <vector>

#include "fake_container_context.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

Resources R(double cpu, double mem) { return *Resources::FromUnits({cpu, mem, 0, 0}); }

using FakeContext = FakeContainerContext;

TaskRef T(uint32_t i) { return TaskRef{JobId(0), 0, i}; }

TEST(ContainerPoolTest, LaunchFillsTheLowestIdContainerFirstAndEndedFreesRoom) {
  FakeContext ctx;
  ContainerPool pool;
  // Granted out of order: the pool still keeps id order.
  pool.Add(ctx.Grant(7, R(2, 4)));
  pool.Add(ctx.Grant(3, R(2, 4)));
  ASSERT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.entries()[0].id, ContainerId(3));

  EXPECT_EQ(pool.Launch(ctx, T(0), R(1, 1)), ContainerId(3));
  EXPECT_EQ(pool.Launch(ctx, T(1), R(1, 1)), ContainerId(3));
  EXPECT_EQ(pool.Launch(ctx, T(2), R(1, 1)), ContainerId(7));  // 3 is out of cores
  EXPECT_EQ(pool.Find(ContainerId(3))->tasks, 2u);
  EXPECT_EQ(pool.Find(ContainerId(3))->in_use, R(2, 2));
  EXPECT_EQ(pool.TotalInUse(), R(3, 3));
  EXPECT_EQ(pool.TotalSize(), R(4, 8));
  ASSERT_EQ(ctx.launched.size(), 3u);
  EXPECT_EQ(ctx.launched[2].second, ContainerId(7));

  pool.Ended(ContainerId(3), R(1, 1));
  EXPECT_EQ(pool.FirstFit(R(1, 1), ctx), ContainerId(3));
  EXPECT_EQ(pool.Launch(ctx, T(3), R(1, 1)), ContainerId(3));
}

TEST(ContainerPoolTest, NothingFitsGivesInvalidAndChangesNothing) {
  FakeContext ctx;
  ContainerPool pool;
  EXPECT_FALSE(pool.Launch(ctx, T(0), R(1, 1)).valid());  // holds nothing
  pool.Add(ctx.Grant(0, R(2, 4)));
  EXPECT_FALSE(pool.Launch(ctx, T(0), R(1, 5)).valid());  // memory
  EXPECT_FALSE(pool.Holds(R(3, 1), 0));
  EXPECT_TRUE(pool.Holds(R(2, 4), 0));
  EXPECT_TRUE(pool.Holds(R(3, 1), MaskOf(kCpu)));  // a policy that does not fit cpu (`fit`)
  ctx.refuse = true;
  EXPECT_FALSE(pool.Launch(ctx, T(0), R(1, 1)).valid());
  EXPECT_EQ(pool.Find(ContainerId(0))->tasks, 0u);
  EXPECT_TRUE(ctx.launched.empty());
}

TEST(ContainerPoolTest, SkipsContainersThePlatformNoLongerHas) {
  // A container dies with its machine before OnContainerLost arrives: the
  // pool still holds it but must not launch there.
  FakeContext ctx;
  ContainerPool pool;
  pool.Add(ctx.Grant(0, R(2, 4)));
  pool.Add(ctx.Grant(1, R(2, 4)));
  ctx.containers.erase(0);
  EXPECT_EQ(pool.Launch(ctx, T(0), R(1, 1)), ContainerId(1));
  EXPECT_TRUE(pool.Remove(ContainerId(0)));
  EXPECT_FALSE(pool.Remove(ContainerId(0)));
  pool.Ended(ContainerId(0), R(1, 1));  // an end in a forgotten container: ignored
  EXPECT_EQ(pool.size(), 1u);
}

TEST(ContainerPoolTest, IdleListsContainersWithoutTasks) {
  FakeContext ctx;
  ContainerPool pool;
  pool.Add(ctx.Grant(0, R(1, 1)));
  pool.Add(ctx.Grant(1, R(1, 1)));
  pool.Add(ctx.Grant(2, R(1, 1)));
  pool.Launch(ctx, T(0), R(1, 1));
  EXPECT_EQ(pool.Idle(), (std::vector<ContainerId>{ContainerId(1), ContainerId(2)}));
  pool.Add(ctx.Grant(1, R(5, 5)));  // already held: unchanged
  EXPECT_EQ(pool.Find(ContainerId(1))->size, R(1, 1));
}

TEST(ContainerPoolTest, ResourcesRoundTripThroughAMessageList) {
  const Resources r = *Resources::FromUnits({1.5, 8, 12, 312.5});
  EXPECT_EQ(DecodeResources(EncodeResources(r)), r);
  EXPECT_EQ(EncodeResources(r).size(), static_cast<size_t>(kNumResources));
  // Short lists read as zero for the rest; negative entries as zero.
  const std::vector<int64_t> short_list = {2'000'000, -5};
  EXPECT_EQ(DecodeResources(short_list), R(2, 0));
}

}  // namespace
}  // namespace weft::policy
