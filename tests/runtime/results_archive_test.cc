// Tests for runtime/scheduler/results_archive.h: one job found by the index
// as the whole file gives it (the last record of an id), the index rebuilt
// by Open, and a record cut short by a crash mid-append moved aside so that
// the records appended after it are read.
#include "runtime/scheduler/results_archive.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

namespace fs = std::filesystem;

v1::ArchivedJob Job(uint32_t id, const std::string& state = "succeeded") {
  v1::ArchivedJob job;
  job.set_id(id);
  job.set_name(fmt::format("job-{}", id));
  job.set_spec_json(fmt::format(R"({{"name": "job-{}", "stages": []}})", id));
  job.mutable_row()->set_state(state);
  job.set_tasks(id % 7 + 1);
  return job;
}

std::vector<v1::ArchivedJob> Jobs(uint32_t from, uint32_t to) {
  std::vector<v1::ArchivedJob> jobs;
  for (uint32_t id = from; id < to; ++id) jobs.push_back(Job(id));
  return jobs;
}

class ResultsArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("weft-archive-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // ExpectFinds: each id of `want` is found as `want` has it, and others not.
  static void ExpectFinds(const ResultsArchive& archive, const std::map<uint32_t, v1::ArchivedJob>& want,
                          uint32_t up_to) {
    for (uint32_t id = 0; id < up_to; ++id) {
      const auto found = archive.Find(id);
      ASSERT_TRUE(found.ok()) << found.status();
      const auto w = want.find(id);
      if (w == want.end()) {
        EXPECT_FALSE(found->has_value()) << "id " << id;
      } else {
        ASSERT_TRUE(found->has_value()) << "id " << id;
        EXPECT_EQ((*found)->SerializeAsString(), w->second.SerializeAsString()) << "id " << id;
      }
    }
  }

  fs::path dir_;
};

TEST_F(ResultsArchiveTest, FindsEachJobAsTheWholeFileHasIt) {
  ResultsArchive archive(dir_);
  ASSERT_TRUE(archive.Open().ok());
  // Batches of 1, 7 and 300 jobs, then ids 3 and 200 archived again (a
  // crash between the archive and the journal): the later record counts.
  ASSERT_TRUE(archive.Append(Jobs(0, 1)).ok());
  ASSERT_TRUE(archive.Append(Jobs(1, 8)).ok());
  ASSERT_TRUE(archive.Append(Jobs(10, 310)).ok());
  ASSERT_TRUE(archive.Append({Job(3, "failed"), Job(200, "cancelled")}).ok());
  const auto all = archive.ReadAll();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 308u);
  EXPECT_EQ(all->at(3).row().state(), "failed");
  EXPECT_EQ(all->at(200).row().state(), "cancelled");
  ExpectFinds(archive, *all, 320);
  // 310 records in runs of at most 256: two segments, a few bytes a job.
  EXPECT_EQ(archive.segments(), 2u);

  // A new archive object (a restart) indexes the file as it reads it.
  ResultsArchive again(dir_);
  const auto opened = again.Open();
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->size(), 308u);
  EXPECT_EQ(again.segments(), 2u);
  ExpectFinds(again, *all, 320);
}

TEST_F(ResultsArchiveTest, ATornLastRecordIsMovedAsideAndLaterAppendsAreRead) {
  {
    ResultsArchive archive(dir_);
    ASSERT_TRUE(archive.Open().ok());
    ASSERT_TRUE(archive.Append(Jobs(0, 3)).ok());
  }
  const fs::path file = dir_ / "results-archive.binpb";
  const uint64_t whole = fs::file_size(file);
  // A crash mid-append: half of job 3's record.
  std::string record;
  {
    google::protobuf::io::StringOutputStream out(&record);
    ASSERT_TRUE(google::protobuf::util::SerializeDelimitedToZeroCopyStream(Job(3), &out));
  }
  const std::string torn = record.substr(0, record.size() / 2);
  std::ofstream(file, std::ios::binary | std::ios::app) << torn;

  ResultsArchive archive(dir_);
  const auto opened = archive.Open();
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->size(), 3u);
  EXPECT_EQ(fs::file_size(file), whole);
  const fs::path aside = dir_ / fmt::format("results-archive.binpb.torn-{}", whole);
  ASSERT_TRUE(fs::exists(aside));
  std::ifstream in(aside, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), torn);

  // Job 3 is archived again after the restart, and read: before, every
  // record after the torn one was out of reach.
  ASSERT_TRUE(archive.Append(Jobs(3, 5)).ok());
  ResultsArchive again(dir_);
  const auto reread = again.Open();
  ASSERT_TRUE(reread.ok()) << reread.status();
  EXPECT_EQ(reread->size(), 5u);
  ExpectFinds(again, *reread, 6);
}

TEST_F(ResultsArchiveTest, NoFileIsAnEmptyArchive) {
  ResultsArchive archive(dir_);
  const auto opened = archive.Open();
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_TRUE(opened->empty());
  const auto found = archive.Find(0);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  EXPECT_FALSE(fs::exists(dir_ / "results-archive.binpb"));
}

}  // namespace
}  // namespace weft::runtime
