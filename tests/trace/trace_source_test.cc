// File: tests/trace/trace_source_test.cc
//
// What every format shares: the row reader (plain and gzip alike, libcsv's
// quoting, errors naming file, row and column), the spec and --window
// parsing, and the replay options the emitter applies (window, sample,
// machines, arrival scale, demands larger than any machine).
#include <random>

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

std::vector<std::vector<std::string>> AllRows(const std::string& path, char delimiter = ',',
                                              RowReader::Split split = RowReader::Split::kFast) {
  auto reader = RowReader::Open(path, delimiter, split);
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

// Rows as text (fields joined by '|', one row a line, views and strings
// checked alike) and the error, if reading stops at one.
struct RowsRead {
  std::string rows, error;
};
RowsRead ReadRows(const std::string& path, char delimiter, RowReader::Split split) {
  auto reader = RowReader::Open(path, delimiter, split);
  if (!reader.ok()) return {"", std::string(StatusMessage(reader.status()))};
  std::string out;
  while (true) {
    auto more = (*reader)->Next();
    if (!more.ok()) return {out, std::string(StatusMessage(more.status()))};
    if (!*more) return {out, ""};
    for (size_t c = 0; c < (*reader)->size(); ++c) {
      EXPECT_EQ((*reader)->view(c), (*reader)->field(c));
      out += fmt::format("{}{}", c == 0 ? "" : "|", (*reader)->view(c));
    }
    out += fmt::format(" (row {})\n", (*reader)->row_number());
  }
}
std::string RowsOrError(const std::string& path, char delimiter, RowReader::Split split) {
  const RowsRead read = ReadRows(path, delimiter, split);
  return read.rows + read.error;
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

// The split path must give what libcsv gives, row for row and error for
// error: random text of fields, delimiters, spaces, tabs, CR, LF and quotes
// (a quote hands the rest of the file to libcsv), both delimiters, lines
// cut anywhere, with and without a last newline, and lines longer than a
// chunk. One difference: libcsv parses a chunk before handing out its rows,
// so at its error (a stray quote) the rows before it in the chunk were not
// handed out; the split path hands them out first. The error is the same.
TEST_F(RowReaderTest, SplitPathMatchesLibcsv) {
  std::mt19937 random(17);
  const std::string alphabet = "ab1.-,, ,\t\t\r\n\n\n";
  int compared = 0, quoted = 0, errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const size_t length = i % 100 == 99 ? 200000 : random() % 80;
    for (size_t k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
    if (i % 7 == 0) text += "\"q,\"\"\" , x\n";  // a quoted field, then libcsv
    if (i % 11 == 0) text.insert(random() % (text.size() + 1), "\"");  // a stray quote: libcsv's error
    if (i % 100 == 98) text = std::string(70000, 'x') + ",1\n" + text + "\n" + std::string(140000, ' ') + "9\n";
    quoted += text.find('"') != std::string::npos;
    const std::string path = Write(fmt::format("r{}.csv", i), text);
    for (const char delimiter : {',', '\t'}) {
      const RowsRead want = ReadRows(path, delimiter, RowReader::Split::kLibcsvOnly);
      const RowsRead got = ReadRows(path, delimiter, RowReader::Split::kFast);
      ASSERT_EQ(got.error, want.error) << "text: " << text;
      if (want.error.empty()) {
        ASSERT_EQ(got.rows, want.rows) << "text: " << text;
      } else {
        ASSERT_EQ(got.rows.substr(0, want.rows.size()), want.rows) << "text: " << text;
      }
      errors += !want.error.empty();
      ++compared;
    }
  }
  EXPECT_EQ(compared, 6000);
  EXPECT_GT(quoted, 500);
  EXPECT_GT(errors, 300);
}

TEST_F(RowReaderTest, SplitPathKeepsLibcsvsRules) {
  // Spaces and tabs around a field go, inside it stay; CR, LF and CR LF end
  // a row; lines of only spaces are blank; a tab is kept when it delimits.
  const std::string text = " a b ,\t1\t, \r\n  \n\r,\n x";
  EXPECT_EQ(RowsOrError(Write("t.csv", text), ',', RowReader::Split::kFast),
            "a b|1| (row 1)\n| (row 2)\nx (row 3)\n");
  EXPECT_EQ(RowsOrError(Write("t.tsv", " a\t b \t\n"), '\t', RowReader::Split::kFast), "a|b| (row 1)\n");
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
