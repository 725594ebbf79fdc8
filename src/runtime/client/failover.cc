#include "runtime/client/failover.h"

#include <chrono>

#include "absl/strings/numbers.h"
#include "core/status.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "runtime/journal.h"
#include "runtime/local_tokens.h"
#include "runtime/replica_ids.h"

namespace weft::runtime {

namespace fs = std::filesystem;

namespace {

// Candidates: the state dirs among `dirs` and their subdirectories.
std::vector<fs::path> Candidates(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> out;
  for (const fs::path& d : dirs) {
    std::error_code ec;
    if (fs::exists(d / "journal.db", ec)) {
      out.push_back(d);
      continue;
    }
    for (const auto& e : fs::directory_iterator(d, ec)) {
      if (e.is_directory(ec) && fs::exists(e.path() / "journal.db", ec)) out.push_back(e.path());
    }
  }
  return out;
}

int64_t UnixNowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

fs::path ClusterDirFor(const std::string& address) {
  const std::string token = TokenFileFor(address);
  return token.empty() ? fs::path() : fs::path(token).parent_path();
}

absl::StatusOr<MovedJob> MoveJob(SchedulerClient& client, uint32_t job, uint32_t replicas,
                                 const std::vector<fs::path>& state_dirs) {
  const uint32_t owner = ReplicaIds::Owner(job, std::max(1u, replicas));
  const ReplicaIds ids{owner, std::max(1u, replicas)};
  const uint32_t local = *ids.Local(job);
  const std::string replica = fmt::format("{}/{}", ids.index, ids.count);
  bool held = false;
  for (const fs::path& dir : Candidates(state_dirs)) {
    absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(dir, {.sync = JournalSync::kFull});
    if (!journal.ok()) {
      held = held || absl::IsFailedPrecondition(journal.status());  // a running daemon's (or newer)
      continue;
    }
    ASSIGN_OR_RETURN(Recovered r, (*journal)->Load());
    if (r.meta["replica"] != replica && !(ids.count == 1 && !r.meta.contains("replica"))) continue;
    const JournalJob* found = nullptr;
    for (const JournalJob& j : r.jobs) {
      if (j.id.value() == local) found = &j;
    }
    if (found == nullptr) return absl::NotFoundError(fmt::format("no job {} in {}", job, dir.string()));
    const std::string moved_key = fmt::format("moved:{}", local);
    const auto moved = r.meta.find(moved_key);
    MovedJob result;
    if (moved != r.meta.end() && moved->second != "pending") {
      if (!absl::SimpleAtoi(moved->second, &result.to)) return absl::DataLossError("a damaged moved: meta value");
      result.already = true;
      return result;
    }
    if (found->state != JournalJob::State::kActive && moved == r.meta.end()) {
      result.ended = found->state == JournalJob::State::kSucceeded ? "succeeded"
                     : found->state == JournalJob::State::kFailed  ? "failed"
                                                                   : "cancelled";
      return result;
    }
    // What it finished: its ok attempts, and what it had been given as done.
    std::vector<v1::DoneTask> done;
    auto add = [&](uint32_t stage, uint32_t task) {
      v1::DoneTask& d = done.emplace_back();
      d.set_job(0);
      d.set_stage(stage);
      d.set_task(task);
    };
    for (const AttemptRecord& a : r.attempts) {
      if (a.task.job.value() == local && a.outcome == Outcome::kOk) add(a.task.stage, a.task.index);
    }
    if (auto it = r.meta.find(fmt::format("done:{}", local)); it != r.meta.end()) {
      const nlohmann::json list = nlohmann::json::parse(it->second, nullptr, false);
      for (const nlohmann::json& t : list.is_array() ? list : nlohmann::json::array()) {
        if (t.is_array() && t.size() == 2 && t[0].is_number_unsigned() && t[1].is_number_unsigned()) {
          add(t[0].get<uint32_t>(), t[1].get<uint32_t>());
        }
      }
    }
    nlohmann::json spec = nlohmann::json::parse(found->spec_json, nullptr, false);
    if (!spec.is_object()) return absl::DataLossError(fmt::format("job {}'s description in {} is damaged", job, dir.string()));
    spec.erase("arrival");  // it arrived long ago: it goes on now
    const nlohmann::json workload = {{"weft", 1}, {"jobs", nlohmann::json::array({spec})}};
    // 1. The fence, before anything runs elsewhere: the daemon, back, never runs the job.
    if (moved == r.meta.end()) {
      int64_t epoch = 0;
      absl::SimpleAtoi(r.meta["epoch_unix_us"], &epoch);
      RETURN_IF_ERROR((*journal)->Begin());
      absl::Status s = (*journal)->EndJob(JobId(local), JournalJob::State::kCancelled, std::max<int64_t>(0, UnixNowUs() - epoch));
      if (s.ok()) s = (*journal)->SetMeta(moved_key, "pending");
      if (s.ok()) s = (*journal)->Commit();
      if (!s.ok()) {
        (*journal)->Rollback();
        return s;
      }
    }
    // 2. The unfinished work, to a live replica.
    absl::StatusOr<std::vector<uint32_t>> to = client.Submit(workload.dump(), done, job + 1);
    if (!to.ok()) {
      return absl::Status(to.status().code(),
                          fmt::format("job {} is fenced in {} but could not be resubmitted ({}); wait again to retry",
                                      job, dir.string(), StatusMessage(to.status())));
    }
    if (to->size() != 1) return absl::InternalError("the live replica accepted another number of jobs");
    // 3. Where it went.
    RETURN_IF_ERROR((*journal)->SetMeta(moved_key, std::to_string(to->front())));
    result.to = to->front();
    result.done = done.size();
    return result;
  }
  if (held) {
    return absl::FailedPreconditionError(
        fmt::format("the state dir of job {}'s scheduler is in use: its daemon is running", job));
  }
  return absl::NotFoundError(fmt::format("no state dir of scheduler replica {} found for job {}", replica, job));
}

}  // namespace weft::runtime
