#include "report/run_data.h"

#include <filesystem>
#include <fstream>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "fmt/format.h"
#include "metrics/result_file.h"
#include "report/csv_rows.h"

namespace weft::report {
namespace {

// Debian 12's abseil has its own string_view: heterogeneous lookups take that.
absl::string_view Key(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Interner gives each distinct name a dense index, in order of first sight.
class Interner {
 public:
  explicit Interner(std::vector<std::string>& names) : names_(names) {
    for (uint32_t i = 0; i < names_.size(); ++i) index_.emplace(names_[i], i);
  }
  uint32_t Index(std::string_view name) {
    auto it = index_.find(Key(name));
    if (it != index_.end()) return it->second;
    names_.emplace_back(name);
    const uint32_t id = static_cast<uint32_t>(names_.size() - 1);
    index_.emplace(names_.back(), id);
    return id;
  }

 private:
  std::vector<std::string>& names_;
  absl::flat_hash_map<std::string, uint32_t> index_;
};

uint8_t ParseOutcome(std::string_view text) { return text == "ok" ? 0 : text == "failed" ? 1 : 2; }

uint8_t ParseLocality(std::string_view text) {
  return text == "node" ? 1 : text == "rack" ? 2 : text == "remote" ? 3 : 0;
}

absl::Status ReadSummary(const std::string& path, nlohmann::json& summary) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(fmt::format("{}: cannot read", path));
  summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object()) return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", path));
  return absl::OkStatus();
}

absl::Status ReadJobs(const std::string& path, RunData& run) {
  Interner users(run.users);
  enum { kJob, kUser, kArrival, kStart, kEnd, kJct, kOutcome, kNewlb, kRatio };
  return ReadCsvRows(path, {"job", "user", "arrival", "start", "end", "jct"}, {"outcome", "newlb", "newlb_ratio"},
                     [&](const CsvRow& row) {
                       JobRow job;
                       job.name = row.Text(kJob);
                       job.user = users.Index(row.Text(kUser));
                       job.arrival = row.Number(kArrival);
                       job.start = row.Number(kStart);
                       job.end = row.Number(kEnd);
                       job.jct = row.Number(kJct);
                       job.ok = !row.Has(kOutcome) || row.Text(kOutcome) == "ok";
                       if (row.Has(kNewlb)) job.newlb = row.Number(kNewlb);
                       if (row.Has(kRatio)) job.newlb_ratio = row.Number(kRatio);
                       run.jobs.push_back(std::move(job));
                     });
}

absl::Status ReadTasks(const std::string& path, RunData& run) {
  absl::flat_hash_map<std::string, uint32_t> job_index;
  for (uint32_t i = 0; i < run.jobs.size(); ++i) job_index.emplace(run.jobs[i].name, i);
  Interner machines(run.machines);
  enum { kJob, kAttempt, kMachine, kReady, kStart, kEnd, kOutcome, kCpu, kLocality };
  return ReadCsvRows(
      path, {"job", "attempt", "machine", "ready", "start", "end", "outcome", "cpu", "locality"}, {},
      [&](const CsvRow& row) {
        AttemptRow a;
        const auto it = job_index.find(Key(row.Text(kJob)));
        a.job = it == job_index.end() ? kNoJob : it->second;
        a.attempt = static_cast<uint32_t>(row.Number(kAttempt));
        a.machine = machines.Index(row.Text(kMachine));
        a.ready = row.Number(kReady);
        a.start = row.Number(kStart);
        a.end = row.Number(kEnd);
        a.outcome = ParseOutcome(row.Text(kOutcome));
        a.cpu = static_cast<float>(row.Number(kCpu));
        a.locality = ParseLocality(row.Text(kLocality));
        if (a.outcome == 0 && a.job != kNoJob) ++run.jobs[a.job].tasks;
        run.attempts.push_back(a);
      });
}

absl::Status ReadTimeline(const std::string& path, RunData& run) {
  std::vector<std::string> columns = {"time", "running", "waiting"};
  for (const char* kind : {"alloc", "used"}) {
    for (const char* r : {"cpu", "mem", "disk", "net"}) columns.push_back(fmt::format("{}_{}", r, kind));
  }
  return ReadCsvRows(path, columns, {}, [&](const CsvRow& row) {
    TimelineRow t;
    t.time = row.Number(0);
    t.running = row.Number(1);
    t.waiting = row.Number(2);
    for (size_t k = 0; k < 4; ++k) {
      t.alloc[k] = row.Number(3 + k);
      t.used[k] = row.Number(7 + k);
    }
    run.timeline.push_back(t);
  });
}

}  // namespace

absl::StatusOr<RunData> LoadRun(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) {
    return absl::InvalidArgumentError(fmt::format("{}: not a result directory", dir));
  }
  RunData run;
  run.dir = dir;
  RETURN_IF_ERROR(ReadSummary(dir + "/summary.json", run.summary));
  RETURN_IF_ERROR(ReadJobs(dir + "/jobs.csv", run));
  RETURN_IF_ERROR(ReadTasks(dir + "/tasks.csv", run));
  if (ResultFileExists(dir + "/timeline.csv")) {
    run.has_timeline = true;
    RETURN_IF_ERROR(ReadTimeline(dir + "/timeline.csv", run));
  }
  return run;
}

}  // namespace weft::report
