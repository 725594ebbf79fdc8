#include "core/paged_store.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace weft {
namespace {

using Store = PagedStore<std::string, 2>;  // pages of 4

Store Numbers(int n) {
  Store s(std::string("freed"));
  for (int i = 0; i < n; ++i) s.push_back(std::to_string(i));
  return s;
}

TEST(PagedStoreTest, ReadsAsAVectorIndexedById) {
  Store s = Numbers(10);
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0], "0");
  EXPECT_EQ(s[9], "9");
  EXPECT_EQ(s.back(), "9");
  EXPECT_EQ(s.held_pages(), 3u);
  s[3] = "three";
  EXPECT_EQ(s[3], "three");
  EXPECT_EQ(std::count_if(s.begin(), s.end(), [](const std::string& x) { return x.size() == 1; }), 9);
}

TEST(PagedStoreTest, ElementsNeverMoveAsItGrows) {
  Store s = Numbers(1);
  const std::string* first = &s[0];
  for (int i = 1; i < 100; ++i) s.push_back("x");
  EXPECT_EQ(&s[0], first);
}

TEST(PagedStoreTest, AFreedIdReadsAsTheFreedValueAndItsFullPageGoes) {
  Store s = Numbers(10);
  s.Free(1);
  EXPECT_TRUE(s.freed(1));
  EXPECT_FALSE(s.freed(2));
  EXPECT_EQ(s[1], "freed");  // at once, not only once its page goes
  EXPECT_EQ(s.held_pages(), 3u);
  for (int i : {0, 2, 3}) s.Free(i);
  EXPECT_EQ(s.held_pages(), 2u) << "page 0 holds only freed ids";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s[i], "freed");
  EXPECT_EQ(s[4], "4");
  EXPECT_EQ(s.first_held(), 4u);
  s.Free(2);  // twice: nothing
  EXPECT_EQ(s.freed_count(), 4u);
}

TEST(PagedStoreTest, ThePartialLastPageStaysUntilFullAndIdsAreNeverReused) {
  Store s = Numbers(6);
  s.Free(4);
  s.Free(5);
  EXPECT_EQ(s.held_pages(), 2u);
  s.push_back("6");
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s[6], "6");
  EXPECT_EQ(s[4], "freed");
  s.push_back("7");
  s.Free(6);
  s.Free(7);
  EXPECT_EQ(s.held_pages(), 1u);
  s.push_back("8");  // a new page, a new id
  EXPECT_EQ(s.size(), 9u);
  EXPECT_EQ(s[8], "8");
  EXPECT_EQ(s.held_pages(), 2u);
}

TEST(PagedStoreTest, MemoryFollowsTheIdsHeldNotTheIdsEverAdded) {
  Store s(std::string("freed"));
  for (int i = 0; i < 100'000; ++i) {
    s.push_back(std::to_string(i));
    if (i >= 10) s.Free(i - 10);  // keep the last 10
  }
  EXPECT_EQ(s.size(), 100'000u);
  EXPECT_LE(s.held_pages(), 4u);
  EXPECT_EQ(s[0], "freed");
  EXPECT_EQ(s[99'999], "99999");
  EXPECT_EQ(s[99'990], "99990");
}

TEST(PagedStoreTest, CopiesAndMovesKeepWhatIsFreed) {
  Store s = Numbers(9);
  for (int i = 0; i < 5; ++i) s.Free(i);
  const Store copy = s;
  EXPECT_EQ(copy.size(), 9u);
  EXPECT_EQ(copy.held_pages(), 2u);
  EXPECT_EQ(copy[4], "freed");
  EXPECT_EQ(copy[5], "5");
  EXPECT_TRUE(copy.freed(0));
  Store moved = std::move(s);
  EXPECT_EQ(moved[8], "8");
  EXPECT_EQ(moved[0], "freed");
  EXPECT_TRUE(s.empty());  // NOLINT(bugprone-use-after-move): a moved-from store is empty
}

TEST(PagedStoreTest, SortsAndResizesAsAVector) {
  Store s;
  for (const char* x : {"c", "a", "e", "b", "d"}) s.push_back(x);
  std::stable_sort(s.begin(), s.end());
  EXPECT_EQ(s[0], "a");
  EXPECT_EQ(s[4], "e");
  s.resize(2);
  EXPECT_EQ(s.size(), 2u);
  s.resize(6);
  EXPECT_EQ(s[5], "");
}

TEST(PagedStoreTest, CapacityIsReachedExactlyWhenThePageTableWouldGrow) {
  Store s;
  s.reserve(10);
  EXPECT_GE(s.capacity(), 10u);
  const size_t cap = s.capacity();
  for (size_t i = 0; i < cap; ++i) s.push_back("x");
  EXPECT_EQ(s.size(), s.capacity());
}

// A move-only element (the engine's per-job run state): a freed id reads as
// T{}, a page of freed ids goes, and popping into a freed page brings back
// stubs.
TEST(PagedStoreTest, HoldsMoveOnlyElements) {
  PagedStore<std::unique_ptr<int>, 2> s;  // pages of 4
  for (int i = 0; i < 8; ++i) s.push_back(std::make_unique<int>(i));
  EXPECT_EQ(s.held_pages(), 2u);
  for (size_t i = 0; i < 4; ++i) s.Free(i);
  EXPECT_EQ(s.held_pages(), 1u);
  EXPECT_EQ(std::as_const(s)[2], nullptr);
  ASSERT_NE(s[5], nullptr);
  EXPECT_EQ(*s[5], 5);
  s.Free(6);
  EXPECT_EQ(std::as_const(s)[6], nullptr);
  s.resize(3);  // drops the held page, then pops into the freed one
  EXPECT_EQ(s.size(), 3u);
  EXPECT_TRUE(s.freed(2));
  s.push_back(std::make_unique<int>(42));
  EXPECT_EQ(*s[3], 42);
}

}  // namespace
}  // namespace weft
