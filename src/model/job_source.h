// File: model/job_source.h
//
// JobSource: where a simulated run takes its jobs from, one at a time, in
// arrival order. The engine's job tracker (sim/job_tracker.h) asks for the
// next job only when the one before it arrives, so a source may produce its
// jobs lazily: `weft sim -w` uses WorkloadSource (a whole Workload read
// beforehand), `weft sim --trace` a trace::TraceJobSource (trace/trace_stream.h:
// the trace is read while the run goes, and a job's stages are freed once it
// has ended). Both are the one path the engine knows.
//
// Jobs live in workload().jobs, indexed by JobId; a job is there from the
// moment Next returns its id. Released jobs keep a stub there (name, arrival,
// user, priority, weight, deadline, num_tasks) but no stages.
// Not thread-safe: one engine reads a source.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/ids.h"
#include "model/workload.h"

namespace weft {

class JobSource {
 public:
  virtual ~JobSource() = default;

  // The workload the jobs are in: its cluster and users are set before the
  // first Next; jobs[id] is valid for every id Next has returned.
  virtual const Workload& workload() const = 0;

  // Next: the next job to arrive (arrival order; at equal arrivals, lower id
  // first), or nullopt when there is none left (or the source failed: see
  // status()). Peek: the job Next would return, without taking it.
  std::optional<JobId> Next();
  std::optional<JobId> Peek();

  // status: not ok when the source found bad input while producing jobs (a
  // trace file's malformed row): the run must then be reported as failed.
  virtual absl::Status status() const { return absl::OkStatus(); }

  // HasPhases: whether some job produced so far has phases (a whole workload
  // knows it of all its jobs from the start).
  virtual bool HasPhases() const = 0;

  // Release: the jobs ended and nothing reads their stages again; a source
  // that owns its jobs frees them (their stubs stay). SetSync: `sync` is
  // called before the source moves or frees jobs that another thread may be
  // reading (the schedule checker's): it must return once that thread is done
  // with what it was given.
  virtual void Release(std::span<const JobId> /*jobs*/) {}
  virtual void SetSync(std::function<void()> /*sync*/) {}

  // LiveJobs: jobs held with their stages (produced and not released).
  virtual uint64_t LiveJobs() const = 0;

 protected:
  // Pull: the next job, as Next's.
  virtual std::optional<JobId> Pull() = 0;

 private:
  std::optional<std::optional<JobId>> peeked_;
};

// WorkloadSource: the jobs of a whole Workload (which outlives it), in
// arrival order, file order at ties. Release frees nothing: the workload is
// the caller's.
class WorkloadSource final : public JobSource {
 public:
  explicit WorkloadSource(const Workload& workload);
  const Workload& workload() const override { return w_; }
  bool HasPhases() const override { return has_phases_; }
  uint64_t LiveJobs() const override { return w_.jobs.size(); }

 protected:
  std::optional<JobId> Pull() override;

 private:
  const Workload& w_;
  std::vector<JobId> order_;
  size_t next_ = 0;
  bool has_phases_ = false;
};

// HasPhases: some stage of the job has phases.
bool HasPhases(const Job& job);

// ReleaseStages: turn `job` into the stub a released job leaves (its stages
// and their order go; name, arrival, user, ... and num_tasks stay), giving
// the memory back. False when it was a stub already (nothing to free).
bool ReleaseStages(Job& job);

}  // namespace weft
