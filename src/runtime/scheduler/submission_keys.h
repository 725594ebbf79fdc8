// File: runtime/scheduler/submission_keys.h
//
// SubmissionKeys: idempotent submits (issue 34, finding 4). A client gives
// every submission a key of its own making (SubmitRequest.idempotency_key);
// the scheduler journals the key with the jobs, in the same transaction,
// as the ids it gave them and a digest of the workload's text. A submit
// that comes again with a known key (the client retrying after the
// connection dropped, whether or not the first one was accepted) gets the
// original ids back and adds nothing; the same key with another workload
// is refused. Keys are kept as journal meta values ("submit:KEY"), read
// back on recovery, and never forgotten (a few dozen bytes each).
//
// Plain data; not thread-safe (the core calls it under its lock).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace weft::runtime {

// SubmittedIds: what one key stands for: `count` jobs from local id
// `first`, and a digest of the workload text they came from.
struct SubmittedIds {
  uint32_t first = 0;
  uint32_t count = 0;
  uint64_t digest = 0;
};

// CheckSubmissionKey: InvalidArgument unless `key` is 1 to 128 characters
// of [A-Za-z0-9._-].
absl::Status CheckSubmissionKey(std::string_view key);

// WorkloadDigest: a digest of a submission's text (FNV-1a, 64 bits: it
// tells a retry from a different submission under a reused key, it is no
// defence against an attacker, who could just use a key of their own).
uint64_t WorkloadDigest(std::string_view workload_json);

class SubmissionKeys {
 public:
  // Load reads every key in the journal's meta values; DataLoss for one
  // that is damaged.
  absl::Status Load(const std::map<std::string, std::string>& meta);

  // Find: the ids journaled under `key`, if any.
  std::optional<SubmittedIds> Find(std::string_view key) const;
  void Add(std::string_view key, const SubmittedIds& ids) { keys_[std::string(key)] = ids; }

  // MetaKey and MetaValue: the journal's meta entry of a key.
  static std::string MetaKey(std::string_view key);
  static std::string MetaValue(const SubmittedIds& ids);

 private:
  std::map<std::string, SubmittedIds, std::less<>> keys_;
};

}  // namespace weft::runtime
