#include "runtime/scheduler/done_elsewhere.h"

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft::runtime {

std::string DoneTasks::JournalText() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [stage, task] : tasks_) list.push_back({stage, task});
  return list.dump();
}

std::vector<AttemptRecord> DoneTasks::History(JobId id) const {
  std::vector<AttemptRecord> history;
  history.reserve(tasks_.size());
  for (const auto& [stage, task] : tasks_) {
    history.push_back(AttemptRecord{.task = TaskRef{id, stage, task}, .outcome = Outcome::kOk});
  }
  return history;
}

absl::StatusOr<std::vector<DoneTasks>> SortDoneTasks(std::span<const v1::DoneTask> done,
                                                     std::span<const SubmittedJob> specs) {
  std::vector<DoneTasks> sorted(specs.size());
  for (const v1::DoneTask& d : done) {
    if (d.job() >= specs.size() || d.stage() >= specs[d.job()].live.job.stages.size() ||
        d.task() >= specs[d.job()].live.job.stages[d.stage()].num_tasks) {
      return absl::InvalidArgumentError(
          fmt::format("Submit: done task {}/{}/{} names no task of the submission", d.job(), d.stage(), d.task()));
    }
    sorted[d.job()].Add(d.stage(), d.task());
  }
  return sorted;
}

std::string DoneMetaKey(JobId id) { return fmt::format("done:{}", id.value()); }

}  // namespace weft::runtime
