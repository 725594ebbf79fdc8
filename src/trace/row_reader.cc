#include "trace/row_reader.h"

#include <csv.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>

#include "core/status.h"
#include "fmt/format.h"

namespace weft {
namespace {

constexpr size_t kChunk = 1 << 16;

}  // namespace

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

absl::StatusOr<std::unique_ptr<RowReader>> RowReader::Open(const std::string& path, char delimiter, Split split) {
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
  r->delimiter_ = delimiter;
  // Spaces and tabs are blank unless one is the delimiter (libcsv's rule).
  r->kinds_.fill(kPlain);
  r->kinds_[' '] = r->kinds_['\t'] = kBlank;
  r->kinds_['\r'] = r->kinds_['\n'] = r->kinds_['"'] = kStop;
  r->kinds_[static_cast<unsigned char>(delimiter)] = kDelimiter;
  r->split_ = split == Split::kFast;
  (r->split_ ? r->buffer_ : r->chunk_).resize(kChunk);
  return r;
}

RowReader::~RowReader() {
  if (parser_ != nullptr) {
    csv_free(static_cast<csv_parser*>(parser_));
    delete static_cast<csv_parser*>(parser_);
  }
}

const std::vector<std::string>& RowReader::fields() const {
  if (!strings_valid_) {
    strings_.resize(row_.size());
    for (size_t c = 0; c < row_.size(); ++c) strings_[c].assign(row_[c]);
    strings_valid_ = true;
  }
  return strings_;
}

absl::StatusOr<bool> RowReader::Next() {
  strings_valid_ = false;
  return split_ ? NextSplit() : NextLibcsv();
}

absl::StatusOr<bool> RowReader::NextSplit() {
  while (true) {
    // One pass over the line, a table lookup a byte: fields are short (a
    // few bytes each), so a call per field (memchr, absl::StrSplit) costs
    // more than the scan. The line ends at its first CR or LF (libcsv ends a
    // row at either; the LF of a CR LF is then a blank line).
    const char* const line = buffer_.data() + pos_;
    const char* const end = buffer_.data() + end_;
    const char* p = line;
    const char* field = line;
    row_.clear();
    bool blanks = false;
    for (; p != end; ++p) {
      const uint8_t kind = kinds_[static_cast<unsigned char>(*p)];
      if (kind == kPlain) continue;
      if (kind == kBlank) {
        blanks = true;
      } else if (kind == kDelimiter) {
        row_.emplace_back(field, static_cast<size_t>(p - field));
        field = p + 1;
      } else {
        break;  // the line's end or a quote
      }
    }
    const bool quote = p != end && *p == '"';
    if (quote) {
      // A quote: libcsv parses the rest of the file, from this line on.
      split_ = false;
      RETURN_IF_ERROR(Parse(line, end_ - pos_));
      if (at_end_) RETURN_IF_ERROR(Finish());
      buffer_ = {};
      chunk_.resize(kChunk);
      return NextLibcsv();
    }
    if (p == end && !at_end_) {
      // No whole line is left: move the part of one to the front and read on.
      if (pos_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
        end_ -= pos_;
        pos_ = 0;
      }
      if (buffer_.size() < end_ + kChunk) buffer_.resize(end_ + kChunk);  // a line longer than a chunk
      ASSIGN_OR_RETURN(const size_t n, input_->Read(buffer_.data() + end_, kChunk));
      end_ += n;
      at_end_ = n == 0;
      continue;
    }
    if (line == end) {  // at the end of the input
      row_.clear();
      return false;
    }
    row_.emplace_back(field, static_cast<size_t>(p - field));
    pos_ = static_cast<size_t>(std::min(p + 1, end) - buffer_.data());
    if (blanks) {
      // libcsv drops spaces and tabs around an unquoted field.
      const auto blank = [this](char c) { return kinds_[static_cast<unsigned char>(c)] == kBlank; };
      for (std::string_view& f : row_) {
        while (!f.empty() && blank(f.front())) f.remove_prefix(1);
        while (!f.empty() && blank(f.back())) f.remove_suffix(1);
      }
    }
    if (row_.size() == 1 && row_[0].empty()) continue;  // a blank line
    ++row_number_;
    return true;
  }
}

absl::Status RowReader::Parse(const char* data, size_t n) {
  if (csv_parse(static_cast<csv_parser*>(parser_), data, n, RowReaderCallbacks::Field, RowReaderCallbacks::Record,
                this) != n) {
    return absl::InvalidArgumentError(fmt::format("{}: row {}: {}", file(), row_number_ + filled_ + 1,
                                                  csv_strerror(csv_error(static_cast<csv_parser*>(parser_)))));
  }
  return absl::OkStatus();
}

absl::Status RowReader::Finish() {
  parsed_all_ = true;
  if (csv_fini(static_cast<csv_parser*>(parser_), RowReaderCallbacks::Field, RowReaderCallbacks::Record, this) != 0) {
    return absl::InvalidArgumentError(
        fmt::format("{}: row {}: unterminated quoted field", file(), row_number_ + filled_ + 1));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> RowReader::NextLibcsv() {
  while (current_ == filled_) {
    if (parsed_all_) {
      row_.clear();
      return false;
    }
    // Every parsed row was handed out: parse the next chunk into the same
    // rows, keeping the fields of a row that the last chunk cut short.
    if (field_ > 0) std::swap(rows_[0], rows_[filled_]);
    filled_ = 0;
    current_ = 0;
    ASSIGN_OR_RETURN(const size_t n, input_->Read(chunk_.data(), chunk_.size()));
    if (n == 0) {
      at_end_ = true;
      RETURN_IF_ERROR(Finish());
    } else {
      RETURN_IF_ERROR(Parse(chunk_.data(), n));
    }
  }
  const std::vector<std::string>& row = rows_[current_++];
  row_.assign(row.begin(), row.end());
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
  if (row_number_ != 1 || row_.empty() || ParseFiniteNumber(view(0))) return absl::OkStatus();
  return ColumnError(0, "first", fmt::format("\"{}\" is not a number: {} files have no header row", view(0), table));
}

absl::Status RowReader::NumberError(size_t column, std::string_view name, bool whole, bool required) const {
  if (column >= size()) return ColumnError(column, name, "is missing");
  const std::string_view text = view(column);
  if (text.empty() && required) return ColumnError(column, name, "is empty");
  return ColumnError(column, name, fmt::format("\"{}\" is not a {}", text, whole ? "whole number" : "number"));
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
