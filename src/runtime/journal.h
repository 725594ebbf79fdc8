// File: runtime/journal.h
//
// Journal is the scheduler daemon's durable memory: the jobs it accepted, the
// nodes it knows, a few meta values and every attempt end, in SQLite
// (DIR/journal.db, WAL mode). The scheduler writes here *before* it
// acknowledges anything, so after a `kill -9` and a restart on the same
// directory Load() gives back everything that was acknowledged: jobs finish,
// finished tasks are not rerun, and no task is recorded ok twice (enforced by
// the journal itself, see RecordAttempts).
//
// Durability: every write returns only after its transaction has committed. By
// default the journal runs with synchronous=FULL, which fsyncs the WAL on each
// commit and survives both a process kill and a power loss; NORMAL (an option,
// for measurement) survives a process kill but may lose the last commits on
// power loss. BENCHMARKS.md ("Runtime: journal") has the cost of each.
//
// Transactions: each mutating call is atomic on its own (all of it or none of
// it). Begin()/Commit() group several calls into one transaction, so the
// driver pays one fsync per batch of events; calls made inside join it, and a
// call that fails inside a batch undoes only its own part (a savepoint). Only
// the outermost Commit() makes the batch durable; acknowledge after it.
//
// The directory is held exclusively while a Journal is open (a second Open of
// the same directory, from this process or another, fails), so two schedulers
// cannot share one state dir. Threading: one writer (the scheduler's driver
// thread); a Journal is not thread-safe. Do not use one across fork().
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ids.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/resources.h"

namespace weft::runtime {

struct JournalDb;  // the SQLite connection and its prepared statements (journal.cc)

// JournalNode: a node the scheduler registered, by its slot (its MachineId).
struct JournalNode {
  uint32_t slot = 0;
  std::string name;
  Resources capacity;

  friend bool operator==(const JournalNode&, const JournalNode&) = default;
};

// JournalJob: a job as accepted, and how it ended.
struct JournalJob {
  JobId id;
  std::string name;
  std::string spec_json;  // the job's JSON object (FORMATS §1), as submitted
  TimeUs submitted_us = 0;
  enum class State : uint8_t { kActive, kSucceeded, kFailed, kCancelled } state = State::kActive;
  TimeUs end_us = 0;

  friend bool operator==(const JournalJob&, const JournalJob&) = default;
};

// Recovered: everything Load() found.
struct Recovered {
  std::map<std::string, std::string> meta;  // e.g. "epoch_unix_us", "policy", "params", "nodes"
  std::vector<JournalNode> nodes;           // ordered by slot
  std::vector<JournalJob> jobs;             // ordered by id
  std::vector<AttemptRecord> attempts;      // every journaled attempt end, in journal order
};

// How often the journal forces its writes to disk (SQLite's `synchronous`).
enum class JournalSync : uint8_t {
  kFull,    // fsync on every commit: survives process kill and power loss (the default)
  kNormal,  // WAL without fsync per commit: survives process kill, not power loss
};

struct JournalOptions {
  JournalSync sync = JournalSync::kFull;
};

class Journal {
 public:
  // The schema version this build writes (SQLite's user_version).
  static constexpr int kSchemaVersion = 1;

  // Open creates `dir` if needed and dir/journal.db, or opens the existing
  // journal there. Fails with FailedPrecondition when the journal was written
  // by a newer weft (unknown schema version) or the directory is in use by
  // another open Journal, DataLoss when journal.db is not a weft journal or is
  // corrupt, and the OS error when the directory cannot be created.
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const std::filesystem::path& dir,
                                                       JournalOptions options = {});
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Load reads the whole journal. DataLoss if a row is corrupt or out of range.
  absl::StatusOr<Recovered> Load();

  // LoadAttempts reads the attempt ends of the given jobs, in journal order.
  absl::StatusOr<std::vector<AttemptRecord>> LoadAttempts(std::span<const JobId> ids);
  // SetMeta inserts or replaces one meta value.
  absl::Status SetMeta(std::string_view key, std::string_view value);

  // PutNode inserts or replaces the node in `node.slot`.
  absl::Status PutNode(const JournalNode& node);

  // AddJobs records accepted jobs, all or none: a job whose id is already in
  // the journal fails the whole call with AlreadyExists and nothing is added.
  // Jobs are recorded with the state and end they carry (normally kActive, 0).
  absl::Status AddJobs(std::span<const JournalJob> jobs);

  // RecordAttempts records attempt ends, all or none. An ok attempt of a task
  // that already has an ok row (in the journal or earlier in `attempts`) is
  // refused: AlreadyExists naming the task, and nothing of the call is kept.
  absl::Status RecordAttempts(std::span<const AttemptRecord> attempts);

  // EndJob records how an active job ended. NotFound for an unknown job,
  // FailedPrecondition if it already ended, InvalidArgument for kActive.
  absl::Status EndJob(JobId id, JournalJob::State state, TimeUs end_us);

  // DeleteJobs removes the jobs' rows and their attempts' rows (retention:
  // the scheduler archived them first). Unknown ids are skipped. The pages
  // they held go back to the file system (the journal is made with
  // incremental auto-vacuum; Open converts an older one once, with a full
  // VACUUM): journal.db shrinks once its WAL is checkpointed.
  absl::Status DeleteJobs(std::span<const JobId> ids);
  // Begin opens a batch (or a nested one inside the current batch). Commit
  // closes the innermost; the outermost Commit makes the batch durable.
  // FailedPrecondition for a Commit outside any batch. If the outermost
  // Commit fails, the batch is rolled back and no batch is open any more;
  // acknowledge nothing of it (after an fsync error it may or may not be in a
  // later Load()). Rollback undoes the innermost batch (the outermost: all
  // since Begin) and does nothing outside one. If an I/O error inside a batch
  // makes SQLite abandon the whole transaction, every further call fails with
  // Aborted until the caller has rolled back every open batch.
  absl::Status Begin();
  absl::Status Commit();
  void Rollback();

  // Depth of open batches (0 = none); for callers that assert their nesting.
  int batch_depth() const { return depth_; }

 private:
  explicit Journal(std::unique_ptr<JournalDb> db);

  // Mutate runs `write` as one atomic step (a savepoint inside any batch).
  template <typename Write>
  absl::Status Mutate(Write&& write);

  std::unique_ptr<JournalDb> db_;
  int depth_ = 0;
};

}  // namespace weft::runtime
