#include "trace/trace_stream.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/workload_reader.h"

namespace weft {

// QueueSink: the reader thread's JobSink. It builds each job as the weft
// reader would (WorkloadBuilderSink's checks) and puts it in the queue.
class TraceJobSource::QueueSink final : public JobSink {
 public:
  explicit QueueSink(TraceJobSource& source) : source_(source) {}

  absl::Status Cluster(const nlohmann::json& cluster) override {
    RETURN_IF_ERROR(builder_.SetCluster(cluster));
    {
      std::lock_guard lock(source_.mu_);
      source_.cluster_ = builder_.workload().cluster;
    }
    source_.cv_.notify_all();
    return absl::OkStatus();
  }

  absl::Status Job(const nlohmann::json& job) override {
    absl::StatusOr<weft::Job> built = builder_.BuildJob(job);
    // The emitter and readers checked everything the builder checks, so a
    // refusal here is a bug in a reader, not bad input.
    if (!built.ok()) {
      return absl::InternalError(fmt::format("trace reader built an invalid job: {}", StatusMessage(built.status())));
    }
    Item item;
    item.job = std::move(*built);
    const std::vector<std::string>& users = builder_.workload().users;
    item.users.assign(users.begin() + static_cast<std::ptrdiff_t>(users_sent_), users.end());
    users_sent_ = users.size();
    item.no_arrival_before = no_arrival_before_;
    item.expect_jobs = std::exchange(expect_jobs_, 0);
    if (!source_.Put(std::move(item))) return absl::CancelledError("the replay stopped");
    return absl::OkStatus();
  }

  void ExpectJobs(uint64_t n) override { expect_jobs_ = n; }

  void NoArrivalBefore(double arrival) override {
    // As the builder converts a job's "arrival" (json_fields: SecondsToUs),
    // so that the bound compares exactly with the jobs' own.
    const absl::StatusOr<TimeUs> us = SecondsToUs(std::max(0.0, arrival));
    if (us.ok()) no_arrival_before_ = std::max(no_arrival_before_, *us);
  }

 private:
  TraceJobSource& source_;
  WorkloadBuilder builder_;
  size_t users_sent_ = 0;
  TimeUs no_arrival_before_ = 0;
  uint64_t expect_jobs_ = 0;
};

TraceJobSource::TraceJobSource(TraceSpec spec, TraceOptions options, size_t queue_jobs)
    : spec_(std::move(spec)), options_(options), queue_jobs_(std::max<size_t>(1, queue_jobs)) {}

absl::StatusOr<std::unique_ptr<TraceJobSource>> TraceJobSource::Open(const TraceSpec& spec,
                                                                     const TraceOptions& options, size_t queue_jobs) {
  std::unique_ptr<TraceJobSource> source(new TraceJobSource(spec, options, queue_jobs));
  TraceJobSource& s = *source;
  s.reader_ = std::thread([&s] { s.ReaderMain(); });
  std::unique_lock lock(s.mu_);
  s.cv_.wait(lock, [&s] { return s.cluster_.has_value() || (!s.queue_.empty() && s.queue_.back().end); });
  if (!s.cluster_) {
    const absl::Status status = s.queue_.back().status;
    lock.unlock();
    return status.ok() ? absl::InternalError("trace reader ended without a cluster") : status;
  }
  s.w_.cluster = *s.cluster_;
  return source;
}

TraceJobSource::~TraceJobSource() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (reader_.joinable()) reader_.join();
}

void TraceJobSource::ReaderMain() {
  QueueSink sink(*this);
  Item end;
  end.end = true;
  end.status = ReadTrace(spec_, options_, sink, report_);
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(end));  // never waits: the end is one item more
  }
  cv_.notify_all();
}

bool TraceJobSource::Put(Item item) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return stop_ || queue_.size() < queue_jobs_; });
  if (stop_) return false;
  queue_.push_back(std::move(item));
  lock.unlock();
  cv_.notify_all();
  return true;
}

TraceJobSource::Item TraceJobSource::Take() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !queue_.empty(); });
  Item item = std::move(queue_.front());
  queue_.pop_front();
  lock.unlock();
  cv_.notify_all();
  return item;
}

std::optional<JobId> TraceJobSource::Pull() {
  while (true) {
    if (!status_.ok()) return std::nullopt;
    if (!waiting_.empty() && (ended_ || waiting_.top().first <= no_arrival_before_)) {
      // Every job still unread arrives at or after this one, and has a
      // higher id: this is the next arrival.
      const uint32_t id = waiting_.top().second;
      waiting_.pop();
      handed_arrival_us_ = w_.jobs[id].arrival_us;
      return JobId(id);
    }
    if (ended_) return std::nullopt;
    Item item = Take();
    if (item.end) {
      ended_ = true;
      reader_.join();  // the report is the engine's from here on
      status_ = item.status;
      continue;
    }
    if (item.job->arrival_us < handed_arrival_us_) {
      // A job earlier than one handed out already: the reader's bound was
      // wrong (a bug in the reader, not bad input).
      status_ = absl::InternalError(fmt::format("trace reader passed job \"{}\" after its arrival's turn",
                                                item.job->name));
      return std::nullopt;
    }
    for (std::string& u : item.users) w_.users.push_back(std::move(u));
    // Growing moves the list's page table (core/paged_store.h; the jobs
    // themselves stay put): the observers' threads must not be reading.
    // Sized once from the reader's hint, it does not grow by doubling.
    if (item.expect_jobs > w_.jobs.capacity()) {
      if (sync_) sync_();
      w_.jobs.reserve(item.expect_jobs);
    }
    if (w_.jobs.size() == w_.jobs.capacity() && sync_) sync_();
    has_phases_ = has_phases_ || weft::HasPhases(*item.job);
    const auto id = static_cast<uint32_t>(w_.jobs.size());
    waiting_.emplace(item.job->arrival_us, id);
    peak_waiting_ = std::max(peak_waiting_, waiting_.size());
    w_.jobs.push_back(std::move(*item.job));
    ++live_;
    no_arrival_before_ = std::max(no_arrival_before_, item.no_arrival_before);
  }
}

void TraceJobSource::Release(std::span<const JobId> jobs) {
  if (jobs.empty()) return;
  if (sync_) sync_();
  for (const JobId id : jobs) {
    if (ReleaseStages(w_.jobs[id.value()])) --live_;
  }
}

}  // namespace weft
