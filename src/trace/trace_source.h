// File: trace/trace_source.h
//
// What every trace reader (google_2011.h, swim.h, ...) writes to, and the
// rules they all share. A reader streams its rows, assembles one job at a
// time as a weft JSON job object (FORMATS.md section 1) and hands it to a
// TraceEmitter, which applies the replay options (--window, --sample,
// --scale-arrivals, --machines), refuses jobs that fit no machine, counts
// what it keeps and skips in a TraceReport, and passes the job on to a
// JobSink: WorkloadBuilderSink (replay: a Workload built job by job) or
// JsonWorkloadWriter (convert: the workload file written job by job). Since
// both receive the same JSON values, `weft trace convert` then `weft sim -w`
// simulates exactly what `weft sim --trace` does.
//
// Not thread-safe: one reader, emitter and sink per thread.
#pragma once

#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"
#include "trace/workload_reader.h"

namespace weft {

struct TraceOptions {
  double window_start_s = 0;  // trace time; jobs arriving outside [start, end) are left out
  double window_end_s = std::numeric_limits<double>::infinity();
  double sample = 1;          // keep each job with this probability (by a hash of its name and seed)
  uint64_t seed = 1;          // the sample's seed, and the seed of formats that draw (decima-tpch)
  uint32_t machines = 0;      // 0: the format's cluster; else this many machines like its largest
  double scale_arrivals = 1;  // arrival rate multiplier: arrivals are divided by it
  // 0: users as the trace gives them. K > 0: a job the trace gives no user
  // (or google-2011's "default") becomes user u0..u(K-1), chosen by a hash of
  // its name alone, so it is the same job's user in every run, policy, seed,
  // window and sample (docs/traces.md, "Users").
  uint32_t users = 0;
  // Google's jobs are bags of tasks that may differ in demand: one stage per
  // distinct demand (false), or one stage per job with per-task `demands`
  // (true; trace/task_groups.h).
  bool stage_per_job = false;
  // The most kept rows a reader whose files are not in job order holds at
  // once (alibaba-2017, alibaba-2018: trace/arrival_batches.h). At the
  // default, about 8 MiB of alibaba-2017's rows (56 bytes each), 21 MiB of
  // alibaba-2018's (160 bytes; with batch_instance files, the batch's jobs
  // as JSON besides). Tests lower it to make the readers take several passes.
  uint64_t max_held_rows = uint64_t{1} << 17;
};

// ParseWindow reads "START:END" in seconds (either side may be empty).
absl::Status ParseWindow(std::string_view text, TraceOptions& options);

// TraceReport: the data-quality counts of one read (weft trace inspect).
class TraceReport {
 public:
  uint64_t rows = 0;          // rows (or lines) read, over every file
  uint64_t jobs = 0;          // jobs assembled by the reader (kept or skipped by the emitter)
  uint64_t jobs_written = 0;
  uint64_t tasks_written = 0;

  // Skip counts `n` units (rows, tasks or jobs: the reason says which) left
  // out for `reason`; the first `example` given is kept.
  void Skip(std::string_view reason, uint64_t n = 1, std::string_view example = "");
  // Note counts something the reader changed rather than skipped.
  void Note(std::string_view what, uint64_t n = 1);
  uint64_t skipped(std::string_view reason) const;
  uint64_t noted(std::string_view what) const;
  // Lines: "read: ...", one "skipped: ..." per reason, one "note: ..." per note.
  std::vector<std::string> Lines() const;

 private:
  struct Count {
    uint64_t n = 0;
    std::string example;
  };
  std::vector<std::pair<std::string, Count>> skipped_;  // in first-seen order
  std::vector<std::pair<std::string, uint64_t>> notes_;
};

class JobSink {
 public:
  virtual ~JobSink() = default;
  // Cluster: {"machines": [...]}; called once, before any Job.
  virtual absl::Status Cluster(const nlohmann::json& cluster) = 0;
  virtual absl::Status Job(const nlohmann::json& job) = 0;
  // NoArrivalBefore: every job passed from now on has "arrival" >= `arrival`
  // (seconds, as the jobs' own); lets a streamed replay hand jobs to the
  // engine before the trace is read to its end (trace/trace_stream.h).
  virtual void NoArrivalBefore(double /*arrival*/) {}
  // ExpectJobs: about `n` jobs will be passed (a hint: google-2011 knows its
  // jobs from job_events), so a replay can size its job list once.
  virtual void ExpectJobs(uint64_t /*n*/) {}
};

// WorkloadBuilderSink builds the Workload in memory.
class WorkloadBuilderSink : public JobSink {
 public:
  absl::Status Cluster(const nlohmann::json& cluster) override;
  absl::Status Job(const nlohmann::json& job) override;
  Workload Take() { return builder_.Take(); }

 private:
  WorkloadBuilder builder_;
};

// JsonWorkloadWriter writes the workload file under PATH.tmp, one job per
// line, and renames it into place on Finish (nothing half-written remains
// when a read fails: the destructor removes the temporary file).
class JsonWorkloadWriter : public JobSink {
 public:
  explicit JsonWorkloadWriter(std::string path);
  ~JsonWorkloadWriter() override;
  absl::Status Cluster(const nlohmann::json& cluster) override;
  absl::Status Job(const nlohmann::json& job) override;
  absl::Status Finish();

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  bool first_job_ = true;
  bool finished_ = false;
};

class TraceEmitter {
 public:
  TraceEmitter(const TraceOptions& options, TraceReport& report, JobSink& sink)
      : options_(options), report_(report), sink_(sink) {}

  // Cluster: the format's machine groups ({"name","count","capacity"}); with
  // --machines, that many machines with the largest group's capacity.
  absl::Status Cluster(nlohmann::json groups);
  // Job: `job` without "arrival"; `arrival_s` is in trace time. Applies the
  // window, the sample, the arrival scale and the users' mapping, skips a job whose demand fits
  // no machine, and passes the job on.
  absl::Status Job(nlohmann::json job, double arrival_s);
  // NoArrivalBefore: the reader will pass no job arriving before
  // `arrival_s` (trace time) from now on. A reader that passes its jobs in
  // arrival order calls it with each job's arrival after passing it; one
  // that passes them in another order (google-2011: by last row) with what its
  // rows so far allow; one that never calls it is replayed once read whole.
  void NoArrivalBefore(double arrival_s) {
    sink_.NoArrivalBefore((arrival_s - options_.window_start_s) / options_.scale_arrivals);
  }

  // ExpectJobs: the reader will pass about `n` jobs (JobSink::ExpectJobs).
  // (--sample keeps that fraction of them.)
  void ExpectJobs(uint64_t n) { sink_.ExpectJobs(static_cast<uint64_t>(static_cast<double>(n) * options_.sample)); }

  const TraceOptions& options() const { return options_; }
  TraceReport& report() { return report_; }

 private:
  bool Fits(const nlohmann::json& demand) const;
  const TraceOptions& options_;
  TraceReport& report_;
  JobSink& sink_;
  std::vector<nlohmann::json> capacities_;
  absl::flat_hash_set<std::string> names_;  // jobs passed on; a name twice is bad input (a file given twice)
  bool has_cluster_ = false;
};

// Reasons every reader shares, so reports use one wording.
inline constexpr std::string_view kSkipWindow = "jobs arriving outside the window";
inline constexpr std::string_view kSkipSample = "jobs left out by the sample";
inline constexpr std::string_view kSkipTooLarge = "jobs with a demand larger than any machine";
inline constexpr std::string_view kNoteUsers = "jobs without a user given one by --users";

// MachineGroup: one {"name","count","rack_size","capacity"} group as JSON.
nlohmann::json MachineGroup(std::string_view name, uint64_t count, const nlohmann::json& capacity);

}  // namespace weft
