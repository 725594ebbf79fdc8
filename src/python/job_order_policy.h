// File: python/job_order_policy.h
//
// The "job-order" role of weft.env.SchedulingEnv: a cluster scheduler built
// on OfferScheduler (policy/common/offer_scheduler.h) whose only decision is
// which job to serve next. At each round (once per instant, with everything
// that happened at it known) it gathers the candidates: per job with ready
// tasks, its first ready stage (fifo's order) whose task fits on some
// machine now. With two or more it asks the agent (JobOrderAgent) which
// one, and places as many of that stage's ready tasks as fit, first fit, as
// fifo places a group; with one it serves it without asking; with none the
// round ends. So a decision point is reached only when there is a choice.
//
// The observation, written before each question into the shared
// JobOrderObservation: a row per candidate (at most max_jobs, in arrival
// order) of kJobFeatures numbers, and the cluster's. Who answers is a
// JobOrderAgent. The reward between two
// decisions is minus the integral of the number of jobs in the system over
// the simulated time between them, in job-seconds (Decima's); what accrued
// before the first decision goes to the first step, so an episode's return
// is minus the sum of its JCTs.
// Not thread-safe: runs on the engine's thread; the agent reads the
// observation only while the engine waits in DecisionChannel::Ask.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/common/fair_share.h"
#include "policy/common/offer_scheduler.h"
#include "policy/policy.h"
#include <optional>

namespace weft::python {

// A candidate's features, in this order (docs/python.md lists them).
enum JobFeature : int {
  kReadyTasks = 0,       // ready tasks of the stage it would serve
  kRemainingTasks,       // tasks of the job not done
  kWaitSeconds,          // now - the job's arrival
  kDemandCpu,            // the stage's task demand, cores
  kDemandMem,            // GB
  kEstimatedSeconds,     // the estimated duration of its next task (non-clairvoyant: learned, else 1 s)
  kStageIndex,           // the stage's index in the job
  kJobStages,            // the job's number of stages
  kPriority,             // the job's priority (higher first in fifo)
  kRunningTasks,         // tasks of the job launched or running
  kJobFeatures
};
// The cluster's features, in this order.
enum ClusterFeature : int { kNowSeconds = 0, kJobsInSystem, kFreeCpuFraction, kCandidates, kClusterFeatures };
// A candidate's user, in this order (Offers::kPerMachine only), exact in
// float64: a fair-share policy computes cpu_held / weight as fair does.
enum UserFeature : int {
  kUserId = 0,  // the job's user (weft's numbering)
  kUserCpuHeld, // cores the user's running tasks hold
  kUserWeight,  // the largest weight of the user's active jobs (FairShareBook's)
  kUserFeatures
};

// Offers: how a chosen candidate is served.
enum class Offers {
  // kFirstFit: the round asks once per choice among every job's first ready
  // stage that fits somewhere; the chosen stage gets as many tasks as fit,
  // first fit over the machines (fifo's placement).
  kFirstFit,
  // kPerMachine: machines are offered one at a time, as the Fair Scheduler
  // answers a heartbeat (FairShareScheduler: every machine with room, in
  // increasing id, when groups are fresh; else the freed ones); the
  // candidates are the jobs' first ready stages that fit on that machine,
  // and the chosen one launches one task there, until the machine is full.
  kPerMachine,
};

struct JobOrderObservation {
  explicit JobOrderObservation(uint32_t max_jobs, Offers offers = Offers::kFirstFit)
      : max_jobs(max_jobs),
        jobs(size_t{max_jobs} * kJobFeatures, 0.0f),
        mask(max_jobs, 0),
        cluster(kClusterFeatures, 0.0),
        users(offers == Offers::kPerMachine ? size_t{max_jobs} * kUserFeatures : 0, 0.0) {}
  void Clear();

  uint32_t max_jobs;
  std::vector<float> jobs;      // max_jobs x kJobFeatures, zero past the candidates
  std::vector<uint8_t> mask;    // 1 for the rows that are candidates
  std::vector<double> cluster;  // kClusterFeatures
  std::vector<double> users;    // max_jobs x kUserFeatures with Offers::kPerMachine, else empty
  std::vector<int64_t> job_ids; // the candidates' job ids (weft's numbering)
  double reward = 0;            // since the previous decision
  uint64_t decisions = 0;
};

// JobOrderAgent: who chooses: the environment's agent across a
// DecisionChannel, or a Python policy called in place (python_policy.h).
class JobOrderAgent {
 public:
  virtual ~JobOrderAgent() = default;
  // Choose: the row of the candidate to serve, given the observation just
  // written; nullopt: the agent gave up, decide nothing more.
  virtual std::optional<uint32_t> Choose(const JobOrderObservation& observation) = 0;
};

class JobOrderPolicy final : public policy::Policy {
 public:
  JobOrderPolicy(JobOrderAgent& agent, JobOrderObservation& observation, Offers offers = Offers::kFirstFit)
      : agent_(agent), observation_(observation), offers_(offers) {}
  policy::Knowledge knowledge() const override { return policy::Knowledge::kNonClairvoyant; }
  std::unique_ptr<policy::ClusterScheduler> MakeScheduler(policy::Context& ctx, uint32_t replica) override;

  // RewardSinceLastDecision: what the last step earns when the run ends at
  // `end_us` (the last job's end: the engine stops there, before the
  // scheduler hears of that end). Only while the engine that owns the
  // scheduler exists.
  double RewardSinceLastDecision(TimeUs end_us) const;

 private:
  class Scheduler;
  JobOrderAgent& agent_;
  JobOrderObservation& observation_;
  Offers offers_;
  Scheduler* scheduler_ = nullptr;  // owned by the engine
};

}  // namespace weft::python
