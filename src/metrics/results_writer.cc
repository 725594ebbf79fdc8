#include "metrics/results_writer.h"

#include <csv.h>

#include <filesystem>
#include <memory>

#include "core/status.h"
#include "core/time.h"
#include "fmt/compile.h"

namespace weft {
namespace {
constexpr char kTasksHeader[] = "job,stage,task,attempt,machine,ready,start,end,outcome,cpu,mem,disk,net,locality\n";
constexpr char kJobsHeader[] = "job,user,arrival,start,end,jct,outcome,newlb,newlb_ratio\n";

// The task rows are most of a run's output (one per attempt, millions in big
// runs), so they are built by appending to the buffer directly: no format
// string parsed per field and no temporary string per field.

void Append(fmt::memory_buffer& b, std::string_view text) { b.append(text.data(), text.data() + text.size()); }

void AppendInt(fmt::memory_buffer& b, uint64_t value) {
  const fmt::format_int digits(value);
  b.append(digits.data(), digits.data() + digits.size());
}

// AppendSeconds appends exactly what FormatSeconds returns.
void AppendSeconds(fmt::memory_buffer& b, TimeUs us) {
  const bool negative = us < 0;
  const uint64_t magnitude = negative ? static_cast<uint64_t>(-(us + 1)) + 1 : static_cast<uint64_t>(us);
  if (negative) b.push_back('-');
  AppendInt(b, magnitude / 1'000'000);
  char fraction[7] = {'.'};
  uint64_t rest = magnitude % 1'000'000;
  for (int i = 6; i >= 1; --i, rest /= 10) fraction[i] = static_cast<char>('0' + rest % 10);
  b.append(fraction, fraction + 7);
}

bool NeedsQuoting(std::string_view text) {
  for (const char c : text) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
}

// AppendCsvField appends what CsvField returns, copying only when quoting.
void AppendCsvField(fmt::memory_buffer& b, const std::string& text) {
  if (!NeedsQuoting(text)) {
    Append(b, text);
  } else {
    Append(b, CsvField(text));
  }
}

}  // namespace

std::string CsvField(const std::string& text) {
  if (!NeedsQuoting(text)) return text;
  std::string out(text.size() * 2 + 2, '\0');
  out.resize(csv_write(out.data(), out.size(), text.data(), text.size()));
  return out;
}

absl::StatusOr<std::unique_ptr<ResultsWriter>> ResultsWriter::Open(const std::string& dir,
                                                                   const Workload& workload, bool compress) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return absl::InvalidArgumentError(fmt::format("--out {}: cannot create the directory", dir));
  }
  std::unique_ptr<ResultsWriter> w(new ResultsWriter(dir, workload));
  ASSIGN_OR_RETURN(w->tasks_, ResultFile::Open(dir, "tasks.csv", compress));
  ASSIGN_OR_RETURN(w->jobs_, ResultFile::Open(dir, "jobs.csv", compress));
  // Every row names a machine: quote each name once, not once per row.
  w->machine_text_.reserve(workload.cluster.size());
  for (size_t m = 0; m < workload.cluster.size(); ++m) {
    w->machine_text_.push_back(CsvField(workload.cluster.machine(MachineId(static_cast<uint32_t>(m))).name));
  }
  w->tasks_->buffer().append(std::string_view(kTasksHeader));
  w->jobs_->buffer().append(std::string_view(kJobsHeader));
  return w;
}

void ResultsWriter::OnAttemptEnd(const AttemptRecord& r) {
  const Job& job = workload_.jobs[r.task.job.value()];
  fmt::memory_buffer& b = tasks_->buffer();
  AppendCsvField(b, job.name);
  b.push_back(',');
  AppendCsvField(b, job.stages[r.task.stage].name);
  b.push_back(',');
  AppendInt(b, r.task.index);
  b.push_back(',');
  AppendInt(b, r.attempt);
  b.push_back(',');
  Append(b, machine_text_[r.machine.value()]);
  b.push_back(',');
  AppendSeconds(b, r.ready_us);
  b.push_back(',');
  AppendSeconds(b, r.start_us);
  b.push_back(',');
  AppendSeconds(b, r.end_us);
  b.push_back(',');
  Append(b, OutcomeName(r.outcome));
  // Attempts of one stage share a demand, so its text is kept and reused.
  if (demand_text_.size() == 0 || r.demand != last_demand_) {
    last_demand_ = r.demand;
    demand_text_.clear();
    for (int k = 0; k < kNumResources; ++k) {
      fmt::format_to(std::back_inserter(demand_text_), FMT_COMPILE(",{}"), r.demand.units(static_cast<Resource>(k)));
    }
  }
  b.append(demand_text_.data(), demand_text_.data() + demand_text_.size());
  b.push_back(',');
  Append(b, LocalityName(r.locality));
  b.push_back('\n');
  tasks_->Flush();
}

void ResultsWriter::OnJobEnd(const JobRecord& r) { WriteJob(r, r.succeeded ? "ok" : "failed"); }

void ResultsWriter::OnJobCancelled(const JobRecord& r) { WriteJob(r, "cancelled"); }

void ResultsWriter::WriteJob(const JobRecord& r, std::string_view outcome) {
  const Job& job = workload_.jobs[r.job.value()];
  const TimeUs newlb = ComputeJobBounds(job, bound_capacity_).newlb_us;
  const TimeUs jct = r.end_us - r.arrival_us;
  fmt::format_to(std::back_inserter(jobs_->buffer()), "{},{},{},{},{},{},{},{},{:.6f}\n", CsvField(job.name),
                 CsvField(workload_.users[job.user.value()]), FormatSeconds(r.arrival_us), FormatSeconds(r.start_us),
                 FormatSeconds(r.end_us), FormatSeconds(jct), outcome, FormatSeconds(newlb),
                 newlb > 0 ? static_cast<double>(jct) / static_cast<double>(newlb) : 0.0);
  jobs_->Flush();
}

absl::Status ResultsWriter::Finish() {
  RETURN_IF_ERROR(tasks_->Finish());
  return jobs_->Finish();
}

}  // namespace weft
