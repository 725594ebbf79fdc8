// SeriesWriter writes series.csv (time,series,job,value) only when a policy
// recorded something: the exact row text, quoting of names, the empty job
// column, and no file at all (not even a header) for a run that recorded
// nothing, so the outputs of existing runs stay as they were.
#include "metrics/series_writer.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"

namespace weft {
namespace {

std::string Contents(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Only the jobs' names matter to series.csv.
Workload TwoJobs() {
  Workload w;
  w.jobs.resize(2);
  w.jobs[0].name = "sort";
  w.jobs[1].name = "select, big";
  return w;
}

std::filesystem::path FreshDir(const char* name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SeriesWriterTest, RowsAreTimeSeriesJobValue) {
  const auto dir = FreshDir("weft_series_writer_rows");
  const Workload w = TwoJobs();
  SeriesWriter writer(dir.string(), w);
  writer.OnSeries({1'500'000, "utility", JobId(0), -0.25});
  writer.OnSeries({2'000'000, "utility", JobId(1), 1});
  writer.OnSeries({2'000'000, "rounds", JobId(), 3});
  EXPECT_FALSE(std::filesystem::exists(dir / "series.csv"));  // not before Finish
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(Contents(dir / "series.csv"),
            "time,series,job,value\n"
            "1.500000,utility,sort,-0.25\n"
            "2.000000,utility,\"select, big\",1\n"
            "2.000000,rounds,,3\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "series.csv.tmp"));
}

TEST(SeriesWriterTest, NoValuesNoFile) {
  const auto dir = FreshDir("weft_series_writer_none");
  const Workload w = TwoJobs();
  SeriesWriter writer(dir.string(), w);
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(SeriesWriterTest, UnwritableDirectoryIsAnError) {
  const Workload w = TwoJobs();
  SeriesWriter writer("/nonexistent/weft_series", w);
  writer.OnSeries({0, "utility", JobId(0), 0});
  EXPECT_FALSE(writer.Finish().ok());
}

}  // namespace
}  // namespace weft
