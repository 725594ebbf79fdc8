// The security model's default (docs/runtime.md, "Security model"; issue 20):
// `weft cluster up` makes a token in its dir, and only a user who can read
// it can talk to the cluster, while its owner uses FORMATS section 4's
// commands with no flag. "Another user" is played by a client whose token
// index ($XDG_STATE_HOME) is empty.
#include <sys/stat.h>

#include <cstdlib>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class SecurityTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    setenv("XDG_STATE_HOME", (dir_ / "owner-state").c_str(), 1);
    unsetenv("WEFT_TOKEN_FILE");
  }
  void TearDown() override {
    setenv("XDG_STATE_HOME", (dir_ / "owner-state").c_str(), 1);  // so that `cluster down` forgets its entry
    RuntimeTest::TearDown();
    unsetenv("XDG_STATE_HOME");
  }
  static mode_t Mode(const fs::path& p) {
    struct stat st {};
    stat(p.c_str(), &st);
    return st.st_mode & 07777;
  }
};

TEST_F(SecurityTest, TheOwnerUsesFormatsCommandsAndOthersAreRefused) {
  const std::string address = Up(1);
  EXPECT_EQ(Mode(cluster_ / "token"), 0600u);
  // The owner: FORMATS.md section 4, word for word.
  const std::vector<std::string> ids = SubmitIds(address, Workload(R"({"name": "j", "stages": [{"name": "s",
      "tasks": 1, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "command": "true"}]})"));
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(Wait(address, ids[0]).exit_code, 0);
  EXPECT_EQ(Run({"status", "--scheduler", address}).exit_code, 0);

  // Anyone else: no token, so UNAUTHENTICATED, whatever the call.
  setenv("XDG_STATE_HOME", (dir_ / "other-state").c_str(), 1);
  const std::string job = Write("w.json", Workload(R"({"name": "k", "stages": [{"name": "s", "tasks": 1,
      "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "command": "true"}]})"));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"submit", "--scheduler", address, job},
                                              std::vector<std::string>{"status", "--scheduler", address},
                                              std::vector<std::string>{"cancel", "--scheduler", address, ids[0]}}) {
    SCOPED_TRACE(args[0]);
    const Result r = Run(args);
    ExpectBadInput(r);
    EXPECT_THAT(r.err, HasSubstr("unauthenticated"));
  }
  // A token given by hand works for anyone who can read it.
  const Result with = Run({"status", "--scheduler", address, "--token-file", (cluster_ / "token").string()});
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_THAT(with.out, HasSubstr("done"));
}

TEST_F(SecurityTest, ATokenFileOthersCanReadIsRefused) {
  const std::string address = Up(1);
  ASSERT_EQ(chmod((cluster_ / "token").c_str(), 0644), 0);
  const Result status = Run({"status", "--scheduler", address});
  ExpectBadInput(status);
  EXPECT_THAT(status.err, HasSubstr("chmod o-rwx"));
  // Nor does `cluster up` start anything with it.
  Run({"cluster", "down", "--dir", cluster_.string()});
  const Result up = Run({"cluster", "up", "--nodes", "1", "--dir", cluster_.string()});
  ExpectBadInput(up);
  EXPECT_FALSE(fs::exists(cluster_ / "scheduler.pid"));
}

}  // namespace
}  // namespace weft
