// File: tests/policy/fair_share_test_util.h
//
// Helpers for the policy tests: run a workload given as JSON text under a
// registered policy (or a policy object) with the schedule checker
// attached, keep every attempt record, and ask what ran where and when.
// Single-threaded, like the engine.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "gtest/gtest.h"
#include "metrics/records.h"
#include "metrics/schedule_checker.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "trace/workload_reader.h"

namespace weft::policy::testing {

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + 0.5); }

struct Run {
  absl::Status status;  // the engine's, then the checker's verdict
  Workload workload;
  std::vector<AttemptRecord> attempts;  // in the order they ended

  // The successful attempt of task `index` of stage 0 of job `job_name`.
  const AttemptRecord& Task(std::string_view job_name, uint32_t index = 0, uint32_t stage = 0) const {
    for (const AttemptRecord& a : attempts) {
      if (workload.jobs[a.task.job.value()].name == job_name && a.task.stage == stage && a.task.index == index &&
          a.outcome == Outcome::kOk) {
        return a;
      }
    }
    ADD_FAILURE() << "no successful attempt of " << job_name << "/" << stage << "/" << index;
    static const AttemptRecord kNone;
    return kNone;
  }
  // Makespan: when the last attempt ended.
  TimeUs Makespan() const {
    TimeUs end = 0;
    for (const AttemptRecord& a : attempts) end = std::max(end, a.end_us);
    return end;
  }
  // Running: how many attempts of `user`'s jobs hold a machine at `t`.
  int Running(std::string_view user, TimeUs t) const {
    int n = 0;
    for (const AttemptRecord& a : attempts) {
      if (workload.users[workload.jobs[a.task.job.value()].user.value()] == user && a.start_us <= t &&
          t < a.end_us) {
        ++n;
      }
    }
    return n;
  }
  // FirstStart: the earliest start of any task of job `job_name`.
  TimeUs FirstStart(std::string_view job_name) const {
    TimeUs first = kTimeInfinite;
    for (const AttemptRecord& a : attempts) {
      if (workload.jobs[a.task.job.value()].name == job_name) first = std::min(first, a.start_us);
    }
    return first;
  }
};

class Recorder final : public RunObserver {
 public:
  explicit Recorder(std::vector<AttemptRecord>& out) : out_(out) {}
  void OnAttemptEnd(const AttemptRecord& record) override { out_.push_back(record); }

 private:
  std::vector<AttemptRecord>& out_;
};

// RunPolicyObject parses `workload_json` and runs it under `policy` (built
// by the caller, e.g. a test-only scheduler).
inline Run RunPolicyObject(std::string_view workload_json, Policy& policy, sim::SimOptions options = {}) {
  Run run;
  auto workload = ParseWorkload(workload_json);
  if (!workload.ok()) {
    ADD_FAILURE() << StatusMessage(workload.status());
    run.status = workload.status();
    return run;
  }
  run.workload = std::move(*workload);
  sim::Engine engine(run.workload, policy, options);
  Recorder recorder(run.attempts);
  ScheduleChecker checker(run.workload, policy.overbooked());
  engine.AddObserver(&recorder);
  engine.AddObserver(&checker);
  run.status = engine.Run();
  if (run.status.ok() && !checker.ok()) {
    run.status = absl::InternalError(checker.violations().empty() ? "check failed" : checker.violations().front());
  }
  return run;
}

// RunPolicy builds the registered `policy` with `params` and runs it.
inline Run RunPolicy(std::string_view workload_json, std::string_view policy,
                     const std::vector<std::string>& params = {}, sim::SimOptions options = {}) {
  auto built = BuildPolicy(policy, params);
  if (!built.ok()) {
    ADD_FAILURE() << StatusMessage(built.status());
    Run run;
    run.status = built.status();
    return run;
  }
  return RunPolicyObject(workload_json, *built->policy, options);
}

}  // namespace weft::policy::testing
