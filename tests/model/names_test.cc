// The name rules (issue 20, bug 1): control characters are refused in every
// name, a name a command substitutes must be shell-safe, substitution is one
// pass, and the expanded command must fit one exec argument.
#include "model/names.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

Workload OneJob(std::string job_name, std::string stage_name, std::string command, uint32_t tasks = 1) {
  Workload w;
  w.cluster.AddMachine("m", RackId(0), Resources::FromUnits({1, 1, 0, 0}).value());
  w.users = {"default"};
  Job job;
  job.name = std::move(job_name);
  Stage stage;
  stage.name = std::move(stage_name);
  stage.num_tasks = tasks;
  stage.command = std::move(command);
  job.stages.push_back(stage);
  w.jobs.push_back(job);
  return w;
}

TEST(ExpandCommandTest, ReplacesEachPlaceholderInOnePass) {
  EXPECT_EQ(ExpandCommand("sh -c 'echo {job} {stage} {task}'", "q3-0", "agg", 7), "sh -c 'echo q3-0 agg 7'");
  // A value is never scanned again: a name holding a placeholder stays as it is.
  EXPECT_EQ(ExpandCommand("{job}:{stage}", "x{stage}", "s{task}", 1), "x{stage}:s{task}");
  EXPECT_EQ(ExpandCommand("{{job}} {jo{task}b} {", "j", "s", 3), "{j} {jo3b} {");
  EXPECT_EQ(ExpandCommand("", "j", "s", 0), "");
}

TEST(NamesTest, RefusesControlCharactersInEveryName) {
  EXPECT_TRUE(ValidateNames(OneJob("ok", "s", "")).ok());
  for (const std::string& bad : {std::string("a\nb"), std::string("a\0b", 3), std::string("\x1b[31mred"),
                                std::string("del\x7f"), std::string("c1\xc2\x9b")}) {
    SCOPED_TRACE(EscapeForDisplay(bad));
    const absl::Status job = ValidateNames(OneJob(bad, "s", ""));
    EXPECT_TRUE(absl::IsInvalidArgument(job));
    EXPECT_THAT(job.message(), HasSubstr("control character"));
    EXPECT_FALSE(HasControlCharacter(std::string(job.message()))) << "the message itself must be printable";
    EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(OneJob("j", bad, ""))));
    Workload user = OneJob("j", "s", "");
    user.users.push_back(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(user)));
    Workload machine = OneJob("j", "s", "");
    machine.cluster.AddMachine(bad, RackId(0), Resources::FromUnits({1, 1, 0, 0}).value());
    EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(machine)));
  }
  // Printable Unicode is a name like any other.
  EXPECT_TRUE(ValidateNames(OneJob("tâche-été", "é", "")).ok());
}

TEST(NamesTest, ASubstitutedNameMustBeShellSafe) {
  for (const char* bad : {"a;rm -rf /tmp/x", "`touch /tmp/pwned`", "$(id)", "a'b", "a\"b", "a b", "x{stage}",
                          "-rf", "#x", "~root", "a|b", "a&b", "a>b", "a*", "a\\b", "é"}) {
    SCOPED_TRACE(bad);
    const absl::Status s = ValidateNames(OneJob(bad, "s", "echo {job}"));
    EXPECT_TRUE(absl::IsInvalidArgument(s));
    EXPECT_THAT(s.message(), HasSubstr("{job}"));
    EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(OneJob("j", bad, "echo '{stage}'"))));
    // Not substituted: only the control-character rule applies.
    EXPECT_TRUE(ValidateNames(OneJob(bad, "s", "echo {stage} {task}")).ok());
  }
  EXPECT_TRUE(ValidateNames(OneJob("q3-0_a.b+c:d@e,f%g#1", "agg", "echo {job} {stage}")).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(OneJob(std::string(256, 'a'), "s", "echo {job}"))));
  EXPECT_TRUE(ValidateNames(OneJob(std::string(255, 'a'), "s", "echo {job}")).ok());
}

TEST(NamesTest, TheExpandedCommandMustFitOneExecArgument) {
  const std::string name(200, 'j');
  std::string command;
  while (command.size() < kMaxCommandBytes / 2) command += "{job}";  // 5 bytes become 200
  const absl::Status s = ValidateNames(OneJob(name, "s", command));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_THAT(s.message(), HasSubstr("exec argument"));
  // {task} counts as the highest index's digits.
  const std::string tasks(kMaxCommandBytes - 2, 'x');
  EXPECT_TRUE(ValidateNames(OneJob("j", "s", tasks + "{task}", 10)).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(OneJob("j", "s", tasks + "{task}", 1000))));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateNames(OneJob("j", "s", std::string("a\0b", 3)))));
}

TEST(FirstInvalidUtf8Test, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("été \xe2\x82\xac \xf0\x9f\x98\x80"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("a\xc3"), 1u);              // truncated
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u);          // overlong
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u); // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("\xe2\x28\xa1"), 0u);      // a bad continuation
}

TEST(EscapeForDisplayTest, LeavesNoControlCharacter) {
  EXPECT_EQ(EscapeForDisplay("plain-name"), "plain-name");
  EXPECT_EQ(EscapeForDisplay("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(EscapeForDisplay("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(EscapeForDisplay(std::string("\0", 1)), "\\x00");
  EXPECT_EQ(EscapeForDisplay("q\"\\"), "q\\\"\\\\");
  EXPECT_EQ(EscapeForDisplay("\xc2\x9b" "1m"), "\\u009b1m");
  EXPECT_EQ(EscapeForDisplay("été"), "été");
}

}  // namespace
}  // namespace weft
