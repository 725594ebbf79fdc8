// File: report/csv_rows.h
//
// ReadCsvRows: streams a CSV file through libcsv (quoted fields included),
// one callback per data row, after mapping the requested column names to
// their positions in the header. Row gives fields by requested index and
// parses numbers, with errors that name the file, line and column.
// Not thread-safe (one reader per call).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace weft::report {

class CsvRow {
 public:
  // Text of requested column `i` ("" for an optional column the file lacks).
  std::string_view Text(size_t i) const;
  // Number parses requested column `i` as a decimal; a bad value sets the
  // row's error (checked after the callback) and returns 0.
  double Number(size_t i) const;
  bool Has(size_t i) const { return positions_[i] >= 0; }

 private:
  friend class CsvReaderState;
  std::string path_;
  std::vector<std::string> names_;
  std::vector<int> positions_;  // per requested column: position in the file, -1 if absent
  std::vector<std::string> fields_;
  size_t line_ = 0;
  mutable std::string error_;
};

// ReadCsvRows calls `on_row` for every data row of `path`. Columns in
// `required` must be in the header; those in `optional` may be missing. The
// row's indices are required first, then optional. Errors are
// InvalidArgument: a missing file or column, a short row, a bad number.
absl::Status ReadCsvRows(const std::string& path, const std::vector<std::string>& required,
                         const std::vector<std::string>& optional, const std::function<void(const CsvRow&)>& on_row);

}  // namespace weft::report
