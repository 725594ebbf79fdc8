// File: tests/policy/sparrow_test_util.h
//
// RunOnWorkload: run an in-memory workload (trace/sparrow_workload.h) under a
// registered policy with the schedule checker attached, keeping the job
// records, the attempts and the engine's counters; MedianResponseUs over the
// jobs. Single-threaded, like the engine.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/status.h"
#include "gtest/gtest.h"
#include "metrics/records.h"
#include "metrics/schedule_checker.h"
#include "policy/registry.h"
#include "sim/engine.h"

namespace weft::policy::testing {

struct WorkloadRun : RunObserver {
  absl::Status status;
  sim::RunStats stats;
  std::vector<JobRecord> jobs;
  std::vector<AttemptRecord> attempts;
  void OnJobEnd(const JobRecord& r) override { jobs.push_back(r); }
  void OnAttemptEnd(const AttemptRecord& r) override { attempts.push_back(r); }
};

inline void RunOnWorkload(const Workload& w, const std::string& policy, const std::vector<std::string>& params,
                          const sim::SimOptions& options, WorkloadRun& out) {
  auto built = BuildPolicy(policy, params);
  ASSERT_TRUE(built.ok()) << StatusMessage(built.status());
  sim::Engine engine(w, *built->policy, options);
  ScheduleChecker checker(w, weft::ResourceMask{0});
  engine.AddObserver(&out);
  engine.AddObserver(&checker);
  out.status = engine.Run();
  if (out.status.ok() && !checker.ok()) out.status = absl::InternalError(checker.violations().front());
  out.stats = engine.stats();
}

inline double MedianResponseUs(const std::vector<JobRecord>& jobs) {
  std::vector<double> rt;
  for (const JobRecord& j : jobs) rt.push_back(static_cast<double>(j.end_us - j.arrival_us));
  std::sort(rt.begin(), rt.end());
  if (rt.empty()) return 0;
  return rt.size() % 2 ? rt[rt.size() / 2] : (rt[rt.size() / 2 - 1] + rt[rt.size() / 2]) / 2;
}

}  // namespace weft::policy::testing
