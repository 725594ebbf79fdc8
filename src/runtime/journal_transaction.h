// File: runtime/journal_transaction.h
//
// JournalTransaction: one batch of journal writes that either commits as a
// whole or is rolled back, written once instead of by hand at every caller
// (Journal's Begin/Commit/Rollback, journal.h). Begun when made; each Then()
// runs one write unless an earlier step failed; Commit() commits when every
// step succeeded and rolls back otherwise. A transaction that goes out of
// scope uncommitted (an early return) is rolled back.
//
//   JournalTransaction tx(journal);
//   tx.Then([&] { return journal.AddJobs(jobs); });
//   RETURN_IF_ERROR(tx.Commit());
//
// Threading: as the Journal's (one writer); not copyable.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "runtime/journal.h"

namespace weft::runtime {

class JournalTransaction {
 public:
  explicit JournalTransaction(Journal& journal) : journal_(journal), status_(journal.Begin()), open_(status_.ok()) {}
  ~JournalTransaction() {
    if (open_) journal_.Rollback();
  }
  JournalTransaction(const JournalTransaction&) = delete;
  JournalTransaction& operator=(const JournalTransaction&) = delete;

  // Then runs `write` (a callable returning absl::Status) inside the
  // transaction, unless a step before it failed; its failure is kept.
  template <typename Write>
  JournalTransaction& Then(Write&& write) {
    if (status_.ok()) status_ = std::forward<Write>(write)();
    return *this;
  }

  // Commit makes the transaction durable when every step succeeded; else
  // (or when the commit itself fails) rolls it back. The first failure, or
  // OK. Call once.
  absl::Status Commit() {
    if (status_.ok()) status_ = journal_.Commit();
    if (!status_.ok() && open_) journal_.Rollback();
    open_ = false;
    return status_;
  }

 private:
  Journal& journal_;
  absl::Status status_;  // Begin's, then the first failed step's
  bool open_;            // begun, and neither committed nor rolled back
};

}  // namespace weft::runtime
