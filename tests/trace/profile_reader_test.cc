// ReadMachineProfile: a whole profile, the defaults (every cost 0), and bad
// files refused with one line naming the field.
#include "trace/profile_reader.h"

#include <filesystem>
#include <fstream>

#include "core/status.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

std::string Error(const std::string& text) {
  const absl::StatusOr<MachineProfile> p = ParseMachineProfile(text, "p.json");
  return p.ok() ? "ok" : std::string(StatusMessage(p.status()));
}

TEST(ProfileReaderTest, ReadsEveryCost) {
  const absl::StatusOr<MachineProfile> p = ParseMachineProfile(
      R"({"weft_profile": 1, "name": "lab", "launch_s": 0.5, "scheduler": {"decision_s": 0.001, "message_s": 0.002},
          "containers": {"heartbeat_s": 1}, "cpu": {"oversubscription_loss": 0.1}, "disk": {"stream_loss": 0.3},
          "memory": {"paging_slowdown": 20}})",
      "p.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "lab");
  EXPECT_EQ(p->launch_s, 0.5);
  EXPECT_EQ(p->decision_s, 0.001);
  EXPECT_EQ(p->message_s, 0.002);
  EXPECT_EQ(p->heartbeat_s, 1);
  EXPECT_EQ(p->cpu_oversubscription_loss, 0.1);
  EXPECT_EQ(p->disk_stream_loss, 0.3);
  EXPECT_EQ(p->paging_slowdown, 20);
  EXPECT_TRUE(p->given());
}

TEST(ProfileReaderTest, EveryCostDefaultsToZero) {
  const absl::StatusOr<MachineProfile> p = ParseMachineProfile(R"({"weft_profile": 1})", "p.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->given());
}

TEST(ProfileReaderTest, RefusesBadProfilesNamingTheField) {
  EXPECT_EQ(Error("{"), "p.json: not valid JSON");
  EXPECT_EQ(Error("[]"), "p.json: must be a JSON object");
  EXPECT_EQ(Error(R"({"launch_s": 1})"), "p.json: \"weft_profile\" must be 1 (the profile format's version)");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "swap": 2})"), "p.json: unknown field \"swap\"");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "launch_s": -1})"), "p.json: \"launch_s\" must be a number >= 0, not -1");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "cpu": {"loss": 1}})"), "p.json: \"cpu\" has unknown field \"loss\"");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "disk": {"stream_loss": "x"}})"),
            "p.json: \"disk.stream_loss\" must be a number >= 0, not \"x\"");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "scheduler": 3})"), "p.json: \"scheduler\" must be an object");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "containers": {"heartbeat_s": 7200}})"),
            "p.json: a time above 3600 s is not a machine's");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "memory": {"paging_slowdown": 1e9}})"),
            "p.json: a loss or slowdown above 1e6 is not a machine's");
  EXPECT_EQ(Error(R"({"weft_profile": 1, "memory": {"swap": 1}})"), "p.json: \"memory\" has unknown field \"swap\"");
}

TEST(ProfileReaderTest, StopsReadingAnEndlessFile) {
  const absl::StatusOr<MachineProfile> p = ReadMachineProfile("/dev/zero");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(StatusMessage(p.status()), "/dev/zero: larger than 1 MiB: not a profile");
  EXPECT_FALSE(ReadMachineProfile("/nonexistent/p.json").ok());
}

}  // namespace
}  // namespace weft
