#include "runtime/journal.h"

#include <sqlite3.h>

#include <system_error>
#include <utility>

#include "core/status.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "runtime/sqlite_statement.h"

namespace weft::runtime {

using sqlite::Exec;
using sqlite::ForEachRow;
using sqlite::QueryInt;
using sqlite::QueryText;
using sqlite::RowReader;
using sqlite::SqlStatus;
using sqlite::Statement;

namespace {

// Schema version 1. Resources are one INTEGER column per resource, in the
// exact micro-units Resources holds, so a round trip is exact.
static_assert(kNumResources == 4,
              "a new resource changes the journal's columns: bump Journal::kSchemaVersion and "
              "migrate older journals in Open");

// PRAGMA application_id marks the file as a weft journal ("weft" in ASCII).
constexpr int kApplicationId = 0x77656674;
constexpr int64_t kIncrementalVacuum = 2;  // PRAGMA auto_vacuum's value for INCREMENTAL
constexpr int64_t kWalSizeLimitBytes = 4 << 20;
constexpr int kOkOutcome = static_cast<int>(Outcome::kOk);

std::string ResourceColumns(std::string_view prefix) {
  std::string out;
  for (const std::string_view name : kResourceNames) out += fmt::format(", {}_{}", prefix, name);
  return out;
}

const std::string kNodeColumns = "slot, name" + ResourceColumns("cap");
const std::string kJobColumns = "id, name, spec_json, submitted_us, state, end_us";
const std::string kAttemptColumns =
    "job, stage, task, attempt, machine, ready_us, start_us, end_us, outcome" +
    ResourceColumns("demand") + ResourceColumns("usage") + ", locality, in_container";

std::string ResourceSchema(std::string_view prefix) {
  std::string out;
  for (const std::string_view name : kResourceNames) {
    out += fmt::format(", {}_{} INTEGER NOT NULL", prefix, name);
  }
  return out;
}

// The partial unique index is what makes "no task reported ok twice" a
// property of the file, not of the caller: a second ok row cannot exist.
std::string SchemaSql() {
  return fmt::format(
      "CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;"
      "CREATE TABLE nodes(slot INTEGER PRIMARY KEY, name TEXT NOT NULL{}) STRICT;"
      "CREATE TABLE jobs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, spec_json TEXT NOT NULL,"
      " submitted_us INTEGER NOT NULL, state INTEGER NOT NULL, end_us INTEGER NOT NULL) STRICT;"
      "CREATE TABLE attempts(seq INTEGER PRIMARY KEY, job INTEGER NOT NULL, stage INTEGER NOT NULL,"
      " task INTEGER NOT NULL, attempt INTEGER NOT NULL, machine INTEGER NOT NULL,"
      " ready_us INTEGER NOT NULL, start_us INTEGER NOT NULL, end_us INTEGER NOT NULL,"
      " outcome INTEGER NOT NULL{}{}, locality INTEGER NOT NULL, in_container INTEGER NOT NULL)"
      " STRICT;"
      "CREATE UNIQUE INDEX attempts_one_ok ON attempts(job, stage, task) WHERE outcome = {};"
      "PRAGMA application_id = {};"
      "PRAGMA user_version = {};",
      ResourceSchema("cap"), ResourceSchema("demand"), ResourceSchema("usage"), kOkOutcome,
      kApplicationId, Journal::kSchemaVersion);
}

std::string Placeholders(std::string_view columns) {
  std::string out = "?";
  for (const char c : columns) {
    if (c == ',') out += ", ?";
  }
  return out;
}

}  // namespace

struct JournalDb {
  // close_v2 waits for the statements below, which are destroyed after this
  // body runs, and then checkpoints the WAL and closes the file.
  ~JournalDb() { sqlite3_close_v2(db); }
  sqlite3* db = nullptr;
  std::string path;
  Statement set_meta, put_node, add_job, add_attempt, end_job, job_state, delete_jobs, delete_attempts;
  Statement savepoint, release, rollback_to;
};

namespace {

// CheckVersion accepts an empty database (returns true: the schema is still to
// be created) or a weft journal of a version this build reads (false). It only
// reads, so a file it refuses is left as it was.
absl::StatusOr<bool> CheckVersion(sqlite3* db, const std::string& path) {
  ASSIGN_OR_RETURN(const int64_t version, QueryInt(db, "PRAGMA user_version"));
  ASSIGN_OR_RETURN(const int64_t app, QueryInt(db, "PRAGMA application_id"));
  if (version == 0) {
    ASSIGN_OR_RETURN(const int64_t objects, QueryInt(db, "SELECT count(*) FROM sqlite_schema"));
    if (objects != 0 || app != 0) {
      return absl::DataLossError(
          fmt::format("{} is an SQLite database but not a weft journal", path));
    }
    return true;
  }
  if (app != kApplicationId) {
    return absl::DataLossError(
        fmt::format("{} is an SQLite database but not a weft journal", path));
  }
  if (version > Journal::kSchemaVersion) {
    return absl::FailedPreconditionError(
        fmt::format("{} is a weft journal of schema version {}, newer than this weft reads ({}): "
                    "use a newer weft",
                    path, version, Journal::kSchemaVersion));
  }
  return false;
}

absl::Status Configure(JournalDb& d, JournalOptions options) {
  sqlite3* db = d.db;
  sqlite3_extended_result_codes(db, 1);
  // Exclusive locking: the first write below takes the file lock and keeps it
  // until close, so a second scheduler on the same dir fails at Open. It also
  // means WAL without a shared-memory index (one connection only).
  RETURN_IF_ERROR(Exec(db, "PRAGMA locking_mode = EXCLUSIVE"));
  ASSIGN_OR_RETURN(const bool fresh, CheckVersion(db, d.path));
  // Incremental auto-vacuum (retention, issue 20): DeleteJobs gives the pages
  // it frees back to the file system, so the file shrinks after a compaction.
  // It can only be chosen before the first table exists; an older journal
  // made without it is converted once below.
  if (fresh) RETURN_IF_ERROR(Exec(db, "PRAGMA auto_vacuum = INCREMENTAL"));
  RETURN_IF_ERROR(Exec(db, "PRAGMA journal_mode = WAL"));
  ASSIGN_OR_RETURN(const std::string journal_mode, QueryText(db, "PRAGMA journal_mode"));
  if (journal_mode != "wal") {
    return absl::FailedPreconditionError(fmt::format(
        "{}: cannot switch to WAL mode (journal_mode is \"{}\")", d.path, journal_mode));
  }
  RETURN_IF_ERROR(Exec(db, options.sync == JournalSync::kFull ? "PRAGMA synchronous = FULL"
                                                              : "PRAGMA synchronous = NORMAL"));
  // After a checkpoint the WAL is cut back to this size: a big batch (a large
  // submit, a compaction's vacuum) does not leave a WAL file that large.
  RETURN_IF_ERROR(Exec(db, fmt::format("PRAGMA journal_size_limit = {}", kWalSizeLimitBytes)));
  if (!fresh) {
    ASSIGN_OR_RETURN(const int64_t auto_vacuum, QueryInt(db, "PRAGMA auto_vacuum"));
    // A journal written before incremental auto-vacuum: converted by one full
    // VACUUM (a copy of the file; seconds for a large journal, once).
    if (auto_vacuum != kIncrementalVacuum) {
      RETURN_IF_ERROR(Exec(db, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM;"));
    }
  }
  // A write transaction (empty for an existing journal) takes the exclusive
  // lock now rather than at the first real write.
  return Exec(db, "BEGIN IMMEDIATE;" + (fresh ? SchemaSql() : std::string()) + "COMMIT;");
}

absl::Status PrepareAll(JournalDb& d) {
  sqlite3* db = d.db;
  auto prepare = [db](Statement& s, const std::string& sql) -> absl::Status {
    ASSIGN_OR_RETURN(s, Statement::Prepare(db, sql));
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(prepare(d.set_meta, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
  RETURN_IF_ERROR(prepare(d.put_node, fmt::format("INSERT OR REPLACE INTO nodes({}) VALUES({})",
                                                  kNodeColumns, Placeholders(kNodeColumns))));
  RETURN_IF_ERROR(prepare(d.add_job, fmt::format("INSERT INTO jobs({}) VALUES({})", kJobColumns,
                                                 Placeholders(kJobColumns))));
  RETURN_IF_ERROR(
      prepare(d.add_attempt, fmt::format("INSERT INTO attempts({}) VALUES({})", kAttemptColumns,
                                         Placeholders(kAttemptColumns))));
  RETURN_IF_ERROR(prepare(
      d.end_job, fmt::format("UPDATE jobs SET state = ?, end_us = ? WHERE id = ? AND state = {}",
                             static_cast<int>(JournalJob::State::kActive))));
  RETURN_IF_ERROR(prepare(d.job_state, "SELECT state FROM jobs WHERE id = ?"));
  RETURN_IF_ERROR(prepare(d.delete_jobs, "DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))"));
  RETURN_IF_ERROR(
      prepare(d.delete_attempts, "DELETE FROM attempts WHERE job IN (SELECT value FROM json_each(?))"));
  // One savepoint name for every level: SQLite resolves a name to the most
  // recent savepoint that has it, which is exactly the innermost batch.
  RETURN_IF_ERROR(prepare(d.savepoint, "SAVEPOINT weft_batch"));
  RETURN_IF_ERROR(prepare(d.release, "RELEASE weft_batch"));
  return prepare(d.rollback_to, "ROLLBACK TO weft_batch");
}

}  // namespace

Journal::Journal(std::unique_ptr<JournalDb> db) : db_(std::move(db)) {}

Journal::~Journal() {
  while (depth_ > 0) Rollback();
}

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const std::filesystem::path& dir,
                                                       JournalOptions options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        fmt::format("cannot create journal directory {}: {}", dir.string(), ec.message()));
  }
  auto d = std::make_unique<JournalDb>();
  d->path = (dir / "journal.db").string();
  const int rc =
      sqlite3_open_v2(d->path.c_str(), &d->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) return SqlStatus(d->db, rc, "opening " + d->path);
  RETURN_IF_ERROR(Configure(*d, options));
  if (const absl::Status s = PrepareAll(*d); !s.ok()) {
    return absl::DataLossError(
        fmt::format("{} does not have the weft journal schema of version {}: {}", d->path,
                    kSchemaVersion, StatusMessage(s)));
  }
  return std::unique_ptr<Journal>(new Journal(std::move(d)));
}

namespace {

void ReadAttempt(RowReader& r, AttemptRecord& a) {
  a.task.job = JobId(r.U32());
  a.task.stage = r.U32();
  a.task.index = r.U32();
  a.attempt = r.U32();
  a.machine = MachineId(r.U32());
  a.ready_us = r.I64();
  a.start_us = r.I64();
  a.end_us = r.I64();
  a.outcome = r.As(Outcome::kKilled);
  a.demand = r.Res();
  a.usage = r.Res();
  a.locality = r.As(Locality::kRemote);
  a.in_container = r.Range(0, 1) != 0;
}

// IdList: "[1,2,3]" for json_each (numbers only).
std::string IdList(std::span<const JobId> ids) {
  nlohmann::json list = nlohmann::json::array();
  for (const JobId id : ids) list.push_back(id.value());
  return list.dump();
}

}  // namespace

absl::StatusOr<std::vector<AttemptRecord>> Journal::LoadAttempts(std::span<const JobId> ids) {
  std::vector<AttemptRecord> out;
  if (ids.empty()) return out;
  RETURN_IF_ERROR(ForEachRow(
      db_->db,
      fmt::format("SELECT {} FROM attempts WHERE job IN (SELECT value FROM json_each('{}')) ORDER BY seq",
                  kAttemptColumns, IdList(ids)),
      "attempts", [&](RowReader& r) { ReadAttempt(r, out.emplace_back()); }));
  return out;
}

absl::StatusOr<Recovered> Journal::Load() {
  Recovered out;
  sqlite3* db = db_->db;
  RETURN_IF_ERROR(
      ForEachRow(db, "SELECT key, value FROM meta ORDER BY key", "meta", [&](RowReader& r) {
        std::string key = r.Text();
        out.meta[std::move(key)] = r.Text();
      }));
  RETURN_IF_ERROR(ForEachRow(db, fmt::format("SELECT {} FROM nodes ORDER BY slot", kNodeColumns),
                             "nodes", [&](RowReader& r) {
                               JournalNode& n = out.nodes.emplace_back();
                               n.slot = r.U32();
                               n.name = r.Text();
                               n.capacity = r.Res();
                             }));
  RETURN_IF_ERROR(ForEachRow(db, fmt::format("SELECT {} FROM jobs ORDER BY id", kJobColumns),
                             "jobs", [&](RowReader& r) {
                               JournalJob& j = out.jobs.emplace_back();
                               j.id = JobId(r.U32());
                               j.name = r.Text();
                               j.spec_json = r.Text();
                               j.submitted_us = r.I64();
                               j.state = r.As(JournalJob::State::kCancelled);
                               j.end_us = r.I64();
                             }));
  RETURN_IF_ERROR(ForEachRow(db, fmt::format("SELECT {} FROM attempts ORDER BY seq", kAttemptColumns),
                             "attempts", [&](RowReader& r) { ReadAttempt(r, out.attempts.emplace_back()); }));
  return out;
}

template <typename Write>
absl::Status Journal::Mutate(Write&& write) {
  RETURN_IF_ERROR(Begin());
  if (absl::Status s = write(); !s.ok()) {
    Rollback();
    return s;
  }
  return Commit();
}

absl::Status Journal::SetMeta(std::string_view key, std::string_view value) {
  return Mutate([&] { return db_->set_meta.Bind(key).Bind(value).Run(); });
}

absl::Status Journal::PutNode(const JournalNode& node) {
  return Mutate([&] {
    return db_->put_node.Bind(int64_t{node.slot}).Bind(node.name).Bind(node.capacity).Run();
  });
}

absl::Status Journal::AddJobs(std::span<const JournalJob> jobs) {
  return Mutate([&]() -> absl::Status {
    for (const JournalJob& j : jobs) {
      const absl::Status s = db_->add_job.Bind(int64_t{j.id.value()})
                                 .Bind(j.name)
                                 .Bind(j.spec_json)
                                 .Bind(j.submitted_us)
                                 .Bind(static_cast<int64_t>(j.state))
                                 .Bind(j.end_us)
                                 .Run();
      if (absl::IsAlreadyExists(s)) {
        return absl::AlreadyExistsError(
            fmt::format("job {} is already in the journal", j.id.value()));
      }
      RETURN_IF_ERROR(s);
    }
    return absl::OkStatus();
  });
}

absl::Status Journal::RecordAttempts(std::span<const AttemptRecord> attempts) {
  return Mutate([&]() -> absl::Status {
    for (const AttemptRecord& a : attempts) {
      const absl::Status s = db_->add_attempt.Bind(int64_t{a.task.job.value()})
                                 .Bind(int64_t{a.task.stage})
                                 .Bind(int64_t{a.task.index})
                                 .Bind(int64_t{a.attempt})
                                 .Bind(int64_t{a.machine.value()})
                                 .Bind(a.ready_us)
                                 .Bind(a.start_us)
                                 .Bind(a.end_us)
                                 .Bind(static_cast<int64_t>(a.outcome))
                                 .Bind(a.demand)
                                 .Bind(a.usage)
                                 .Bind(static_cast<int64_t>(a.locality))
                                 .Bind(int64_t{a.in_container})
                                 .Run();
      if (absl::IsAlreadyExists(s)) {
        return absl::AlreadyExistsError(
            fmt::format("task {}/{}/{} (job/stage/task) already has an ok attempt in the journal",
                        a.task.job.value(), a.task.stage, a.task.index));
      }
      RETURN_IF_ERROR(s);
    }
    return absl::OkStatus();
  });
}

absl::Status Journal::EndJob(JobId id, JournalJob::State state, TimeUs end_us) {
  if (state == JournalJob::State::kActive) {
    return absl::InvalidArgumentError(
        fmt::format("EndJob of job {} with state active", id.value()));
  }
  return Mutate([&]() -> absl::Status {
    RETURN_IF_ERROR(db_->end_job.Bind(static_cast<int64_t>(state))
                        .Bind(end_us)
                        .Bind(int64_t{id.value()})
                        .Run());
    if (sqlite3_changes(db_->db) == 1) return absl::OkStatus();
    ASSIGN_OR_RETURN(const bool found, db_->job_state.Bind(int64_t{id.value()}).Step());
    if (!found) return absl::NotFoundError(fmt::format("job {} is not in the journal", id.value()));
    RETURN_IF_ERROR(db_->job_state.Step().status());  // finish the query
    return absl::FailedPreconditionError(fmt::format("job {} has already ended", id.value()));
  });
}

absl::Status Journal::DeleteJobs(std::span<const JobId> ids) {
  if (ids.empty()) return absl::OkStatus();
  const std::string text = IdList(ids);
  return Mutate([&]() -> absl::Status {
    // One pass over each table for the whole batch (attempts has no index by
    // job alone): the id list goes in as a JSON array.
    RETURN_IF_ERROR(db_->delete_jobs.Bind(text).Run());
    RETURN_IF_ERROR(db_->delete_attempts.Bind(text).Run());
    // Move the pages at the file's end into the freed ones and cut the file
    // there when the transaction commits (in WAL mode: at the checkpoint
    // that writes it back): the file shrinks with what retention dropped.
    return Exec(db_->db, "PRAGMA incremental_vacuum");
  });
}

absl::Status Journal::Begin() {
  if (depth_ > 0 && sqlite3_get_autocommit(db_->db)) {
    return absl::AbortedError(
        "journal: the batch's transaction was abandoned after an error; Rollback() the batch "
        "first");
  }
  RETURN_IF_ERROR(db_->savepoint.Run());
  ++depth_;
  return absl::OkStatus();
}

absl::Status Journal::Commit() {
  if (depth_ == 0) return absl::FailedPreconditionError("journal: Commit() without Begin()");
  if (sqlite3_get_autocommit(db_->db)) {
    return absl::AbortedError(
        "journal: the batch's transaction was abandoned after an error; Rollback() the batch "
        "first");
  }
  // Releasing the outermost savepoint commits the transaction (and, with
  // synchronous=FULL, fsyncs the WAL) before it returns.
  if (absl::Status s = db_->release.Run(); !s.ok()) {
    if (depth_ == 1) {
      if (!sqlite3_get_autocommit(db_->db))
        sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
      depth_ = 0;
    }
    return s;
  }
  --depth_;
  return absl::OkStatus();
}

void Journal::Rollback() {
  if (depth_ == 0) return;
  --depth_;
  if (sqlite3_get_autocommit(db_->db)) return;  // SQLite already rolled everything back
  // ROLLBACK TO keeps the savepoint open; RELEASE then closes it (and, for
  // the outermost, ends the now empty transaction).
  if (!db_->rollback_to.Run().ok() || !db_->release.Run().ok()) {
    sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    depth_ = 0;
  }
}

}  // namespace weft::runtime
