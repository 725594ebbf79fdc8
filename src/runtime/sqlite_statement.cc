#include "runtime/sqlite_statement.h"

#include <limits>

#include "fmt/format.h"

namespace weft::runtime::sqlite {

absl::Status SqlStatus(sqlite3* db, int rc, std::string_view what) {
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  const std::string msg = fmt::format("journal {}: {} (in \"{}\")", file ? file : "",
                                      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), what);
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::DataLossError(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::FailedPreconditionError(msg + " (is another scheduler using this state dir?)");
    case SQLITE_CONSTRAINT:
      return absl::AlreadyExistsError(msg);
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      return absl::UnavailableError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::StatusOr<Statement> Statement::Prepare(sqlite3* db, const std::string& sql) {
  Statement s;
  const int rc = sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &s.stmt_, nullptr);
  if (rc != SQLITE_OK) return SqlStatus(db, rc, sql);
  return s;
}

Statement& Statement::Bind(const Resources& r) {
  for (int i = 0; i < kNumResources; ++i) Bind(r.micro(static_cast<Resource>(i)));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  const int rc = bind_rc_ == SQLITE_OK ? sqlite3_step(stmt_) : bind_rc_;
  if (rc == SQLITE_ROW) return true;
  absl::Status status;
  if (rc != SQLITE_DONE) status = SqlStatus(sqlite3_db_handle(stmt_), rc, sqlite3_sql(stmt_));
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bound_ = 0;
  bind_rc_ = SQLITE_OK;
  if (!status.ok()) return status;
  return false;
}

std::string RowReader::Text() {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col_));
  const int n = sqlite3_column_bytes(stmt_, col_++);
  return p ? std::string(p, n) : std::string();
}

Resources RowReader::Res() {
  Resources r;
  for (int i = 0; i < kNumResources; ++i) {
    r.set_micro(static_cast<Resource>(i), Range(0, std::numeric_limits<int64_t>::max()));
  }
  return r;
}

absl::Status RowReader::Done(std::string_view table) const {
  if (!bad_) return absl::OkStatus();
  return absl::DataLossError(fmt::format(
      "journal: a row of table {} holds a value out of range (corrupt journal?)", table));
}

namespace {

// FirstColumn steps `sql` once, reads its first column with `get` and
// finishes the statement.
template <typename T, typename Get>
absl::StatusOr<T> FirstColumn(sqlite3* db, const std::string& sql, Get get) {
  ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db, sql));
  ASSIGN_OR_RETURN(const bool row, s.Step());
  if (!row) return T{};
  RowReader r(s);
  T value = get(r);
  RETURN_IF_ERROR(s.Step().status());
  return value;
}

}  // namespace

absl::StatusOr<int64_t> QueryInt(sqlite3* db, const std::string& sql) {
  return FirstColumn<int64_t>(db, sql, [](RowReader& r) { return r.I64(); });
}

absl::StatusOr<std::string> QueryText(sqlite3* db, const std::string& sql) {
  return FirstColumn<std::string>(db, sql, [](RowReader& r) { return r.Text(); });
}

absl::Status Exec(sqlite3* db, const std::string& sql) {
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? absl::OkStatus() : SqlStatus(db, rc, sql);
}

}  // namespace weft::runtime::sqlite
