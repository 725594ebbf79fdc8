// File: tests/policy/slot_book_test.cc
//
// SlotBook: counts per machine, per job and per (job, machine) follow starts
// and ends; entries that fall to zero leave the book, and ForEachPlaced
// reports exactly the (job, machine, kind) triples that run tasks.
#include "policy/common/slot_book.h"

#include <set>
#include <tuple>

#include "gtest/gtest.h"

namespace weft::policy {
namespace {

using Placed = std::set<std::tuple<uint32_t, uint32_t, SlotKind, uint32_t>>;

Placed PlacedOf(const SlotBook& book) {
  Placed out;
  book.ForEachPlaced([&](JobId job, MachineId m, SlotKind kind, uint32_t count) {
    EXPECT_TRUE(out.emplace(job.value(), m.value(), kind, count).second) << "reported twice";
  });
  return out;
}

TEST(SlotBookTest, CountsFollowStartsAndEnds) {
  SlotBook book(3);
  book.Start(JobId(7), MachineId(2), SlotKind::kMap);
  book.Start(JobId(7), MachineId(2), SlotKind::kMap);
  book.Start(JobId(7), MachineId(1), SlotKind::kReduce);
  book.Start(JobId(4), MachineId(2), SlotKind::kReduce);
  EXPECT_EQ(book.on_machine(MachineId(2), SlotKind::kMap), 2u);
  EXPECT_EQ(book.on_machine(MachineId(2), SlotKind::kReduce), 1u);
  EXPECT_EQ(book.of_job(JobId(7), SlotKind::kMap), 2u);
  EXPECT_EQ(book.of_job(JobId(7), SlotKind::kReduce), 1u);
  EXPECT_EQ(book.of_job_on(JobId(7), MachineId(2), SlotKind::kMap), 2u);
  EXPECT_EQ(book.of_job_on(JobId(7), MachineId(0), SlotKind::kMap), 0u);
  book.End(JobId(7), MachineId(2), SlotKind::kMap);
  EXPECT_EQ(book.of_job_on(JobId(7), MachineId(2), SlotKind::kMap), 1u);
  EXPECT_EQ(book.on_machine(MachineId(2), SlotKind::kMap), 1u);
}

TEST(SlotBookTest, ForEachPlacedReportsOnlyWhereTasksRun) {
  SlotBook book(4);
  EXPECT_TRUE(PlacedOf(book).empty());
  book.Start(JobId(1), MachineId(0), SlotKind::kMap);
  book.Start(JobId(1), MachineId(0), SlotKind::kMap);
  book.Start(JobId(1), MachineId(0), SlotKind::kReduce);
  book.Start(JobId(9), MachineId(3), SlotKind::kReduce);
  book.Start(JobId(9), MachineId(1), SlotKind::kMap);
  EXPECT_EQ(PlacedOf(book), (Placed{{1, 0, SlotKind::kMap, 2},
                                    {1, 0, SlotKind::kReduce, 1},
                                    {9, 3, SlotKind::kReduce, 1},
                                    {9, 1, SlotKind::kMap, 1}}));
  // A kind that falls to zero is not reported; a pair with nothing left leaves.
  book.End(JobId(1), MachineId(0), SlotKind::kReduce);
  book.End(JobId(9), MachineId(1), SlotKind::kMap);
  EXPECT_EQ(PlacedOf(book), (Placed{{1, 0, SlotKind::kMap, 2}, {9, 3, SlotKind::kReduce, 1}}));
  EXPECT_EQ(book.of_job(JobId(9), SlotKind::kMap), 0u);
}

}  // namespace
}  // namespace weft::policy
