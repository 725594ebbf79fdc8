// File: runtime/sqlite_statement.h
//
// The few pieces of the SQLite C API the journal needs, made safe to use:
// SqlStatus (an SQLite result code as an absl::Status), Statement (an owned
// prepared statement with bound parameters), RowReader (a row's columns read
// in order, with range checks) and one-line helpers. Same threading contract
// as the connection they are used with: one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/status.h"
#include "model/resources.h"

namespace weft::runtime::sqlite {

// SqlStatus turns SQLite result code `rc` of `what` (the SQL) into weft's
// error convention, naming the database file: corrupt or foreign file ->
// DataLoss, locked -> FailedPrecondition, constraint -> AlreadyExists, I/O
// and full disk -> Unavailable, anything else -> Internal.
absl::Status SqlStatus(sqlite3* db, int rc, std::string_view what);

// Statement owns one prepared statement. Bind() fills the parameters in
// order; Step() resets the statement when it is done or fails, so it is ready
// for the next use.
class Statement {
 public:
  Statement() = default;
  Statement(Statement&& o) noexcept : stmt_(std::exchange(o.stmt_, nullptr)) {}
  Statement& operator=(Statement&& o) noexcept {
    std::swap(stmt_, o.stmt_);
    return *this;
  }
  ~Statement() { sqlite3_finalize(stmt_); }

  static absl::StatusOr<Statement> Prepare(sqlite3* db, const std::string& sql);

  Statement& Bind(int64_t v) { return Check(sqlite3_bind_int64(stmt_, ++bound_, v)); }
  Statement& Bind(std::string_view v) {
    return Check(
        sqlite3_bind_text(stmt_, ++bound_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  // Bind(Resources) binds one integer (micro-units) per resource, in order.
  Statement& Bind(const Resources& r);

  // Step returns true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Run steps a statement that returns no rows.
  absl::Status Run() { return Step().status(); }

  sqlite3_stmt* get() const { return stmt_; }

 private:
  Statement& Check(int rc) {
    if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
    return *this;
  }
  sqlite3_stmt* stmt_ = nullptr;
  int bound_ = 0;
  int bind_rc_ = SQLITE_OK;
};

// RowReader reads the columns of the current row in order, checking ranges: a
// file that SQLite reads fine may still hold values no weft wrote.
class RowReader {
 public:
  explicit RowReader(const Statement& s) : stmt_(s.get()) {}

  int64_t I64() { return sqlite3_column_int64(stmt_, col_++); }
  int64_t Range(int64_t lo, int64_t hi) {
    const int64_t v = I64();
    if (v < lo || v > hi) bad_ = true;
    return v;
  }
  uint32_t U32() { return static_cast<uint32_t>(Range(0, UINT32_MAX)); }
  // As reads an enum whose values run from 0 to `last`.
  template <typename Enum>
  Enum As(Enum last) {
    return static_cast<Enum>(Range(0, static_cast<int64_t>(last)));
  }
  std::string Text();
  Resources Res();  // one non-negative integer column per resource
  // Done: DataLoss naming `table` if any value read was out of range.
  absl::Status Done(std::string_view table) const;

 private:
  sqlite3_stmt* stmt_;
  int col_ = 0;
  bool bad_ = false;
};

// ForEachRow runs `query` and calls `read(RowReader&)` for each row.
template <typename Read>
absl::Status ForEachRow(sqlite3* db, const std::string& query, std::string_view table,
                        Read&& read) {
  ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db, query));
  for (;;) {
    ASSIGN_OR_RETURN(const bool row, s.Step());
    if (!row) return absl::OkStatus();
    RowReader r(s);
    read(r);
    RETURN_IF_ERROR(r.Done(table));
  }
}

// QueryInt: the first column of the first row of `sql` (0 when no row).
absl::StatusOr<int64_t> QueryInt(sqlite3* db, const std::string& sql);
// QueryText: likewise, as text.
absl::StatusOr<std::string> QueryText(sqlite3* db, const std::string& sql);
// Exec runs statements that return nothing the caller needs.
absl::Status Exec(sqlite3* db, const std::string& sql);

}  // namespace weft::runtime::sqlite
