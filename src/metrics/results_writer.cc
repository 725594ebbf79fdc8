#include "metrics/results_writer.h"

#include <csv.h>

#include <filesystem>
#include <memory>

#include "core/time.h"

namespace weft {
namespace {
constexpr char kTasksHeader[] = "job,stage,task,attempt,machine,ready,start,end,outcome,cpu,mem,disk,net,locality\n";
constexpr char kJobsHeader[] = "job,user,arrival,start,end,jct,outcome,newlb,newlb_ratio\n";
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out(text.size() * 2 + 2, '\0');
  out.resize(csv_write(out.data(), out.size(), text.data(), text.size()));
  return out;
}

absl::StatusOr<std::unique_ptr<ResultsWriter>> ResultsWriter::Open(const std::string& dir,
                                                                   const Workload& workload) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return absl::InvalidArgumentError(fmt::format("--out {}: cannot create the directory", dir));
  }
  std::unique_ptr<ResultsWriter> w(new ResultsWriter(dir, workload));
  w->tasks_ = std::fopen((dir + "/tasks.csv.tmp").c_str(), "wb");
  w->jobs_ = std::fopen((dir + "/jobs.csv.tmp").c_str(), "wb");
  if (w->tasks_ == nullptr || w->jobs_ == nullptr) {
    return absl::InvalidArgumentError(fmt::format("--out {}: cannot write there", dir));
  }
  w->task_buffer_.append(std::string_view(kTasksHeader));
  w->job_buffer_.append(std::string_view(kJobsHeader));
  return w;
}

ResultsWriter::~ResultsWriter() {
  if (tasks_) std::fclose(tasks_);
  if (jobs_) std::fclose(jobs_);
}

void ResultsWriter::OnAttemptEnd(const AttemptRecord& r) {
  const Job& job = workload_.jobs[r.task.job.value()];
  auto out = std::back_inserter(task_buffer_);
  fmt::format_to(out, "{},{},{},{},{},{},{},{},{}", CsvField(job.name), CsvField(job.stages[r.task.stage].name),
                 r.task.index, r.attempt, CsvField(workload_.cluster.machine(r.machine).name),
                 FormatSeconds(r.ready_us), FormatSeconds(r.start_us), FormatSeconds(r.end_us),
                 OutcomeName(r.outcome));
  for (int k = 0; k < kNumResources; ++k) fmt::format_to(out, ",{}", r.demand.units(static_cast<Resource>(k)));
  fmt::format_to(out, ",{}\n", LocalityName(r.locality));
  Flush(false);
}

void ResultsWriter::OnJobEnd(const JobRecord& r) {
  const Job& job = workload_.jobs[r.job.value()];
  const TimeUs newlb = ComputeJobBounds(job, bound_capacity_).newlb_us;
  const TimeUs jct = r.end_us - r.arrival_us;
  fmt::format_to(std::back_inserter(job_buffer_), "{},{},{},{},{},{},{},{},{:.6f}\n", CsvField(job.name),
                 CsvField(workload_.users[job.user.value()]), FormatSeconds(r.arrival_us), FormatSeconds(r.start_us),
                 FormatSeconds(r.end_us), FormatSeconds(jct), r.succeeded ? "ok" : "failed", FormatSeconds(newlb),
                 newlb > 0 ? static_cast<double>(jct) / static_cast<double>(newlb) : 0.0);
  Flush(false);
}

void ResultsWriter::Flush(bool force) {
  if (force || task_buffer_.size() > kFlushBytes) {
    std::fwrite(task_buffer_.data(), 1, task_buffer_.size(), tasks_);
    task_buffer_.clear();
  }
  if (force || job_buffer_.size() > kFlushBytes) {
    std::fwrite(job_buffer_.data(), 1, job_buffer_.size(), jobs_);
    job_buffer_.clear();
  }
}

absl::Status ResultsWriter::Finish() {
  Flush(true);
  const bool ok = std::fflush(tasks_) == 0 && std::fflush(jobs_) == 0;
  std::fclose(tasks_);
  std::fclose(jobs_);
  tasks_ = jobs_ = nullptr;
  if (!ok) return absl::InternalError(fmt::format("writing results to {} failed (disk full?)", dir_));
  std::error_code ec;
  std::filesystem::rename(dir_ + "/tasks.csv.tmp", dir_ + "/tasks.csv", ec);
  if (!ec) std::filesystem::rename(dir_ + "/jobs.csv.tmp", dir_ + "/jobs.csv", ec);
  if (ec) return absl::InternalError(fmt::format("cannot move results into place in {}: {}", dir_, ec.message()));
  return absl::OkStatus();
}

}  // namespace weft
