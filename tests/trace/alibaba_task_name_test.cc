// File: tests/trace/alibaba_task_name_test.cc
//
// The task-name encoding of Alibaba cluster-trace-v2018 (trace_2018.md
// section 2.3), including the malformed names found in the published data.
#include "trace/alibaba_task_name.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(AlibabaTaskNameTest, RootHasANumberAndNoParents) {
  const auto name = ParseAlibabaTaskName("M1");
  ASSERT_TRUE(name.has_value());
  EXPECT_FALSE(name->independent);
  EXPECT_EQ(name->id, 1u);
  EXPECT_THAT(name->parents, IsEmpty());
}

TEST(AlibabaTaskNameTest, ParentsFollowTheNumberInOrder) {
  const auto name = ParseAlibabaTaskName("J5_2_4");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->id, 5u);
  EXPECT_THAT(name->parents, ElementsAre(2u, 4u));
  // The letters carry no meaning, and there may be several of them.
  const auto long_prefix = ParseAlibabaTaskName("MergeTask12_3");
  ASSERT_TRUE(long_prefix.has_value());
  EXPECT_EQ(long_prefix->id, 12u);
  EXPECT_THAT(long_prefix->parents, ElementsAre(3u));
}

TEST(AlibabaTaskNameTest, RepeatedAndSelfParentsAreReportedAsWritten) {
  // The parser reports what the name says; the job builder decides (merge, cycle).
  const auto name = ParseAlibabaTaskName("R3_1_1_3");
  ASSERT_TRUE(name.has_value());
  EXPECT_THAT(name->parents, ElementsAre(1u, 1u, 3u));
}

TEST(AlibabaTaskNameTest, TaskPrefixNamesAnIndependentTask) {
  const auto name = ParseAlibabaTaskName("task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==");
  ASSERT_TRUE(name.has_value());
  EXPECT_TRUE(name->independent);
  EXPECT_THAT(name->parents, IsEmpty());
}

TEST(AlibabaTaskNameTest, MalformedNamesAreRefused) {
  for (const char* bad : {"", "M", "1", "_1", "M1_", "J30_4_5_", "R4_2_Stg9", "M1__2", "M1_x", "M 1", "task_",
                          "M99999999999", "M1_99999999999", "M1-2"}) {
    EXPECT_FALSE(ParseAlibabaTaskName(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace weft
