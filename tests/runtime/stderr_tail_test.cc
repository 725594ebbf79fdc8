// Tests for runtime/node/stderr_tail.h: the bounded tail of a task's stderr
// that its end report carries.
#include "runtime/node/stderr_tail.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

namespace fs = std::filesystem;

fs::path Write(std::string_view name, const std::string& text) {
  const fs::path path = fs::path(testing::TempDir()) / fmt::format("weft_tail_{}_{}", name, getpid());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(StderrTailTest, KeepsTheLastLinesWithoutTheFinalNewline) {
  EXPECT_EQ(StderrTail(Write("few", "a\nb\n")), "a\nb");
  EXPECT_EQ(StderrTail(Write("many", "1\n2\n3\n4\n5\n6\n7\n")), "3\n4\n5\n6\n7");
  EXPECT_EQ(StderrTail(Write("nonl", "x\ny")), "x\ny");
  EXPECT_EQ(StderrTail(Write("two", "1\n2\n3\n"), /*max_lines=*/2), "2\n3");
}

TEST(StderrTailTest, ReadsNoMoreThanItsBoundFromTheEnd) {
  // A megabyte of one line, then the line that says why: only the end is read.
  const std::string text = std::string(1 << 20, 'x') + "\nthe reason\n";
  const std::string tail = StderrTail(Write("big", text));
  EXPECT_LE(tail.size(), kStderrTailBytes);
  EXPECT_EQ(tail.substr(tail.size() - 11), "\nthe reason");
  EXPECT_EQ(StderrTail(Write("cut", "0123456789"), 5, /*max_bytes=*/4), "6789");
}

TEST(StderrTailTest, NothingToReadIsEmpty) {
  EXPECT_EQ(StderrTail(fs::path(testing::TempDir()) / "weft_tail_missing_file"), "");
  EXPECT_EQ(StderrTail(Write("empty", "")), "");
  EXPECT_EQ(StderrTail(fs::path(testing::TempDir())), "");  // a directory
}

}  // namespace
}  // namespace weft::runtime
