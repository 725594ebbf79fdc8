// Tests for runtime/node/proc_usage.h and runtime/node/group_record.h.
#include "runtime/node/proc_usage.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/node/group_record.h"

namespace weft::runtime {
namespace {

TEST(ProcUsageTest, ParsesStatWithAnAwkwardCommandName) {
  // The command name holds spaces and a ')' of its own.
  const std::string line =
      "4242 (my (odd) cmd) S 1 4240 4240 0 -1 4194560 100 0 0 0 30 12 5 3 20 0 1 0 987654 12345678 321 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  const std::optional<ProcStat> st = ParseProcStat(line);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->pid, 4242);
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->pgrp, 4240);
  EXPECT_EQ(st->cpu_ticks, 30u + 12u + 5u + 3u);
  EXPECT_EQ(st->start_ticks, 987654u);
  EXPECT_EQ(st->rss_pages, 321);
}

TEST(ProcUsageTest, RejectsTruncatedStat) {
  EXPECT_FALSE(ParseProcStat("4242 (cmd) S 1 4240").has_value());
  EXPECT_FALSE(ParseProcStat("garbage").has_value());
  EXPECT_FALSE(ParseProcStat("").has_value());
}

TEST(ProcUsageTest, ReadsThisProcess) {
  const std::optional<ProcStat> st = ReadProcStat(getpid());
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->pid, getpid());
  EXPECT_EQ(st->pgrp, getpgrp());
  EXPECT_GT(st->rss_pages, 0);
}

TEST(ProcUsageTest, SampleGroupsSumsOverMembers) {
  const absl::flat_hash_map<pid_t, GroupUsage> usage = SampleGroups({getpgrp()});
  ASSERT_TRUE(usage.contains(getpgrp()));
  const GroupUsage& mine = usage.at(getpgrp());
  EXPECT_GE(mine.live_members, 1);
  EXPECT_GE(mine.rss_bytes, ReadProcStat(getpid())->rss_pages * PageSizeBytes() / 2);
  EXPECT_TRUE(SampleGroups({}).empty());
}

TEST(GroupRecordTest, RoundTrips) {
  const GroupRecord record{.pgid = 1234, .start_ticks = 99, .boot_id = "abc-def"};
  const std::optional<GroupRecord> back = ParseGroupRecord(FormatGroupRecord(record));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->pgid, 1234);
  EXPECT_EQ(back->start_ticks, 99u);
  EXPECT_EQ(back->boot_id, "abc-def");
  const std::optional<GroupRecord> no_boot = ParseGroupRecord(FormatGroupRecord({.pgid = 7, .start_ticks = 1}));
  ASSERT_TRUE(no_boot.has_value());
  EXPECT_EQ(no_boot->boot_id, "");
}

TEST(GroupRecordTest, RejectsHalfWrittenAndDangerousRecords) {
  EXPECT_FALSE(ParseGroupRecord("").has_value());
  EXPECT_FALSE(ParseGroupRecord("12").has_value());
  EXPECT_FALSE(ParseGroupRecord("1 5 boot\n").has_value());   // init: never
  EXPECT_FALSE(ParseGroupRecord("-1 5 boot\n").has_value());  // kill(-(-1)) would signal everything
  EXPECT_FALSE(ParseGroupRecord("0 5 boot\n").has_value());   // kill(0) is our own group
}

TEST(GroupRecordTest, SlotsAreClearedReusedAndRemovedWithTheFile) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / ("weft_group_slots_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    GroupRecordSlots slots;
    ASSERT_TRUE(slots.Open(dir / "groups").ok());
    const absl::StatusOr<int> a = slots.Add({.pgid = 101, .start_ticks = 1, .boot_id = "b"});
    const absl::StatusOr<int> b = slots.Add({.pgid = 102, .start_ticks = 2, .boot_id = "b"});
    const absl::StatusOr<int> c = slots.Add({.pgid = 103, .start_ticks = 3, .boot_id = "b"});
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_EQ(std::filesystem::file_size(dir / "groups"), 3 * GroupRecordSlots::kSlotBytes);
    slots.Remove(*b);
    std::vector<GroupRecord> records = ReadGroupRecords(dir);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].pgid, 101);
    EXPECT_EQ(records[1].pgid, 103);
    // The freed slot is used again: the file does not grow with every task.
    const absl::StatusOr<int> d = slots.Add({.pgid = 104, .start_ticks = 4, .boot_id = std::string(200, 'x')});
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, *b);
    EXPECT_EQ(std::filesystem::file_size(dir / "groups"), 3 * GroupRecordSlots::kSlotBytes);
    records = ReadGroupRecords(dir);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[1].pgid, 104);
    EXPECT_EQ(records[1].start_ticks, 4u);
    EXPECT_EQ(records[1].boot_id, "");  // too long for a slot: recorded as unknown
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

TEST(GroupRecordTest, ReadsOneRecordFilesOfOlderRunnersToo) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / ("weft_group_files_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteGroupRecord(dir / "7", {.pgid = 555, .start_ticks = 9, .boot_id = "b"}).ok());
  const std::vector<GroupRecord> records = ReadGroupRecords(dir);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].pgid, 555);
  EXPECT_TRUE(ReadGroupRecords(dir / "missing").empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weft::runtime
