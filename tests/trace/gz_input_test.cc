// File: tests/trace/gz_input_test.cc
//
// GzInput (trace/gz_input.h): plain files passed through, gzip inflated by
// igzip, checked against zlib (the reference, and what GzInput used before):
// one member, several, files far larger than the input buffer, the input
// cut into pieces of every small size, and every way a file can be cut
// short or corrupted.
#include "trace/gz_input.h"

#include <zlib.h>

#include <random>

#include "core/status.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "tests/trace/trace_test_util.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using GzInputTest = testutil::TraceFixture;

// Gzip compresses `text` into one gzip member with zlib; `name` goes into
// the header's FNAME field (as gzip FILE writes it) when not empty.
std::string Gzip(const std::string& text, int level = 6, const std::string& name = "") {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  gz_header header{};
  if (!name.empty()) {
    header.name = reinterpret_cast<Bytef*>(const_cast<char*>(name.c_str()));
    EXPECT_EQ(deflateSetHeader(&z, &header), Z_OK);
  }
  std::string out(deflateBound(&z, text.size()) + 64 + name.size(), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct Contents {
  std::string bytes;
  std::string error;  // "" when the whole file was read
  bool operator==(const Contents&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Contents& r) {
  return os << r.bytes.size() << " bytes, error \"" << r.error << "\"";
}

// ReadAll reads `path` through GzInput, `out` bytes a call.
Contents ReadAll(const std::string& path, size_t out = 1 << 16, size_t input_chunk = GzInput::kInputChunk) {
  absl::StatusOr<std::unique_ptr<GzInput>> in = GzInput::Open(path, input_chunk);
  if (!in.ok()) return {"", std::string(StatusMessage(in.status()))};
  Contents r;
  std::string buf(out, '\0');
  while (true) {
    absl::StatusOr<size_t> n = (*in)->Read(buf.data(), buf.size());
    if (!n.ok()) {
      r.error = StatusMessage(n.status());
      return r;
    }
    if (*n == 0) return r;
    EXPECT_LE(*n, out);
    r.bytes.append(buf, 0, *n);
  }
}

// ZlibRead reads `path` with zlib's gzread, as GzInput did before igzip.
// gzread reports a file cut short as its end (no error), so `error` is set
// for data errors only.
Contents ZlibRead(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  EXPECT_NE(gz, nullptr);
  Contents r;
  std::string buf(1 << 16, '\0');
  int n = 0;
  while ((n = gzread(gz, buf.data(), static_cast<unsigned>(buf.size()))) > 0) r.bytes.append(buf, 0, n);
  if (n < 0) {
    int code = 0;
    r.error = gzerror(gz, &code);
  }
  gzclose(gz);
  return r;
}

// CsvText: `rows` lines like a trace part's (numbers, a few repeated
// words), so that it compresses as the traces do.
std::string CsvText(int rows, unsigned seed) {
  std::mt19937 random(seed);
  std::string text;
  for (int i = 0; i < rows; ++i) {
    text += fmt::format("{},,{},{},{},{},user{},0,{},0.{},0.0{},0.00{},0\n", 600000000 + i * 37, random() % 100000,
                        random() % 1000, random() % 50, random() % 9, random() % 30, random() % 12, random() % 1000,
                        random() % 1000, random() % 1000);
  }
  return text;
}

constexpr char kHeaderOnly[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";  // a member's 10-byte header, no data

TEST_F(GzInputTest, PlainFilesPassThroughAsTheyAre) {
  std::string binary;
  for (int i = 0; i < 300000; ++i) binary += static_cast<char>((static_cast<unsigned>(i) * 7919u) % 256u);  // larger than a chunk
  const std::string path = Write("plain.bin", binary);
  EXPECT_EQ(ReadAll(path), (Contents{binary, ""}));
  EXPECT_EQ(ReadAll(path, 1000, 3), (Contents{binary, ""}));
  EXPECT_FALSE((*GzInput::Open(path))->gzip());
  // gzip's first magic byte alone, or followed by another byte, is plain
  // text (zlib decided the same).
  for (const std::string text : {"\x1f", "\x1f" "a,b\n", "\x8b\x1f" "x"}) {
    EXPECT_EQ(ReadAll(Write("p.csv", text)), (Contents{text, ""}));
    EXPECT_EQ(ZlibRead(Path("p.csv")), (Contents{text, ""}));
  }
}

TEST_F(GzInputTest, EmptyFileIsEmpty) {
  const std::string path = Write("empty.csv.gz", "");
  EXPECT_EQ(ReadAll(path), (Contents{"", ""}));
  EXPECT_EQ(ZlibRead(path), (Contents{"", ""}));
  EXPECT_FALSE((*GzInput::Open(path))->gzip());
  // A gzip member of no bytes (what gzip < /dev/null gives) is whole and empty.
  EXPECT_EQ(ReadAll(Write("e.gz", Gzip(""))), (Contents{"", ""}));
}

TEST_F(GzInputTest, ReadsOneMember) {
  const std::string text = CsvText(100, 1);
  const std::string path = Write("one.csv.gz", Gzip(text));
  EXPECT_TRUE((*GzInput::Open(path))->gzip());
  EXPECT_EQ(ReadAll(path), (Contents{text, ""}));
  EXPECT_EQ(ReadAll(WriteGz("two.csv.gz", text)), (Contents{text, ""}));  // gzopen/gzwrite's file
  EXPECT_EQ(ReadAll(Write("named.gz", Gzip(text, 9, "task_events.csv"))), (Contents{text, ""}));  // a header with FNAME
  EXPECT_EQ(ReadAll(Write("stored.gz", Gzip(text, 0))), (Contents{text, ""}));  // stored blocks, not Huffman coded
}

TEST_F(GzInputTest, ReadsConcatenatedMembersWhole) {
  // cat a.gz b.gz: an empty member and one with a header name among them.
  const std::string a = CsvText(50, 2), b = CsvText(3000, 3), c = "last line, no newline";
  const std::string path = Write("cat.csv.gz", Gzip(a) + Gzip("") + Gzip(b, 1, "b.csv") + Gzip(c, 0));
  EXPECT_EQ(ReadAll(path), (Contents{a + b + c, ""}));
  EXPECT_EQ(ZlibRead(path), (Contents{a + b + c, ""}));
}

TEST_F(GzInputTest, LargeFileReadsByteForByteAsZlib) {
  // Several MB out of a few hundred KB in: many input chunks, history
  // windows and deflate blocks, read back in chunks of several sizes.
  const std::string text = CsvText(150000, 4);
  ASSERT_GT(text.size(), 8u << 20);
  const std::string path = WriteGz("big.csv.gz", text);
  ASSERT_GT(std::filesystem::file_size(path), 2 * GzInput::kInputChunk);
  const Contents zlib = ZlibRead(path);
  ASSERT_EQ(zlib, (Contents{text, ""}));
  for (const size_t out : {size_t{1} << 16, size_t{1} << 20, size_t{7777}, size_t{1} << 24}) {
    EXPECT_EQ(ReadAll(path, out), zlib) << out;
  }
  // Many members, each larger than the input buffer, as pigz or cat gives.
  const std::string many = Gzip(text.substr(0, 3000000)) + Gzip(text.substr(3000000, 3000000), 1) + Gzip(text.substr(6000000));
  EXPECT_EQ(ReadAll(Write("many.csv.gz", many)), zlib);
}

TEST_F(GzInputTest, EveryCutOfTheInputGivesTheSameBytes) {
  // The input fed to igzip in pieces of 1 to 23 bytes, so that every
  // member's header, blocks and 8-byte trailer are cut at every place, and
  // the magic bytes of the next member too.
  const std::string a = CsvText(40, 5), b = CsvText(7, 6);
  const std::string path =
      Write("cut.csv.gz", Gzip(a) + Gzip(b, 0, "named.csv") + Gzip("") + Gzip(a + b, 9) + std::string(5, '\0'));
  const Contents want{a + b + a + b, ""};
  for (size_t input = 1; input <= 23; ++input) {
    for (const size_t out : {size_t{1}, size_t{13}, size_t{4096}}) {
      ASSERT_EQ(ReadAll(path, out, input), want) << "input " << input << ", out " << out;
    }
  }
}

TEST_F(GzInputTest, FileCutShortIsAnError) {
  // Every prefix of two members: whole members read; a cut anywhere else is
  // "unexpected end of file", naming the file. zlib's gzread returned the
  // bytes up to the cut and no error, so a cut file lost its last rows
  // silently (checked here, so that this test says what changed).
  const std::string a = CsvText(30, 7), b = CsvText(20, 8);
  const std::string gz = Gzip(a) + Gzip(b);
  const size_t first = Gzip(a).size();
  int cut = 0;
  for (size_t size = 1; size < gz.size(); ++size) {
    const std::string path = Write("cut.csv.gz", gz.substr(0, size));
    const Contents got = ReadAll(path, 4096, 64);
    if (size == first || size == first + 1) {
      // After a whole member, one byte cannot start another (nor could it for zlib).
      EXPECT_EQ(got, (Contents{a, ""})) << size;
    } else if (size == 1) {
      EXPECT_EQ(got, (Contents{"\x1f", ""}));  // one byte: a plain file
    } else {
      ASSERT_EQ(got.error, path + ": cannot read: unexpected end of file") << size;
      const Contents zlib = ZlibRead(path);
      EXPECT_EQ(zlib.error, "") << size;  // what changed
      EXPECT_EQ(got.bytes, zlib.bytes.substr(0, got.bytes.size())) << size;  // what came before was the same
      ++cut;
    }
  }
  EXPECT_EQ(cut, static_cast<int>(gz.size()) - 4);
  // A file that is only a gzip header, or only the magic bytes, is cut short too.
  EXPECT_EQ(ReadAll(Write("h.gz", std::string(kHeaderOnly, 10))).error, Path("h.gz") + ": cannot read: unexpected end of file");
  EXPECT_EQ(ReadAll(Write("m.gz", "\x1f\x8b")).error, Path("m.gz") + ": cannot read: unexpected end of file");
}

TEST_F(GzInputTest, TrailingBytesAfterTheLastMemberAreIgnoredAsZlibDoes) {
  const std::string text = CsvText(10, 9), gz = Gzip(text);
  for (const std::string& tail : {std::string(1000, '\0'), std::string("garbage\n"), std::string("\x1f"),
                                 std::string("x") + Gzip("not read")}) {
    const std::string path = Write("t.csv.gz", gz + tail);
    EXPECT_EQ(ReadAll(path), (Contents{text, ""}));
    EXPECT_EQ(ZlibRead(path), (Contents{text, ""}));
  }
  // The magic bytes start a member, which then must be one.
  const std::string path = Write("m.csv.gz", gz + "\x1f\x8bxxxxxxxxxxxxxxxxxx");
  EXPECT_EQ(ReadAll(path).error, path + ": cannot read: unknown compression method");
  EXPECT_EQ(ZlibRead(path).error, path + ": unknown compression method");
}

TEST_F(GzInputTest, CorruptFileIsAnErrorNamingIt) {
  const std::string text = CsvText(200, 10), gz = Gzip(text);
  const auto read_with = [&](size_t at, char value) {
    std::string bad = gz;
    bad[at] = value;
    return ReadAll(Write("bad.csv.gz", bad)).error;
  };
  const std::string prefix = Path("bad.csv.gz") + ": cannot read: ";
  EXPECT_EQ(read_with(gz.size() - 8, static_cast<char>(gz[gz.size() - 8] ^ 1)), prefix + "incorrect data check");  // crc32
  EXPECT_EQ(read_with(gz.size() - 4, static_cast<char>(gz[gz.size() - 4] ^ 1)), prefix + "incorrect data check");  // length
  EXPECT_EQ(read_with(2, 7), prefix + "unknown compression method");
  EXPECT_EQ(read_with(3, '\x20'), prefix + "unknown header flags set");
  EXPECT_EQ(read_with(10, '\xff'), prefix + "invalid deflate block");  // block type 3
  // Random damage: igzip reads a file whole only when zlib reads it whole to
  // the same bytes, and refuses every file zlib refuses.
  std::mt19937 random(11);
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string bad = gz;
    for (int k = 0; k < 1 + i % 3; ++k) bad[random() % bad.size()] ^= static_cast<char>(1 + random() % 255);
    const std::string path = Write("r.csv.gz", bad);
    const Contents got = ReadAll(path, 4096, 1 + i % 300);
    const Contents zlib = ZlibRead(path);
    if (got.error.empty()) {
      ASSERT_EQ(zlib, got) << i;
    } else {
      ASSERT_THAT(got.error, ::testing::StartsWith(path + ": cannot read: ")) << i;
      ++refused;
    }
    if (!zlib.error.empty()) {
      ASSERT_NE(got.error, "") << i << ": zlib: " << zlib.error;
    }
  }
  EXPECT_GT(refused, 1900);  // nearly every change breaks the crc32 if nothing else
}

TEST_F(GzInputTest, RowReaderReadsAndRefusesThroughIt) {
  const std::string a = "1,2,3\n4,5,6\n", b = "7,8,9\n";
  auto reader = RowReader::Open(Write("r.csv.gz", Gzip(a) + Gzip(b)));
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> first;
  while (*(*reader)->Next()) first.push_back((*reader)->field(0));
  EXPECT_EQ(first, (std::vector<std::string>{"1", "4", "7"}));
  const std::string gz = Gzip(CsvText(5000, 12));
  const std::string path = Write("cut.csv.gz", gz.substr(0, gz.size() / 2));
  reader = RowReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<bool> more = true;
  while (more.ok() && *more) more = (*reader)->Next();
  EXPECT_EQ(StatusMessage(more.status()), path + ": cannot read: unexpected end of file");
  EXPECT_EQ(more.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace weft
