#include "runtime/scheduler/journal_recovery.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "core/status.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft::runtime {

absl::StatusOr<StateIdentity> ReadIdentity(const std::map<std::string, std::string>& meta,
                                           const std::string& policy_flag, const std::vector<std::string>& params_flag,
                                           const ReplicaIds& replica_ids, const std::filesystem::path& state_dir,
                                           int64_t unix_now) {
  auto get = [&](const std::string& key) -> std::string {  // empty when missing
    auto it = meta.find(key);
    return it == meta.end() ? std::string() : it->second;
  };
  StateIdentity identity;
  std::string policy = policy_flag;
  nlohmann::json params = params_flag;
  const std::string replica = fmt::format("{}/{}", replica_ids.index, replica_ids.count);
  if (meta.contains("policy")) {
    // The journal's jobs were planned under its policy: resume with it.
    if (!policy.empty() && policy != get("policy")) {
      return absl::InvalidArgumentError(fmt::format("state dir {} belongs to a scheduler running policy {}, not {}",
                                                    state_dir.string(), get("policy"), policy));
    }
    policy = get("policy");
    params = nlohmann::json::parse(get("params"), nullptr, false);
    int64_t epoch = 0;
    if (!absl::SimpleAtoi(get("epoch_unix_us"), &epoch) || !params.is_array()) {
      return absl::DataLossError("the journal's meta data is damaged");
    }
    identity.epoch_unix_us = epoch;
    if (meta.contains("replica") && get("replica") != replica) {
      return absl::InvalidArgumentError(fmt::format("state dir {} belongs to scheduler replica {}, not {}",
                                                    state_dir.string(), get("replica"), replica));
    }
  } else {
    if (policy.empty()) policy = "fifo";
    identity.fresh = true;
    identity.epoch_unix_us = unix_now;
  }
  // A damaged params array (not all strings) is damaged meta data too.
  for (const nlohmann::json& p : params) {
    if (!p.is_string()) return absl::DataLossError("the journal's meta data is damaged");
  }
  identity.policy = policy;
  identity.params = params.get<std::vector<std::string>>();
  return identity;
}

absl::Status WriteIdentity(Journal& journal, const StateIdentity& identity, const ReplicaIds& replica) {
  RETURN_IF_ERROR(journal.Begin());
  RETURN_IF_ERROR(journal.SetMeta("policy", identity.policy));
  RETURN_IF_ERROR(journal.SetMeta("params", nlohmann::json(identity.params).dump()));
  RETURN_IF_ERROR(journal.SetMeta("epoch_unix_us", std::to_string(identity.epoch_unix_us)));
  RETURN_IF_ERROR(journal.SetMeta("replica", fmt::format("{}/{}", replica.index, replica.count)));
  return journal.Commit();
}

void RestoreNodes(const Recovered& r, NodeSlots& slots) {
  for (const JournalNode& n : r.nodes) {
    // A node's rack is a meta value (rack:SLOT), so journals without racks keep their schema.
    uint32_t rack = 0;
    if (auto it = r.meta.find(fmt::format("rack:{}", n.slot)); it != r.meta.end()) {
      (void)absl::SimpleAtoi(it->second, &rack);
    }
    slots.Restore(n.name, n.capacity, rack);
  }
}

absl::StatusOr<std::vector<RecoveredJob>> RecoverJobs(const Recovered& r,
                                                      const std::map<uint32_t, v1::ArchivedJob>& archived,
                                                      const Cluster& cluster) {
  std::vector<RecoveredJob> jobs;
  jobs.reserve(r.jobs.size() + archived.size());
  absl::flat_hash_map<uint32_t, std::vector<AttemptRecord>> history;
  for (const AttemptRecord& a : r.attempts) history[a.task.job.value()].push_back(a);
  auto add_compacted = [&]() -> bool {
    auto it = archived.find(static_cast<uint32_t>(jobs.size()));
    if (it == archived.end()) return false;
    const v1::ArchivedJob& a = it->second;
    JobInfo info{.submitted_us = static_cast<TimeUs>(std::llround(a.submitted_s() * 1e6)),
                 .state = JobStateOfName(a.row().state()), .end_us = a.row().end_us(), .tasks = a.tasks(),
                 .arrival_us = a.row().arrival_us(), .done = a.done()};
    info.compacted = true;
    jobs.push_back(RecoveredJob{.info = std::move(info)});
    return true;
  };
  for (const JournalJob& j : r.jobs) {
    while (jobs.size() < j.id.value() && add_compacted()) {
    }
    if (j.id.value() != jobs.size()) return absl::DataLossError("the journal's job ids are not consecutive");
    // Read once: the typed job, and its export form for the job table.
    nlohmann::json spec = nlohmann::json::parse(j.spec_json, nullptr, false);
    ASSIGN_OR_RETURN(LiveJob built, BuildJob(spec, cluster));
    std::string export_json = ExportForm(std::move(spec));
    std::vector<AttemptRecord> past = std::move(history[j.id.value()]);
    const std::vector<AttemptRecord> elsewhere = DoneElsewhere(r.meta, j.id);
    const uint64_t done = elsewhere.size() + static_cast<uint64_t>(std::count_if(
        past.begin(), past.end(), [](const AttemptRecord& a) { return a.outcome == Outcome::kOk; }));
    past.insert(past.begin(), elsewhere.begin(), elsewhere.end());
    JobInfo info{built.job.name, std::move(export_json), j.submitted_us, j.state, j.end_us, built.job.num_tasks,
                 ArrivalUs(j.submitted_us, built.job.arrival_us), done};
    info.description_bytes = j.spec_json.size();
    if (auto moved = r.meta.find(fmt::format("moved:{}", j.id.value())); moved != r.meta.end()) {
      uint32_t to = 0;
      if (absl::SimpleAtoi(moved->second, &to)) info.moved_to = to + 1;
    }
    jobs.push_back(RecoveredJob{std::move(info), std::move(built), std::move(past)});
  }
  while (add_compacted()) {
  }
  return jobs;
}

std::vector<AttemptRecord> DoneElsewhere(const std::map<std::string, std::string>& meta, JobId id) {
  std::vector<AttemptRecord> records;
  auto it = meta.find(fmt::format("done:{}", id.value()));
  if (it == meta.end()) return records;
  const nlohmann::json list = nlohmann::json::parse(it->second, nullptr, false);
  if (!list.is_array()) return records;
  for (const nlohmann::json& t : list) {
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_unsigned() || !t[1].is_number_unsigned()) continue;
    records.push_back(AttemptRecord{.task = TaskRef{id, t[0].get<uint32_t>(), t[1].get<uint32_t>()},
                                    .outcome = Outcome::kOk});
  }
  return records;
}

}  // namespace weft::runtime
