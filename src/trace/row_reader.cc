#include "trace/row_reader.h"

#include <csv.h>
#include <zlib.h>

#include <charconv>
#include <cmath>
#include <filesystem>

#include "core/status.h"
#include "fmt/format.h"

namespace weft {
namespace {

constexpr size_t kChunk = 1 << 16;

}  // namespace

absl::StatusOr<std::unique_ptr<GzInput>> GzInput::Open(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::InvalidArgumentError(fmt::format("{}: no such file", path));
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(fmt::format("{}: is a directory", path));
  }
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) return absl::InvalidArgumentError(fmt::format("{}: cannot open", path));
  gzbuffer(gz, kChunk);
  return std::unique_ptr<GzInput>(new GzInput(gz, path));
}

GzInput::~GzInput() { gzclose(static_cast<gzFile>(gz_)); }

absl::StatusOr<size_t> GzInput::Read(char* buf, size_t size) {
  const int n = gzread(static_cast<gzFile>(gz_), buf, static_cast<unsigned>(size));
  if (n < 0) {
    int code = 0;
    const char* message = gzerror(static_cast<gzFile>(gz_), &code);
    return absl::InvalidArgumentError(fmt::format("{}: cannot read: {}", path_, message));
  }
  return static_cast<size_t>(n);
}

// libcsv calls these as it parses a chunk: a field ends, a record ends.
struct RowReaderCallbacks {
  static void Field(void* text, size_t len, void* data) {
    auto* r = static_cast<RowReader*>(data);
    if (r->filled_ == r->rows_.size()) r->rows_.emplace_back();
    std::vector<std::string>& row = r->rows_[r->filled_];
    const char* chars = text == nullptr ? "" : static_cast<const char*>(text);
    if (r->field_ < row.size()) {
      row[r->field_].assign(chars, len);
    } else {
      row.emplace_back(chars, len);
    }
    ++r->field_;
  }
  static void Record(int /*terminator*/, void* data) {
    auto* r = static_cast<RowReader*>(data);
    if (r->filled_ == r->rows_.size()) r->rows_.emplace_back();  // a record of no field
    r->rows_[r->filled_].resize(r->field_);
    ++r->filled_;
    r->field_ = 0;
  }
};

absl::StatusOr<std::unique_ptr<RowReader>> RowReader::Open(const std::string& path, char delimiter) {
  std::unique_ptr<RowReader> r(new RowReader());
  ASSIGN_OR_RETURN(r->input_, GzInput::Open(path));
  auto* parser = new csv_parser;
  // Strict: an unterminated or stray quote is an error, not silently kept text.
  if (csv_init(parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    delete parser;
    return absl::InternalError("libcsv: cannot initialise");
  }
  csv_set_delim(parser, static_cast<unsigned char>(delimiter));
  r->parser_ = parser;
  r->chunk_.resize(kChunk);
  return r;
}

RowReader::~RowReader() {
  if (parser_ != nullptr) {
    csv_free(static_cast<csv_parser*>(parser_));
    delete static_cast<csv_parser*>(parser_);
  }
}

absl::StatusOr<bool> RowReader::Next() {
  auto* parser = static_cast<csv_parser*>(parser_);
  if (current_ + 1 < filled_) {
    ++current_;
    ++row_number_;
    return true;
  }
  // Every parsed row was handed out: parse the next chunk into the same rows,
  // keeping the fields of a row that the last chunk cut short.
  if (field_ > 0) std::swap(rows_[0], rows_[filled_]);
  filled_ = 0;
  current_ = 0;
  while (filled_ == 0 && !at_end_) {
    ASSIGN_OR_RETURN(const size_t n, input_->Read(chunk_.data(), chunk_.size()));
    if (n == 0) {
      at_end_ = true;
      if (csv_fini(parser, RowReaderCallbacks::Field, RowReaderCallbacks::Record, this) != 0) {
        return absl::InvalidArgumentError(
            fmt::format("{}: row {}: unterminated quoted field", file(), row_number_ + filled_ + 1));
      }
    } else if (csv_parse(parser, chunk_.data(), n, RowReaderCallbacks::Field, RowReaderCallbacks::Record, this) != n) {
      return absl::InvalidArgumentError(fmt::format("{}: row {}: {}", file(), row_number_ + filled_ + 1,
                                                    csv_strerror(csv_error(parser))));
    }
  }
  if (filled_ == 0) return false;
  ++row_number_;
  return true;
}

absl::Status RowReader::Error(std::string_view what) const {
  return absl::InvalidArgumentError(fmt::format("{}: row {}: {}", file(), row_number_, what));
}

absl::Status RowReader::ColumnError(size_t column, std::string_view name, std::string_view what) const {
  return absl::InvalidArgumentError(fmt::format("{}: row {}, column {} ({}): {}", file(), row_number_, column + 1,
                                                name, what));
}

absl::Status RowReader::ExpectColumns(size_t n, std::string_view table) const {
  if (size() == n) return absl::OkStatus();
  return Error(fmt::format("{} columns, but a {} row has {}", size(), table, n));
}

absl::Status RowReader::RefuseHeader(std::string_view table) const {
  if (row_number_ != 1 || fields().empty() || ParseFiniteNumber(field(0))) return absl::OkStatus();
  return ColumnError(0, "first", fmt::format("\"{}\" is not a number: {} files have no header row", field(0), table));
}

std::optional<int64_t> ParseWholeNumber(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> ParseFiniteNumber(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

absl::StatusOr<std::optional<int64_t>> RowReader::OptionalInt(size_t column, std::string_view name) const {
  if (column >= size()) return ColumnError(column, name, "is missing");
  const std::string& text = field(column);
  if (text.empty()) return std::optional<int64_t>();
  std::optional<int64_t> v = ParseWholeNumber(text);
  if (!v) return ColumnError(column, name, fmt::format("\"{}\" is not a whole number", text));
  return v;
}

absl::StatusOr<int64_t> RowReader::Int(size_t column, std::string_view name) const {
  ASSIGN_OR_RETURN(std::optional<int64_t> v, OptionalInt(column, name));
  if (!v) return ColumnError(column, name, "is empty");
  return *v;
}

absl::StatusOr<std::optional<double>> RowReader::OptionalNumber(size_t column, std::string_view name) const {
  if (column >= size()) return ColumnError(column, name, "is missing");
  const std::string& text = field(column);
  if (text.empty()) return std::optional<double>();
  std::optional<double> v = ParseFiniteNumber(text);
  if (!v) return ColumnError(column, name, fmt::format("\"{}\" is not a number", text));
  return v;
}

absl::StatusOr<double> RowReader::Number(size_t column, std::string_view name) const {
  ASSIGN_OR_RETURN(std::optional<double> v, OptionalNumber(column, name));
  if (!v) return ColumnError(column, name, "is empty");
  return *v;
}

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path) {
  auto r = std::make_unique<LineReader>();
  ASSIGN_OR_RETURN(r->input_, GzInput::Open(path));
  return r;
}

absl::StatusOr<bool> LineReader::Next() {
  while (true) {
    const size_t newline = buffer_.find('\n', pos_);
    if (newline == std::string::npos && !at_end_) {
      buffer_.erase(0, pos_);
      pos_ = 0;
      const size_t old = buffer_.size();
      buffer_.resize(old + kChunk);
      ASSIGN_OR_RETURN(const size_t n, input_->Read(buffer_.data() + old, kChunk));
      buffer_.resize(old + n);
      at_end_ = n == 0;
      continue;
    }
    if (newline == std::string::npos && pos_ >= buffer_.size()) return false;
    const size_t end = newline == std::string::npos ? buffer_.size() : newline;
    line_.assign(buffer_, pos_, end - pos_);
    pos_ = end + 1;
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.find_first_not_of(" \t") != std::string::npos) return true;
  }
}

absl::Status LineReader::Error(std::string_view what) const {
  return absl::InvalidArgumentError(fmt::format("{}: line {}: {}", file(), line_number_, what));
}

}  // namespace weft
