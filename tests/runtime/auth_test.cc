// The runtime's security checks (runtime/auth.h; issue 20, bug 9).
#include "runtime/auth.h"

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

}  // namespace
}  // namespace weft::runtime
