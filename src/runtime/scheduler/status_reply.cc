#include "runtime/scheduler/status_reply.h"

#include "core/status.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

std::string JobStateText(const JobInfo& info, const policy::JobProgress* progress) {
  if (info.state != JournalJob::State::kActive) return JobStateName(info.state);
  if (progress == nullptr) return "waiting";
  for (const policy::StageProgress& s : progress->stages) {
    if (s.running > 0 || s.done > 0) return "running";
  }
  return "waiting";
}

void LastFailures::Note(const AttemptRecord& record, const std::string& node, const v1::TaskEnd& end) {
  v1::TaskFailure& f = by_job_[record.task.job.value()];
  f.set_stage(record.task.stage);
  f.set_task(record.task.index);
  f.set_attempt(record.attempt);
  f.set_node(node);
  f.set_exit_code(end.exit_code());
  f.set_signal(end.signal());
  f.set_error(end.error());
  f.set_stderr_tail(end.stderr_tail());
}

const v1::TaskFailure* LastFailures::Find(uint32_t job) const {
  const auto it = by_job_.find(job);
  return it == by_job_.end() ? nullptr : &it->second;
}

void FillJobStatus(const JobInfo& info, uint32_t global_id, const policy::JobProgress* progress,
                   const v1::TaskFailure* last_failure, v1::JobStatus& s) {
  if (last_failure != nullptr) *s.mutable_last_failure() = *last_failure;
  s.set_id(global_id);
  s.set_name(info.name);
  s.set_state(info.moved_to > 0 ? "moved" : JobStateText(info, progress));
  s.set_moved_to(info.moved_to);
  s.set_tasks(info.tasks);
  s.set_submitted_s(UsToSeconds(info.submitted_us));
  s.set_end_s(UsToSeconds(info.end_us));
  // Done counts what is journaled (one ok attempt per task), so it never
  // runs ahead of the journal and is the same after a restart.
  s.set_done(info.done);
  if (info.state == JournalJob::State::kActive && progress != nullptr) {
    uint64_t running = 0;
    for (const policy::StageProgress& st : progress->stages) running += st.running;
    s.set_running(running);
  }
}

void FillNodeStatuses(const NodeSlots& slots, const NodeOutbox& outbox,
                      const std::vector<SchedulerMetrics::NodeSnapshot>& engine, v1::StatusReply& reply) {
  for (uint32_t slot = 0; slot < slots.size(); ++slot) {
    v1::NodeStatus* n = reply.add_nodes();
    n->set_name(slots.name(slot));
    n->set_up(slot < outbox.size() && outbox.connected(slot));
    *n->mutable_capacity() = ToProto(slots.capacity(slot));
    if (slot < engine.size()) {
      *n->mutable_reserved() = ToProto(engine[slot].allocated);
      *n->mutable_used() = ToProto(engine[slot].used);
    }
  }
}

void FillCompactedStatus(const ResultsArchive& archive, uint32_t job, uint32_t global_id, v1::JobStatus& s) {
  s.set_id(global_id);
  s.set_name("(compacted)");
  s.set_compacted(true);
  // Read where it was archived (one segment of the file, found by the
  // archive's index): it keeps the scheduler's memory free of compacted jobs.
  const absl::StatusOr<std::optional<v1::ArchivedJob>> archived = archive.Find(job);
  if (!archived.ok() || !archived->has_value()) {
    spdlog::error("status of compacted job {}: not in the results archive ({})", job,
                  archived.ok() ? "no record" : StatusMessage(archived.status()));
    s.set_state("unknown");
    return;
  }
  const v1::ArchivedJob& a = **archived;
  s.set_state(a.row().state());
  s.set_tasks(a.tasks());
  s.set_done(a.done());
  s.set_submitted_s(a.submitted_s());
  s.set_end_s(UsToSeconds(a.row().end_us()));
}

}  // namespace weft::runtime
