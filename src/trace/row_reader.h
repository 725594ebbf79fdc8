// File: trace/row_reader.h
//
// The row mechanism every trace reader shares: RowReader pulls the rows of
// one delimited file (CSV or TSV) one at a time, and LineReader pulls the
// lines of a newline-delimited JSON file. Both read plain or gzip-compressed
// files alike (trace/gz_input.h), in fixed-size chunks, so memory never
// holds more than a chunk's rows, whatever the file's size.
//
// libcsv defines what a row is. It copies every character into a buffer of
// its own and calls back per field, which was a third of reading a
// published trace (BENCHMARKS.md, "google-2011 reader speed (session 10)");
// so a line with no quote character, which is every line of the published
// traces, is split in place on the delimiter with the same result libcsv
// gives (spaces and tabs around a field dropped, CR, LF or CR LF ending a
// row, blank lines skipped), and from the first line with a quote on, the
// rest of the file goes through libcsv (a quoted field may hold a newline).
//
// Errors name the file, the row and the column, in one line:
//   task_events-part-00001.csv.gz: row 7, column 6 (event_type): "x" is not a whole number
// Bad input is InvalidArgument. Not thread-safe: one reader per thread.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "trace/gz_input.h"

namespace weft {

// ParseWholeNumber and ParseFiniteNumber read a whole field (no spaces);
// nullopt when it is not one.
inline std::optional<int64_t> ParseWholeNumber(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}
inline std::optional<double> ParseFiniteNumber(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

class RowReader {
 public:
  // kLibcsvOnly parses every line with libcsv (tests compare the two paths).
  enum class Split { kFast, kLibcsvOnly };
  // Open prepares to read `path` with fields separated by `delimiter`.
  static absl::StatusOr<std::unique_ptr<RowReader>> Open(const std::string& path, char delimiter = ',',
                                                         Split split = Split::kFast);
  ~RowReader();

  // Next moves to the next row: true when there is one, false at the end.
  // Blank lines are skipped.
  absl::StatusOr<bool> Next();

  // The current row's fields, valid until the next call to Next.
  size_t size() const { return row_.size(); }
  std::string_view view(size_t column) const { return row_[column]; }
  // fields() and field() copy the row into strings, once per row asked.
  const std::vector<std::string>& fields() const;
  const std::string& field(size_t column) const { return fields()[column]; }
  uint64_t row_number() const { return row_number_; }  // 1-based, counting every row of the file
  const std::string& file() const { return input_->path(); }

  // Error: InvalidArgument "FILE: row N: what".
  absl::Status Error(std::string_view what) const;
  // ColumnError: InvalidArgument "FILE: row N, column C (name): what"; C is 1-based.
  absl::Status ColumnError(size_t column, std::string_view name, std::string_view what) const;
  // ExpectColumns refuses a row with other than `n` fields; `table` names the
  // table the reader expected (a file of another table usually differs here).
  absl::Status ExpectColumns(size_t n, std::string_view table) const;

  // RefuseHeader: on the first row of a file whose `table` has no header,
  // refuses a first field that is not a number (a header, or another file).
  absl::Status RefuseHeader(std::string_view table) const;

  // Typed fields (column 0-based); a missing value is an empty field.
  // Inline: a trace's reader asks for several a row, for every row; the
  // errors are built out of line.
  absl::StatusOr<int64_t> Int(size_t column, std::string_view name) const {
    if (column < row_.size()) {
      if (const std::optional<int64_t> v = ParseWholeNumber(row_[column])) return *v;
    }
    return NumberError(column, name, true, true);
  }
  absl::StatusOr<std::optional<int64_t>> OptionalInt(size_t column, std::string_view name) const {
    if (column < row_.size()) {
      if (row_[column].empty()) return std::optional<int64_t>();
      if (const std::optional<int64_t> v = ParseWholeNumber(row_[column])) return v;
    }
    return NumberError(column, name, true, false);
  }
  absl::StatusOr<double> Number(size_t column, std::string_view name) const {  // finite
    if (column < row_.size()) {
      if (const std::optional<double> v = ParseFiniteNumber(row_[column])) return *v;
    }
    return NumberError(column, name, false, true);
  }
  absl::StatusOr<std::optional<double>> OptionalNumber(size_t column, std::string_view name) const {
    if (column < row_.size()) {
      if (row_[column].empty()) return std::optional<double>();
      if (const std::optional<double> v = ParseFiniteNumber(row_[column])) return v;
    }
    return NumberError(column, name, false, false);
  }

 private:
  // NumberError: why the column is not a number (whole or finite, required
  // or not): missing, empty or not one.
  absl::Status NumberError(size_t column, std::string_view name, bool whole, bool required) const;
  RowReader() = default;
  friend struct RowReaderCallbacks;
  // NextSplit: the next row of a line with no quote, split in place; starts
  // libcsv on the rest of the file at the first line with one.
  absl::StatusOr<bool> NextSplit();
  absl::StatusOr<bool> NextLibcsv();
  absl::Status Parse(const char* data, size_t n);  // through libcsv
  absl::Status Finish();                           // libcsv at the end of the input

  std::unique_ptr<GzInput> input_;
  char delimiter_ = ',';
  std::vector<std::string_view> row_;  // the current row
  mutable std::vector<std::string> strings_;  // row_ as strings, when asked
  mutable bool strings_valid_ = false;
  uint64_t row_number_ = 0;
  bool at_end_ = false;  // the input is read to its end

  // The split path: buffer_[pos_, end_) is read and not yet split; kinds_
  // says what each byte is to it.
  enum Kind : uint8_t { kPlain, kBlank, kDelimiter, kStop };  // kStop: CR, LF, quote
  std::array<uint8_t, 256> kinds_{};
  bool split_ = true;
  std::vector<char> buffer_;
  size_t pos_ = 0, end_ = 0;

  // The libcsv path.
  void* parser_ = nullptr;  // struct csv_parser
  // The rows of the chunks parsed so far, rows_[current_] the one handed
  // out; rows_[0, filled_) are complete. The rows and their strings are
  // reused from chunk to chunk, so a long file is read with no allocation
  // per field once the first chunk has sized them.
  std::vector<std::vector<std::string>> rows_{1};
  size_t filled_ = 0;
  size_t current_ = 0;
  size_t field_ = 0;  // fields of rows_[filled_] written so far
  std::vector<char> chunk_;
  bool parsed_all_ = false;  // libcsv has seen the end of the input
};

// ForEachRow calls `row(reader)` for every row of every file in turn,
// counting the rows in `count`; stops at the first error, from a file or
// from `row`.
template <typename F>
absl::Status ForEachRow(const std::vector<std::string>& files, char delimiter, uint64_t& count, F&& row) {
  for (const std::string& file : files) {
    absl::StatusOr<std::unique_ptr<RowReader>> reader = RowReader::Open(file, delimiter);
    if (!reader.ok()) return reader.status();
    while (true) {
      absl::StatusOr<bool> more = (*reader)->Next();
      if (!more.ok()) return more.status();
      if (!*more) break;
      ++count;
      if (absl::Status s = row(static_cast<const RowReader&>(**reader)); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// LineReader pulls the lines of a file (for newline-delimited JSON).
class LineReader {
 public:
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path);
  // Next moves to the next non-blank line: true when there is one.
  absl::StatusOr<bool> Next();
  const std::string& line() const { return line_; }
  uint64_t line_number() const { return line_number_; }
  const std::string& file() const { return input_->path(); }
  // Error: InvalidArgument "FILE: line N: what".
  absl::Status Error(std::string_view what) const;

 private:
  std::unique_ptr<GzInput> input_;
  std::string buffer_;
  size_t pos_ = 0;
  std::string line_;
  uint64_t line_number_ = 0;
  bool at_end_ = false;
};

}  // namespace weft
