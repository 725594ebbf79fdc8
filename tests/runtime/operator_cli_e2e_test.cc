// The operator's command line against real daemons (issue 32, §4): where
// `weft` finds the scheduler without --scheduler, `weft submit --wrap`, and
// a submission read only up to the size a scheduler accepts.
#include <stdlib.h>

#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// OwnStateDir: the per-user index `cluster up` writes goes to the test's dir
// (this test runs in a process of its own), so the clusters it knows are
// exactly the test's.
class OperatorCliTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    setenv("XDG_STATE_HOME", (dir_ / "state").c_str(), 1);
    unsetenv("WEFT_SCHEDULER");
  }
  void TearDown() override {
    unsetenv("WEFT_SCHEDULER");
    RuntimeTest::TearDown();
    unsetenv("XDG_STATE_HOME");
  }
};

TEST_F(OperatorCliTest, TheSchedulerIsTheOneLocalClusterOrTheEnvironments) {
  const Result none = Run({"status"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("no local cluster is up"));
  EXPECT_EQ(CountLines(none.err), 1);

  const std::string first = Up(1, {}, "first");
  const fs::path first_dir = cluster_;
  const Result found = Run({"status"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_THAT(found.out, HasSubstr("nodes 1/1 up"));

  // The environment comes before the index: a scheduler that is not there.
  setenv("WEFT_SCHEDULER", "127.0.0.1:1", 1);
  const Result env = Run({"status"});
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_THAT(env.err, HasSubstr("127.0.0.1:1"));
  setenv("WEFT_SCHEDULER", first.c_str(), 1);
  EXPECT_EQ(Run({"status"}).exit_code, 0);
  unsetenv("WEFT_SCHEDULER");

  // Two local clusters: which one is meant cannot be guessed.
  Up(1, {}, "second");
  const Result two = Run({"status"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, HasSubstr("2 local clusters are up"));
  EXPECT_THAT(two.err, HasSubstr(first));
  EXPECT_EQ(CountLines(two.err), 1);
  EXPECT_EQ(Run({"cluster", "down", "--dir", first_dir.string()}).exit_code, 0);
  EXPECT_EQ(Run({"status"}).exit_code, 0);  // one again
}

TEST_F(OperatorCliTest, SubmitWrapRunsOneStageWithoutAWorkloadFile) {
  const std::string address = Up(1);
  const fs::path work = WorkDir();
  const Result submit = Run({"submit", "--scheduler", address, "--wrap",
                             fmt::format("echo ran > {}/ran-$WEFT_TASK", work.string()), "--tasks", "2", "--cpu", "0.5",
                             "--mem", "0.1", "--name", "wrapped"});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_EQ(submit.out, "0\n");
  EXPECT_EQ(Wait(address, "0").exit_code, 0);
  EXPECT_TRUE(fs::exists(work / "ran-0"));
  EXPECT_TRUE(fs::exists(work / "ran-1"));
  const Result status = Run({"status", "--scheduler", address, "0"});
  EXPECT_THAT(status.out, HasSubstr("wrapped"));
  EXPECT_THAT(status.out, HasSubstr("2/2"));
  // The job's shape needs --wrap; a file and --wrap together are refused.
  const Result shape = Run({"submit", "--scheduler", address, "--cpu", "1", Write("w.json", "{}")});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_THAT(shape.err, HasSubstr("--wrap"));
  EXPECT_EQ(Run({"submit", "--scheduler", address, "--wrap", "true", Write("w2.json", "{}")}).exit_code, 2);
  EXPECT_EQ(Run({"submit", "--scheduler", address}).exit_code, 2);
  // The scheduler checks what --wrap makes as any submission.
  const Result bad = Run({"submit", "--scheduler", address, "--wrap", "true", "--name", "a\tb"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
}

// Issue 34, finding 6: `weft submit /dev/zero` read without bound.
TEST_F(OperatorCliTest, SubmitStopsReadingAtTheSizeASchedulerAccepts) {
  const Result r = Run({"submit", "--scheduler", "127.0.0.1:1", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("larger than 64 MiB"));
  EXPECT_EQ(CountLines(r.err), 1);
  const Result missing = Run({"submit", "--scheduler", "127.0.0.1:1", (dir_ / "no-such.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, Not(HasSubstr("larger")));
}

}  // namespace
}  // namespace weft
