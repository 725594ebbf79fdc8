// File: tests/runtime/kept_address_test.cc
//
// runtime/kept_address.h: a port the system chose is kept for the same
// request, and only for it (issue 34, finding 5).
#include "runtime/kept_address.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

class KeptAddressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("weft_kept_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path kept() const { return dir_ / "listen"; }

  std::filesystem::path dir_;
};

TEST_F(KeptAddressTest, AnyPortIsAskedForByPortZeroOnly) {
  EXPECT_TRUE(AsksForAnyPort("127.0.0.1:0"));
  EXPECT_TRUE(AsksForAnyPort("[::1]:0"));
  EXPECT_FALSE(AsksForAnyPort("127.0.0.1:7070"));
  EXPECT_FALSE(AsksForAnyPort("127.0.0.1:70"));
  EXPECT_FALSE(AsksForAnyPort("localhost"));
}

TEST_F(KeptAddressTest, TheFirstStartListensWhereAskedAndLaterOnesWhereItWas) {
  EXPECT_EQ(ListenAddress("127.0.0.1:0", kept()), "127.0.0.1:0");  // nothing kept yet
  ASSERT_TRUE(KeepAddress("127.0.0.1:0", "127.0.0.1:41234", kept()).ok());
  EXPECT_EQ(ListenAddress("127.0.0.1:0", kept()), "127.0.0.1:41234");
  EXPECT_EQ(ListenAddress("127.0.0.1:0", kept()), "127.0.0.1:41234");  // and again
}

TEST_F(KeptAddressTest, AnotherRequestIsTakenAsGiven) {
  ASSERT_TRUE(KeepAddress("127.0.0.1:0", "127.0.0.1:41234", kept()).ok());
  EXPECT_EQ(ListenAddress("0.0.0.0:0", kept()), "0.0.0.0:0");
  EXPECT_EQ(ListenAddress("127.0.0.1:7070", kept()), "127.0.0.1:7070");
}

TEST_F(KeptAddressTest, AFixedPortIsNotKept) {
  ASSERT_TRUE(KeepAddress("127.0.0.1:7070", "127.0.0.1:7070", kept()).ok());
  EXPECT_FALSE(std::filesystem::exists(kept()));
}

TEST_F(KeptAddressTest, AnUnreadableKeptFileMeansChoosingAgain) {
  std::ofstream(kept()) << "garbage\n";
  EXPECT_EQ(ListenAddress("127.0.0.1:0", kept()), "127.0.0.1:0");
}

TEST_F(KeptAddressTest, AnUnwritableDirIsAnError) {
  EXPECT_FALSE(KeepAddress("127.0.0.1:0", "127.0.0.1:41234", dir_ / "missing" / "listen").ok());
}

}  // namespace
}  // namespace weft::runtime
