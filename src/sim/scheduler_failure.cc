// Scheduler replica failure (Sparrow §4.3): the replica's role is destroyed,
// so its state is lost and mail to it is dropped; the active jobs homed at it
// fail over to the next live replica, which hears the job again and every
// task of it that is still ready (what a frontend resubmits: tasks already
// launched keep running and report their ends to the new home); node agents
// and the surviving replicas hear OnSchedulerDown. See SchedulerFailure in
// engine.h.
#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::TaskState;

void EngineCore::SchedulerDown(uint32_t replica) {
  if (!scheduler_up_[replica]) return;
  events_since_progress_ = 0;
  // The homes before the failure, to know which jobs move.
  std::vector<JobId> moved;
  for (JobId id : jobs_.active_jobs()) {
    if (HomeReplica(id) == replica) moved.push_back(id);
  }
  scheduler_up_[replica] = false;
  schedulers_[replica].reset();
  scheduler_contexts_[replica].reset();
  for (JobId id : moved) {
    const uint32_t home = HomeReplica(id);
    mailbox_.Post(Mail{.kind = MailKind::kJobArrived, .to = Address::Scheduler(home), .job = id}, opt_.latency_us);
    if (policy_.has_job_managers()) continue;  // ready tasks live with the job manager
    // Resubmit the still-ready tasks as maximal runs of consecutive indices.
    const policy::JobProgress& p = jobs_.progress(id);
    const Job& job = w_.jobs[id.value()];
    for (uint32_t s = 0; s < job.stages.size(); ++s) {
      if (p.stages[s].ready == 0) continue;
      uint32_t begin = 0;
      bool in_run = false;
      for (uint32_t i = 0; i <= job.stages[s].num_tasks; ++i) {
        const bool ready = i < job.stages[s].num_tasks && p.state(TaskRef{id, s, i}) == TaskState::kReady;
        if (ready && !in_run) begin = i;
        if (!ready && in_run) {
          mailbox_.Post(
              Mail{.kind = MailKind::kTasksReady, .to = Address::Scheduler(home), .range = {id, s, begin, i}},
              opt_.latency_us);
        }
        in_run = ready;
      }
    }
  }
  for (uint32_t r = 0; r < schedulers_.size(); ++r) {
    if (scheduler_up_[r]) {
      mailbox_.Post(Mail{.kind = MailKind::kSchedulerDown, .to = Address::Scheduler(r), .tag = replica},
                    opt_.latency_us);
    }
  }
  for (uint32_t m = 0; m < nodes_.size(); ++m) {
    if (HasAgent(m)) {
      mailbox_.Post(Mail{.kind = MailKind::kSchedulerDown, .to = Address::Node(MachineId(m)), .tag = replica},
                    opt_.latency_us);
    }
  }
}

}  // namespace weft::sim
