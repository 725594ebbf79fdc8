// File: trace/trace_stream.h
//
// TraceJobSource: a trace replayed as it is read (`weft sim --trace`). The
// format's reader (trace_formats.h) runs on a thread of its own and hands
// each job, built and checked as a weft job, through a bounded queue; the
// engine takes them in arrival order (model/job_source.h) as they arrive.
//
// Readers pass jobs in their own order (google-2011 by last row), so jobs
// wait in a reorder buffer until the reader's low watermark
// (JobSink::NoArrivalBefore: no later job arrives before it) passes their
// arrival: then no job still unread can come before them. Job ids are the
// order the reader passed the jobs in, exactly as a Workload built from the
// same trace numbers them, so the replay is the same run, byte for byte, as
// `weft sim -w` of the converted file.
//
// Memory: the jobs passed and not yet arrived, the active ones, and per job
// a stub (its name, arrival, user, counters) once Release frees its stages;
// plus what the reader itself keeps (google-2011: the tasks of jobs running
// in the trace; alibaba-2017/2018: an index and a batch of rows). A reader
// that never calls NoArrivalBefore is read whole before its
// first job is handed out; peak_waiting() shows it.
// Not thread-safe but for the reader thread it owns: one engine reads it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "model/job_source.h"
#include "model/workload.h"
#include "trace/trace_formats.h"
#include "trace/trace_source.h"

namespace weft {

class TraceJobSource final : public JobSource {
 public:
  // Jobs read ahead of the engine at most (the queue between the threads).
  static constexpr size_t kDefaultQueueJobs = 1024;

  // Open starts reading `spec` and returns once the trace's cluster is
  // known. Bad input found by then (an unknown format's file, a malformed
  // first row, no job at all in a small trace) is the returned error.
  static absl::StatusOr<std::unique_ptr<TraceJobSource>> Open(const TraceSpec& spec, const TraceOptions& options,
                                                              size_t queue_jobs = kDefaultQueueJobs);
  ~TraceJobSource() override;  // stops the reader if it is still reading
  TraceJobSource(const TraceJobSource&) = delete;
  TraceJobSource& operator=(const TraceJobSource&) = delete;

  const Workload& workload() const override { return w_; }
  absl::Status status() const override { return status_; }
  bool HasPhases() const override { return has_phases_; }
  void Release(std::span<const JobId> jobs) override;
  void SetSync(std::function<void()> sync) override { sync_ = std::move(sync); }
  uint64_t LiveJobs() const override { return live_; }

  // read: the reader has ended (Next returned nullopt); only then may
  // report, the data-quality counts (weft trace inspect), be read.
  bool read() const { return ended_; }
  const TraceReport& report() const { return report_; }
  // peak_waiting: the most jobs held at once in the reorder buffer (passed
  // by the reader, not yet handed to the engine): what a reader's watermark
  // bounds. A reader stating none is read whole, and this is its job count.
  size_t peak_waiting() const { return peak_waiting_; }

 protected:
  std::optional<JobId> Pull() override;

 private:
  // What the reader hands over: a job (with the users it named first and the
  // watermark in force after it), or the end of the read with its status.
  struct Item {
    std::optional<Job> job;
    std::vector<std::string> users;
    TimeUs no_arrival_before = 0;
    uint64_t expect_jobs = 0;  // the reader's hint (JobSink::ExpectJobs), 0 when none
    bool end = false;
    absl::Status status;
  };
  class QueueSink;

  TraceJobSource(TraceSpec spec, TraceOptions options, size_t queue_jobs);
  void ReaderMain();
  // Put (reader thread) waits for room; false once the source is stopping.
  bool Put(Item item);
  Item Take();  // engine thread; waits for an item

  const TraceSpec spec_;
  const TraceOptions options_;
  const size_t queue_jobs_;
  TraceReport report_;  // the reader's until the end item, then the engine's

  // Shared with the reader thread, guarded by mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::optional<Cluster> cluster_;  // set once by the reader
  bool stop_ = false;

  // The engine's side.
  Workload w_;
  // Jobs passed by the reader and not handed out, earliest (arrival, id) first.
  std::priority_queue<std::pair<TimeUs, uint32_t>, std::vector<std::pair<TimeUs, uint32_t>>, std::greater<>> waiting_;
  size_t peak_waiting_ = 0;
  TimeUs no_arrival_before_ = 0;
  TimeUs handed_arrival_us_ = 0;  // the arrival of the last job handed out
  bool ended_ = false;
  absl::Status status_;
  bool has_phases_ = false;
  uint64_t live_ = 0;
  std::function<void()> sync_;
  std::thread reader_;
};

}  // namespace weft
