// The runtime's security checks (runtime/auth.h; issue 20, bug 9).
#include "runtime/auth.h"
#include "runtime/local_tokens.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

TEST(AuthTest, LoopbackIsALiteralLoopbackAddressOrLocalhost) {
  for (const char* yes : {"127.0.0.1:0", "127.1.2.3:7070", "localhost:1", "[::1]:7070", "[::ffff:127.0.0.1]:1"}) {
    EXPECT_TRUE(IsLoopback(yes)) << yes;
  }
  for (const char* no : {"127.0.0.1.example:0", "127.evil.com:1", "0.0.0.0:7070", "10.0.0.1:1", "[::]:1",
                         "[::1:1", "localhost.example:1", "128.0.0.1:1", "[::ffff:10.0.0.1]:1", ":7070"}) {
    EXPECT_FALSE(IsLoopback(no)) << no;
  }
  EXPECT_FALSE(CheckListen("127.0.0.1.example:0", /*has_token=*/false).ok());
}

TEST(AuthTest, ATokenFileOthersCanReadIsRefused) {
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / ("weft_token_" + std::to_string(getpid()));
  std::ofstream(file) << "secret\n";
  chmod(file.c_str(), 0600);
  absl::StatusOr<std::string> token = ReadTokenFile(file.string());
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "secret");
  chmod(file.c_str(), 0640);  // the group may read: allowed
  EXPECT_TRUE(ReadTokenFile(file.string()).ok());
  for (mode_t mode : {0644, 0602, 0601}) {
    chmod(file.c_str(), mode);
    const absl::StatusOr<std::string> refused = ReadTokenFile(file.string());
    EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << mode;
    EXPECT_NE(std::string(refused.status().message()).find("chmod"), std::string::npos);
  }
  std::filesystem::remove(file);
}

// The local cluster's token (runtime/local_tokens.h), in a private index.
class LocalTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("weft_tokens_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    setenv("XDG_STATE_HOME", (dir_ / "state").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_STATE_HOME");
    std::filesystem::remove_all(dir_);
  }
  static mode_t Mode(const std::filesystem::path& p) {
    struct stat st {};
    stat(p.c_str(), &st);
    return st.st_mode & 07777;
  }
  std::filesystem::path dir_;
};

TEST_F(LocalTokensTest, TheTokenIsMadeOnceAndOnlyItsOwnerMayReadIt) {
  const std::filesystem::path file = dir_ / "token";
  const absl::StatusOr<std::string> made = EnsureTokenFile(file);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->size(), 64u);
  EXPECT_EQ(made->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(Mode(file), 0600u);
  const absl::StatusOr<std::string> again = EnsureTokenFile(file);  // a second `up` keeps it
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *made);
  EXPECT_NE(*EnsureTokenFile(dir_ / "other"), *made);
  chmod(file.c_str(), 0644);
  EXPECT_TRUE(absl::IsInvalidArgument(EnsureTokenFile(file).status()));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 2);  // no temporary left behind
}

TEST_F(LocalTokensTest, AnAddressFindsTheTokenItsClusterRecorded) {
  const std::filesystem::path token = dir_ / "c" / "token";
  std::filesystem::create_directories(token.parent_path());
  ASSERT_TRUE(EnsureTokenFile(token).ok());
  EXPECT_EQ(TokenFileFor("127.0.0.1:5000"), "");
  ASSERT_TRUE(RememberToken("127.0.0.1:5000", token).ok());
  ASSERT_TRUE(RememberToken("[::1]:5001", token).ok());
  EXPECT_EQ(TokenFileFor("127.0.0.1:5000"), token.string());
  EXPECT_EQ(TokenFileFor("[::1]:5001"), token.string());
  EXPECT_EQ(TokenFileFor("127.0.0.1:5002"), "");
  EXPECT_EQ(TokenFileFor("../../etc/passwd"), "");
  EXPECT_FALSE(RememberToken("..", token).ok());
  // A unix:PATH address has slashes: its entry is one file of the index all the same.
  ASSERT_TRUE(RememberToken("unix:/a/b/socket", token).ok());
  EXPECT_EQ(TokenFileFor("unix:/a/b/socket"), token.string());
  EXPECT_FALSE(std::filesystem::exists(TokenIndexDir() / "unix:"));
  // Only its owner may list or change the index.
  EXPECT_EQ(Mode(TokenIndexDir()), 0700u);
  EXPECT_EQ(Mode(TokenIndexDir().parent_path()), 0700u);
  EXPECT_EQ(Mode(TokenIndexDir() / "127.0.0.1:5000"), 0600u);
  ForgetTokens(token);  // cluster down
  EXPECT_EQ(TokenFileFor("127.0.0.1:5000"), "");
  EXPECT_EQ(TokenFileFor("[::1]:5001"), "");
  // A cluster dir removed without `cluster down`: its entry leads nowhere.
  ASSERT_TRUE(RememberToken("127.0.0.1:5000", token).ok());
  std::filesystem::remove(token);
  EXPECT_EQ(TokenFileFor("127.0.0.1:5000"), "");
}

}  // namespace
}  // namespace weft::runtime
