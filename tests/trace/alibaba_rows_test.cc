// File: tests/trace/alibaba_rows_test.cc
//
// Reading batch_task rows in both published layouts, and refusing rows that
// break the format with FILE:LINE messages.
#include "trace/alibaba_rows.h"

#include <sstream>
#include <string>

#include "core/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::vector<AlibabaTaskRow>> Read(const std::string& text) {
  std::istringstream in(text);
  return ReadAlibabaTaskRows(in, "t.csv");
}

std::string Message(const absl::Status& status) { return std::string(StatusMessage(status)); }

TEST(AlibabaRowsTest, ReadsTheNativeLayout) {
  const auto rows = Read(
      "M1,25,j_1,1,Terminated,100,130,100,0.59\r\n"
      "\n"
      "R2_1,1,j_1,1,Terminated,130,131,50,0.2\n");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  const AlibabaTaskRow& m1 = (*rows)[0];
  EXPECT_EQ(m1.line, 1u);
  EXPECT_EQ(m1.job, "j_1");
  EXPECT_EQ(m1.task, "M1");
  EXPECT_EQ(m1.status, "Terminated");
  EXPECT_EQ(m1.instances, 25);
  EXPECT_EQ(m1.start_s, 100);
  EXPECT_EQ(m1.end_s, 130);
  EXPECT_EQ(m1.plan_cpu, 100);
  EXPECT_DOUBLE_EQ(m1.plan_mem, 0.59);
  EXPECT_TRUE(IsMissing(m1.duration_s));
  EXPECT_TRUE(IsMissing(m1.avg_instance_s));
  EXPECT_EQ((*rows)[1].line, 3u);  // blank line skipped, numbering kept
}

TEST(AlibabaRowsTest, ReadsTheErdosLayoutByColumnName) {
  const auto rows = Read(
      "job_name,task_name,instance_num,status,start_time,end_time,duration,plan_cpu,plan_mem,"
      "avg_instance_duration,cpu_usage,mem_usage\n"
      "j_1292,J5_2_4,25,Terminated,404569,404843,274,100.0,0.59,128.52,2166.0,25.76\n"
      "j_1292,M1,1,Running,404569,404570,1.0,nan,,,,\n");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].line, 2u);
  EXPECT_EQ((*rows)[0].task, "J5_2_4");
  EXPECT_EQ((*rows)[0].duration_s, 274);
  EXPECT_DOUBLE_EQ((*rows)[0].avg_instance_s, 128.52);
  EXPECT_EQ((*rows)[1].status, "Running");
  EXPECT_TRUE(IsMissing((*rows)[1].plan_cpu));  // "nan"
  EXPECT_TRUE(IsMissing((*rows)[1].plan_mem));  // empty
  EXPECT_TRUE(IsMissing((*rows)[1].avg_instance_s));
}

TEST(AlibabaRowsTest, HeaderColumnsMayComeInAnyOrder) {
  const auto rows = Read(
      "task_name,job_name,status,instance_num,plan_mem,plan_cpu,start_time,end_time\n"
      "M1,j_9,Terminated,3,0.3,50,7,9\n");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].job, "j_9");
  EXPECT_EQ((*rows)[0].instances, 3);
  EXPECT_EQ((*rows)[0].plan_cpu, 50);
  EXPECT_TRUE(IsMissing((*rows)[0].duration_s));
}

TEST(AlibabaRowsTest, FormatErrorsNameTheFileAndLine) {
  const std::string header = "job_name,task_name,instance_num,status,start_time,end_time,plan_cpu,plan_mem\n";
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {header + "j,M1,1,Terminated,0,1,100,0.2\nj,M2,1,Terminated,0,1,100\n", "t.csv:3: 7 fields, expected 8"},
           {header + "j,M1,one,Terminated,0,1,100,0.2\n", "t.csv:2: instance_num \"one\" is not a number"},
           {header + "j,M1,1,Terminated,0,1,1e999,0.2\n", "t.csv:2: plan_cpu \"1e999\" is not a number"},
           {header + "j,M1,1,Terminated,-5,1,100,0.2\n", "t.csv:2: start_time -5 is negative"},
           {header + ",M1,1,Terminated,0,1,100,0.2\n", "t.csv:2: job_name is empty"},
           // Found by fuzzing (fuzz/corpus/trace_alibaba_2018/invalid_utf8_name): the converter threw.
           {header + "j\xb9,M1,1,Terminated,0,1,100,0.2\n", "t.csv:2: job_name is not valid UTF-8 (byte 1)"},
           {header + "j,M\x01,1,Terminated,0,1,100,0.2\n", "t.csv:2: task_name holds a control character"},
           {"job_name,task_name,status\n", "t.csv:1: header has no \"instance_num\" column"},
           {"job_name,job_name\n", "t.csv:1: column \"job_name\" appears twice"},
           {"a,b,c\n", "t.csv:1: neither a header"},
           {"M1,1,j,1,Terminated,0,1,100,0.2\nM2,1,j\n", "t.csv:2: 3 fields, expected 9"},
           {"", "t.csv: no rows"},
       }) {
    const auto rows = Read(c.text);
    ASSERT_FALSE(rows.ok()) << c.text;
    EXPECT_TRUE(absl::IsInvalidArgument(rows.status()));
    EXPECT_THAT(Message(rows.status()), HasSubstr(c.message)) << c.text;
  }
}

TEST(AlibabaRowsTest, MissingFileIsInvalidArgument) {
  const auto rows = ReadAlibabaTaskRowsFile("/nonexistent/batch_task.csv");
  ASSERT_FALSE(rows.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(rows.status()));
  EXPECT_THAT(Message(rows.status()), HasSubstr("/nonexistent/batch_task.csv: cannot open"));
}

}  // namespace
}  // namespace weft
