// File: tests/trace/trace_source_test.cc
//
// What every format shares: the row reader (plain and gzip alike, libcsv's
// quoting, errors naming file, row and column), the spec and --window
// parsing, and the replay options the emitter applies (window, sample,
// machines, arrival scale, demands larger than any machine).
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "gmock/gmock.h"
#include "tests/trace/trace_test_util.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using testutil::TraceFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using RowReaderTest = TraceFixture;
using TraceEmitterTest = TraceFixture;

std::vector<std::vector<std::string>> AllRows(const std::string& path, char delimiter = ',') {
  auto reader = RowReader::Open(path, delimiter);
  EXPECT_TRUE(reader.ok()) << reader.status();
  std::vector<std::vector<std::string>> rows;
  while (true) {
    auto more = (*reader)->Next();
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    rows.push_back((*reader)->fields());
  }
  return rows;
}

TEST_F(RowReaderTest, RowReaderReadsPlainAndGzipAlike) {
  const std::string text = "a,\"b,c\",\"say \"\"hi\"\"\"\n\n1,,3\r\n";
  const auto plain = AllRows(Write("t.csv", text));
  EXPECT_EQ(AllRows(WriteGz("t.csv.gz", text)), plain);
  ASSERT_EQ(plain.size(), 2u);  // the blank line is skipped
  EXPECT_THAT(plain[0], ElementsAre("a", "b,c", "say \"hi\""));
  EXPECT_THAT(plain[1], ElementsAre("1", "", "3"));
  EXPECT_THAT(AllRows(Write("t.tsv", "x\ty z\t\n"), '\t')[0], ElementsAre("x", "y z", ""));
}

TEST_F(RowReaderTest, RowReaderStreamsPastItsChunk) {
  // Rows of 1 to 4 fields, some longer than a short string, so that rows and
  // fields are cut at the 64 KiB chunk edges and the reused rows change shape.
  std::vector<std::vector<std::string>> want;
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::string> row{std::to_string(i)};
    for (int f = 0; f < i % 4; ++f) row.push_back(std::string(static_cast<size_t>((i * 7 + f) % 40), 'a' + f));
    text += fmt::format("{}\n", fmt::join(row, ","));
    want.push_back(std::move(row));
  }
  ASSERT_GT(text.size(), 3u << 16);
  EXPECT_EQ(AllRows(WriteGz("big.csv.gz", text)), want);
  EXPECT_EQ(AllRows(Write("big.csv", text)), want);
}

TEST_F(RowReaderTest, RowReaderRefusesAnUnterminatedQuote) {
  auto reader = RowReader::Open(Write("t.csv", "1,2\n3,\"open\n"));
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(*(*reader)->Next());
  const auto more = (*reader)->Next();
  ASSERT_FALSE(more.ok());
  EXPECT_THAT(std::string(StatusMessage(more.status())), HasSubstr("t.csv: row 2: unterminated quoted field"));
}

TEST_F(RowReaderTest, RowReaderRefusesMissingFilesAndFolders) {
  EXPECT_THAT(std::string(StatusMessage(RowReader::Open(Path("none.csv")).status())), HasSubstr("none.csv: no such file"));
  EXPECT_THAT(std::string(StatusMessage(RowReader::Open(dir_.string()).status())), HasSubstr("is a directory"));
}

TEST(TraceSpecTest, ParsesFormatAndPaths) {
  const auto spec = ParseTraceSpec("swim:a.tsv,b.tsv");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->format, "swim");
  EXPECT_THAT(spec->paths, ElementsAre("a.tsv", "b.tsv"));
  EXPECT_THAT(std::string(StatusMessage(ParseTraceSpec("borg:x").status())),
              HasSubstr("unknown format \"borg\" (formats: google-2011, google-2019, alibaba-2018"));
  EXPECT_THAT(std::string(StatusMessage(ParseTraceSpec("swim").status())), HasSubstr("write FORMAT:PATH"));
  EXPECT_THAT(std::string(StatusMessage(ParseTraceSpec("swim:a,").status())), HasSubstr("an empty PATH"));
}

TEST(TraceSpecTest, ParsesWindows) {
  TraceOptions o;
  ASSERT_TRUE(ParseWindow("10:20", o).ok());
  EXPECT_EQ(o.window_start_s, 10);
  EXPECT_EQ(o.window_end_s, 20);
  ASSERT_TRUE(ParseWindow(":5", o).ok());
  EXPECT_EQ(o.window_start_s, 0);
  EXPECT_FALSE(ParseWindow("20:10", o).ok());
  EXPECT_FALSE(ParseWindow("abc", o).ok());
  EXPECT_FALSE(ParseWindow("-1:", o).ok());
}

class EmitterTest : public TraceFixture {
 protected:
  void SetUp() override {
    TraceFixture::SetUp();
    std::string rows;  // 100 jobs arriving at 0, 10, ..., 990 s
    for (int i = 0; i < 100; ++i) rows += fmt::format("job{}\t{}\t10\t1000\t0\t0\n", i, 10 * i);
    path_ = Write("w.tsv", rows);
  }
  testutil::TraceRead ReadWith(const TraceOptions& o) { return Read("swim:" + path_, o); }
  std::string path_;
};

TEST_F(EmitterTest, WindowKeepsJobsArrivingInsideAndCountsFromItsStart) {
  TraceOptions o;
  ASSERT_TRUE(ParseWindow("100:200", o).ok());
  const auto read = ReadWith(o);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 10u);
  EXPECT_EQ(read.workload->jobs[0].name, "job10");
  EXPECT_EQ(read.workload->jobs[0].arrival_us, 0);
  EXPECT_EQ(read.report.skipped(kSkipWindow), 90u);
}

TEST_F(EmitterTest, SampleIsSeededAndKeepsAboutItsFraction) {
  TraceOptions o;
  o.sample = 0.5;
  const auto a = ReadWith(o), b = ReadWith(o);
  ASSERT_TRUE(a.workload.ok()) << a.Error();
  EXPECT_EQ(a.workload->jobs.size(), b.workload->jobs.size());
  EXPECT_GT(a.workload->jobs.size(), 30u);
  EXPECT_LT(a.workload->jobs.size(), 70u);
  EXPECT_EQ(a.report.skipped(kSkipSample) + a.workload->jobs.size(), 100u);
  o.seed = 2;
  const auto c = ReadWith(o);
  bool same = c.workload->jobs.size() == a.workload->jobs.size();
  for (size_t j = 0; same && j < c.workload->jobs.size(); ++j) same = c.workload->jobs[j].name == a.workload->jobs[j].name;
  EXPECT_FALSE(same);
}

TEST_F(EmitterTest, MachinesAndArrivalScale) {
  TraceOptions o;
  o.machines = 7;
  o.scale_arrivals = 2;
  const auto read = ReadWith(o);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_EQ(read.workload->cluster.size(), 7u);
  EXPECT_DOUBLE_EQ(read.workload->cluster.machine(MachineId(0)).capacity.units(kCpu), 8);
  EXPECT_EQ(read.workload->jobs[99].arrival_us, 495000000);  // 990 s at twice the rate
}

TEST_F(TraceEmitterTest, JobsLargerThanAnyMachineAreSkipped) {
  Write("b.csv", "1,5,3,4,1,Terminated,50,0.5\n1,5,4,4,1,Terminated,50,2.0\n");  // mem 2 > 1
  const auto read = Read("alibaba-2017:" + Path("b.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_EQ(read.workload->jobs.size(), 1u);
  EXPECT_EQ(read.report.skipped(kSkipTooLarge), 1u);
}

TEST_F(EmitterTest, AJobNameTwiceIsBadInput) {
  EXPECT_THAT(Read("swim:" + path_ + "," + path_).Error(),
              HasSubstr("job \"w/job0\" appears twice in the trace (a file given twice?)"));
}

TEST_F(TraceEmitterTest, NoJobLeftIsAnError) {
  Write("b.csv", "1,5,3,4,1,Waiting,,\n");
  EXPECT_THAT(Read("alibaba-2017:" + Path("b.csv")).Error(), HasSubstr("no job left to run"));
}

}  // namespace
}  // namespace weft
