#include "python/env_session.h"

#include "core/status.h"

namespace weft::python {

EnvSession::EnvSession(std::shared_ptr<const RunInput> input, EnvOptions options)
    : input_(std::move(input)), options_(std::move(options)), observation_(options_.max_jobs) {}

EnvSession::~EnvSession() { Close(); }

void EnvSession::Close() {
  if (!thread_) return;
  channel_->Abandon();  // the policy stops deciding; the run drains and ends
  thread_->join();
  thread_.reset();
}

void EnvSession::Begin(uint64_t seed) {
  Close();
  observation_ = JobOrderObservation(options_.max_jobs);
  channel_ = std::make_unique<DecisionChannel>();
  policy_ = std::make_unique<JobOrderPolicy>(*channel_, observation_);
  finished_ = false;
  records_.reset();
  // Opened here, on the caller's thread, so that a trace that cannot be read raises.
  std::shared_ptr<JobSource> source = input_->Source();
  records_ = std::make_unique<RunRecords>(source->workload());
  sim::SimOptions options;
  options.seed = seed;
  options.model = options_.model == "contention" ? sim::ExecutionModel::kContention : sim::ExecutionModel::kFixed;
  thread_.emplace([this, source, options] {
    sim::Engine engine(*source, *policy_, options);
    engine.AddObserver(records_.get());
    run_status_ = engine.Run();
    stats_ = engine.stats();
    // Read while the engine, which owns the policy's scheduler, still exists.
    final_reward_ = policy_->RewardSinceLastDecision(stats_.end_us);
    channel_->Finish();
  });
}

StepOutcome EnvSession::Await() { return Outcome(channel_->WaitForQuestion()); }

StepOutcome EnvSession::Outcome(bool asked) {
  StepOutcome out;
  if (asked) {
    out.reward = observation_.reward;
    return out;
  }
  thread_->join();
  thread_.reset();
  finished_ = true;
  out.terminated = true;
  out.reward = final_reward_;
  out.status = run_status_.ok() ? "" : std::string(StatusMessage(run_status_));
  out.jobs_done = stats_.jobs_succeeded + stats_.jobs_failed;
  out.end_seconds = UsToSeconds(stats_.end_us);
  observation_.Clear();
  records_->Finish();
  return out;
}

}  // namespace weft::python
