#include "runtime/scheduler/agent_relay.h"

#include "core/status.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

void AgentRelay::Start(sim::LiveEngine& engine, v1::AgentSetup setup) {
  engine_ = &engine;
  setup_ = std::move(setup);
}

void AgentRelay::Resize(size_t nodes) { jobs_sent_.resize(std::max(jobs_sent_.size(), nodes)); }

void AgentRelay::Forget(uint32_t job) {
  for (auto& sent : jobs_sent_) sent.erase(job);
}

void AgentRelay::Deliver(MachineId machine, const sim::NodeMail& mail, TimeUs now) {
  v1::AgentMail* m = outbox_.AddMail(machine.value());
  m->set_now_us(now);
  *m->mutable_from() = ToProto(mail.from);
  switch (mail.kind) {
    case sim::NodeMail::Kind::kStart: {
      m->set_kind(v1::AgentMail::START);
      *m->mutable_setup() = setup_;
      m->mutable_setup()->set_machine(machine.value());
      break;
    }
    case sim::NodeMail::Kind::kMessage:
      m->set_kind(v1::AgentMail::MESSAGE);
      *m->mutable_message() = ToProto(mail.message);
      DescribeJob(machine.value(), *m, mail.message.task.job);
      break;
    case sim::NodeMail::Kind::kTaskEnded:
      m->set_kind(v1::AgentMail::TASK_ENDED);
      *m->mutable_end() = ToProto(mail.end);
      DescribeJob(machine.value(), *m, mail.end.task.job);
      break;
    case sim::NodeMail::Kind::kSchedulerDown:
      m->set_kind(v1::AgentMail::SCHEDULER_DOWN);
      m->set_tag(mail.tag);
      break;
    case sim::NodeMail::Kind::kPhaseReady:
    case sim::NodeMail::Kind::kPhaseEnded:
      m->set_kind(mail.kind == sim::NodeMail::Kind::kPhaseReady ? v1::AgentMail::PHASE_READY
                                                                : v1::AgentMail::PHASE_ENDED);
      *m->mutable_end() = ToProto(mail.end);
      m->set_tag(mail.tag);
      DescribeJob(machine.value(), *m, mail.end.task.job);
      break;
  }
  replica_.ToGlobal(*m);
}

void AgentRelay::DescribeJob(uint32_t slot, v1::AgentMail& mail, JobId job) {
  if (!job.valid() || job.value() >= jobs_.size() || jobs_[job.value()].compacted ||
      !jobs_sent_[slot].insert(job.value()).second) {
    return;
  }
  v1::JobSpec* spec = mail.add_jobs();
  spec->set_id(job.value());
  spec->set_spec_json(jobs_[job.value()].spec_json);
  spec->set_arrival_us(jobs_[job.value()].arrival_us);
  // With the description, the job's progress so far (every done task).
  const policy::JobProgress* progress = engine_ != nullptr ? engine_->progress(job) : nullptr;
  if (progress == nullptr) return;
  std::vector<uint64_t> done;
  for (uint64_t k = 0; k < progress->tasks.size(); ++k) {
    if (progress->tasks[k] == policy::TaskState::kDone) done.push_back(k);
  }
  NoteProgress(*progress, done, *mail.mutable_progress());
  mail.mutable_progress()->set_job(job.value());
}

void AgentRelay::NoteProgress(const policy::JobProgress& progress, std::span<const uint64_t> done,
                                 v1::JobProgressNote& note) {
  for (const policy::StageProgress& sp : progress.stages) {
    v1::StageProgressNote* s = note.add_stages();
    s->set_ready(sp.ready);
    s->set_running(sp.running);
    s->set_done(sp.done);
    s->set_released(sp.released);
  }
  note.mutable_done_tasks()->Add(done.begin(), done.end());
}

void AgentRelay::TellProgress(std::span<const AttemptRecord> ended, TimeUs now) {
  // The tasks each job finished in this batch, as the job's task order has them.
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> done;
  for (const AttemptRecord& a : ended) {
    if (a.outcome != Outcome::kOk) continue;
    const policy::JobProgress* progress = engine_ != nullptr ? engine_->progress(a.task.job) : nullptr;
    if (progress != nullptr) done[a.task.job.value()].push_back(progress->stage_offset[a.task.stage] + a.task.index);
  }
  for (const auto& [job, tasks] : done) {
    const policy::JobProgress* progress = engine_->progress(JobId(job));
    for (uint32_t slot = 0; slot < outbox_.size(); ++slot) {
      if (!outbox_.connected(slot) || !jobs_sent_[slot].contains(job)) continue;
      v1::AgentMail* m = outbox_.AddMail(slot);
      m->set_kind(v1::AgentMail::PROGRESS);
      m->set_now_us(now);
      NoteProgress(*progress, tasks, *m->mutable_progress());
      m->mutable_progress()->set_job(job);
      replica_.ToGlobal(*m);
    }
  }
}

void AgentRelay::TellJobEnded(JobId job, TimeUs now) {
  for (uint32_t slot = 0; slot < outbox_.size(); ++slot) {
    if (!outbox_.connected(slot) || !jobs_sent_[slot].contains(job.value())) continue;
    v1::AgentMail* m = outbox_.AddMail(slot);
    m->set_kind(v1::AgentMail::JOB_ENDED);
    m->set_now_us(now);
    m->mutable_end()->set_job(job.value());
    replica_.ToGlobal(*m);
  }
}

void AgentRelay::OnActions(uint32_t slot, std::string_view node, const v1::AgentActions& actions, TimeUs now) {
  for (v1::AgentAction action : actions.actions()) {
    const policy::Message global = FromProto(action.message());
    const bool mine = replica_.ToLocal(action);
    if (!mine) {
      spdlog::warn("node {} sent replica {} an action about another replica's job or scheduler", node,
                   replica_.index);
      if (!action.launch()) continue;
    }
    const policy::Message message = FromProto(action.message());
    if (action.launch()) {
      if (!mine || !engine_->NodeLaunch(MachineId(slot), message.task, now).ok()) {
        // The agent holds the task's room until it hears the launch is off.
        v1::AgentMail* refused = outbox_.AddMail(slot);
        refused->set_kind(v1::AgentMail::LAUNCH_REFUSED);
        refused->set_now_us(now);
        *refused->mutable_end() = ToProto(policy::TaskEnd{.task = global.task, .machine = MachineId(slot)});
      }
      continue;
    }
    if (action.start_phase()) {
      // A refused start changes nothing (the agent may try again on its next phase event).
      if (absl::Status s = engine_->NodeStartPhase(MachineId(slot), message.task, now); !s.ok()) {
        spdlog::info("node {}: phase start refused: {}", node, StatusMessage(s));
      }
      continue;
    }
    if (action.kill()) {
      // A refused kill changes nothing; a done one comes back as the task's end.
      if (absl::Status s = engine_->NodeKill(MachineId(slot), message.task, now); !s.ok()) {
        spdlog::info("node {}: kill refused: {}", node, StatusMessage(s));
      }
      continue;
    }
    absl::StatusOr<policy::Address> to = FromProto(action.to());
    if (!to.ok()) {
      spdlog::warn("node {}: {}", node, StatusMessage(to.status()));
      continue;
    }
    engine_->NodeSend(MachineId(slot), *to, message, now);
  }
}

}  // namespace weft::runtime
