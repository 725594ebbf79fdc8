#include "report/csv_rows.h"

#include <csv.h>

#include <charconv>
#include <cstdio>
#include <memory>

#include "fmt/format.h"
#include "metrics/result_file.h"

namespace weft::report {

std::string_view CsvRow::Text(size_t i) const {
  const int p = positions_[i];
  return p >= 0 && static_cast<size_t>(p) < fields_.size() ? std::string_view(fields_[p]) : std::string_view();
}

double CsvRow::Number(size_t i) const {
  const std::string_view text = Text(i);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if ((ec != std::errc() || end != text.data() + text.size() || text.empty()) && error_.empty()) {
    error_ = fmt::format("{}: line {}, column {}: \"{}\" is not a number", path_, line_, names_[i], text);
  }
  return value;
}

// CsvReaderState collects libcsv's field and row callbacks into a CsvRow.
class CsvReaderState {
 public:
  CsvReaderState(const std::string& path, const std::vector<std::string>& required,
                 const std::vector<std::string>& optional, const std::function<void(const CsvRow&)>& on_row)
      : required_(required.size()), on_row_(on_row) {
    row_.path_ = path;
    row_.names_ = required;
    row_.names_.insert(row_.names_.end(), optional.begin(), optional.end());
    row_.positions_.assign(row_.names_.size(), -1);
  }

  static void OnField(void* text, size_t length, void* self) {
    auto* s = static_cast<CsvReaderState*>(self);
    if (s->count_ < s->row_.fields_.size()) {
      s->row_.fields_[s->count_].assign(static_cast<const char*>(text), length);
    } else {
      s->row_.fields_.emplace_back(static_cast<const char*>(text), length);
    }
    ++s->count_;
  }

  static void OnRowEnd(int /*terminator*/, void* self) { static_cast<CsvReaderState*>(self)->EndRow(); }

  const std::string& error() const { return error_; }
  bool saw_header() const { return row_.line_ > 0; }

 private:
  void EndRow() {
    const size_t count = count_;
    count_ = 0;
    ++row_.line_;
    if (!error_.empty()) return;
    if (row_.line_ == 1) {
      for (size_t c = 0; c < count; ++c) {
        for (size_t i = 0; i < row_.names_.size(); ++i) {
          if (row_.fields_[c] == row_.names_[i]) row_.positions_[i] = static_cast<int>(c);
        }
      }
      for (size_t i = 0; i < required_; ++i) {
        if (row_.positions_[i] < 0) error_ = fmt::format("{}: no column \"{}\" in the header", row_.path_, row_.names_[i]);
      }
      width_ = count;
      return;
    }
    if (count != width_) {
      error_ = fmt::format("{}: line {} has {} fields, the header {}", row_.path_, row_.line_, count, width_);
      return;
    }
    row_.fields_.resize(count);
    on_row_(row_);
    if (!row_.error_.empty()) error_ = row_.error_;
  }

  size_t required_;
  const std::function<void(const CsvRow&)>& on_row_;
  CsvRow row_;
  size_t count_ = 0;
  size_t width_ = 0;
  std::string error_;
};

absl::Status ReadCsvRows(const std::string& path, const std::vector<std::string>& required,
                         const std::vector<std::string>& optional, const std::function<void(const CsvRow&)>& on_row) {
  csv_parser parser;
  if (csv_init(&parser, CSV_APPEND_NULL) != 0) return absl::InternalError("libcsv: out of memory");
  CsvReaderState state(path, required, optional, on_row);
  bool ok = true;
  const absl::Status read = ReadResultFile(path, [&](const char* data, size_t n) {
    if (csv_parse(&parser, data, n, &CsvReaderState::OnField, &CsvReaderState::OnRowEnd, &state) != n) {
      ok = false;
      return absl::CancelledError();
    }
    return state.error().empty() ? absl::OkStatus() : absl::CancelledError();
  });
  if (!read.ok() && !absl::IsCancelled(read)) {
    csv_free(&parser);
    return read;
  }
  if (ok) csv_fini(&parser, &CsvReaderState::OnField, &CsvReaderState::OnRowEnd, &state);
  const std::string parse_error = ok ? "" : csv_strerror(csv_error(&parser));
  csv_free(&parser);
  if (!state.error().empty()) return absl::InvalidArgumentError(state.error());
  if (!ok) return absl::InvalidArgumentError(fmt::format("{}: {}", path, parse_error));
  if (!state.saw_header()) return absl::InvalidArgumentError(fmt::format("{}: empty, no header", path));
  return absl::OkStatus();
}

}  // namespace weft::report
