// File: python/env_session.h
//
// EnvSession: one scheduling environment (weft.env.SchedulingEnv): episodes
// of a workload simulated by sim::Engine on a thread of the session's own,
// with the job-order policy (job_order_policy.h) asking the agent at each
// decision point through a DecisionChannel. Reset starts an episode (ending
// the one under way) and returns at its first decision; Step answers and
// returns at the next decision or at the episode's end. The episode's tasks
// and jobs are recorded as weft.simulate records them (RunRecords).
// Not thread-safe: one Python thread drives it (its calls release the GIL
// while the engine runs).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "python/decision_channel.h"
#include "python/job_order_policy.h"
#include "python/run_records.h"
#include "python/run_source.h"
#include "sim/engine.h"

namespace weft::python {

struct EnvOptions {
  uint32_t max_jobs = 16;  // rows of the observation: candidates beyond are not offered
  std::string model = "fixed";
};

// StepOutcome: where the episode stands after Reset or Step.
struct StepOutcome {
  bool terminated = false;
  double reward = 0;
  // At the end: the run's status ("" when every job finished) and how many
  // jobs finished.
  std::string status;
  uint64_t jobs_done = 0;
  double end_seconds = 0;
};

class EnvSession {
 public:
  EnvSession(std::shared_ptr<const RunInput> input, EnvOptions options);
  ~EnvSession();
  EnvSession(const EnvSession&) = delete;
  EnvSession& operator=(const EnvSession&) = delete;

  StepOutcome Reset(uint64_t seed) {
    Begin(seed);
    return Await();
  }
  // Step: the action picks candidate `action` (modulo the candidates offered).
  // Precondition: an episode under way and not terminated (running()).
  StepOutcome Step(uint32_t action) {
    Send(action);
    return Await();
  }
  // Reset and Step in two halves, so that several sessions can run at once
  // (the vectorized environment): Begin or Send starts the engine, Await
  // waits for its next decision or its end.
  void Begin(uint64_t seed);
  void Send(uint32_t action) { channel_->Send(action); }
  StepOutcome Await();
  // Close ends the episode under way, if any.
  void Close();

  const JobOrderObservation& observation() const { return observation_; }
  // records: the last finished episode's tasks and jobs; null before one ends.
  RunRecords* records() { return finished_ ? records_.get() : nullptr; }
  bool running() const { return thread_.has_value() && !finished_; }

 private:
  // Outcome: after the channel reports a question or the end.
  StepOutcome Outcome(bool asked);

  std::shared_ptr<const RunInput> input_;
  EnvOptions options_;
  JobOrderObservation observation_;
  std::unique_ptr<DecisionChannel> channel_;
  std::unique_ptr<JobOrderPolicy> policy_;
  std::unique_ptr<RunRecords> records_;  // the episode's schedule, as weft.simulate keeps it
  std::optional<std::thread> thread_;
  bool finished_ = false;
  absl::Status run_status_;
  sim::RunStats stats_;
  double final_reward_ = 0;  // the last step's, read before the engine goes
};

}  // namespace weft::python
