#include "runtime/client/export_results.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "core/status.h"
#include "metrics/phases_writer.h"
#include "metrics/results_writer.h"
#include "metrics/run_metrics.h"
#include "metrics/series_writer.h"
#include "metrics/timeline_writer.h"
#include "runtime/wire.h"
#include "trace/workload_reader.h"

namespace weft::runtime {

namespace {

Outcome OutcomeFrom(const std::string& name) {
  return name == "ok" ? Outcome::kOk : name == "killed" ? Outcome::kKilled : Outcome::kFailed;
}

Locality LocalityFrom(const std::string& name) {
  return name == "node" ? Locality::kNode : name == "rack" ? Locality::kRack : name == "remote" ? Locality::kRemote
                                                                                                  : Locality::kNone;
}

// Merged: several replicas' exports as one run: one workload (the first
// replica's cluster, every replica's jobs in global id order, names made
// unique), and, per replica, where its jobs and machines went and how far
// its clock is from the earliest one's.
struct Merged {
  Workload workload;
  std::vector<std::vector<uint32_t>> job_index;      // [replica][local job] -> merged job
  std::vector<std::vector<uint32_t>> machine_index;  // [replica][its machine] -> merged machine
  std::vector<TimeUs> shift_us;                      // [replica] -> add to its times
};

absl::StatusOr<Merged> Merge(const std::vector<std::vector<v1::ExportChunk>>& exports) {
  struct Entry {
    uint32_t global;
    size_t replica;
    uint32_t local;
  };
  std::vector<nlohmann::json> docs;
  std::vector<Entry> entries;
  std::map<std::string, int> uses;
  int64_t epoch = std::numeric_limits<int64_t>::max();
  for (size_t r = 0; r < exports.size(); ++r) {
    if (exports[r].empty()) return absl::InternalError("a scheduler sent an empty export");
    const v1::ExportChunk& head = exports[r][0];
    nlohmann::json doc = nlohmann::json::parse(head.workload_json(), nullptr, false);
    if (!doc.is_object() || !doc["jobs"].is_array()) return absl::InternalError("a scheduler's export is malformed");
    const uint32_t replicas = std::max(1u, head.replicas());
    for (uint32_t l = 0; l < doc["jobs"].size(); ++l) {
      entries.push_back(Entry{l * replicas + head.replica(), r, l});
      ++uses[doc["jobs"][l].value("name", "")];
    }
    epoch = std::min(epoch, head.epoch_unix_us());
    docs.push_back(std::move(doc));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.global < b.global; });
  Merged m;
  m.job_index.resize(exports.size());
  nlohmann::json jobs = nlohmann::json::array();
  for (const Entry& e : entries) {
    nlohmann::json spec = docs[e.replica]["jobs"][e.local];
    const std::string name = spec.value("name", "");
    if (uses[name] > 1) spec["name"] = fmt::format("{}#{}", name, e.global);
    m.job_index[e.replica].resize(std::max<size_t>(m.job_index[e.replica].size(), e.local + 1));
    m.job_index[e.replica][e.local] = static_cast<uint32_t>(jobs.size());
    jobs.push_back(std::move(spec));
  }
  const nlohmann::json merged = {{"weft", 1}, {"cluster", docs[0]["cluster"]}, {"jobs", jobs}};
  ASSIGN_OR_RETURN(m.workload, ParseWorkload(merged.dump()));
  for (size_t r = 0; r < exports.size(); ++r) {
    std::vector<uint32_t> machines;
    for (const nlohmann::json& machine : docs[r]["cluster"]["machines"]) {
      const MachineId id = m.workload.cluster.Find(machine.value("name", ""));
      if (!id.valid()) return absl::InternalError("the schedulers' exports name different nodes");
      machines.push_back(id.value());
    }
    m.machine_index.push_back(std::move(machines));
    m.shift_us.push_back(exports[r][0].epoch_unix_us() - epoch);
  }
  return m;
}

bool HasPhases(const Workload& workload) {
  return std::any_of(workload.jobs.begin(), workload.jobs.end(), [](const Job& j) {
    return std::any_of(j.stages.begin(), j.stages.end(), [](const Stage& s) { return !s.phases.empty(); });
  });
}

// WritePhases writes phases.csv from every replica's phase rows, as the
// simulator does for a workload with phases: in the order the phases ended.
absl::Status WritePhases(const std::vector<std::vector<v1::ExportChunk>>& exports, const Merged& merged,
                         const std::string& dir) {
  std::vector<PhaseRecord> records;
  for (size_t r = 0; r < exports.size(); ++r) {
    const std::vector<uint32_t>& jobs = merged.job_index[r];
    const std::vector<uint32_t>& machines = merged.machine_index[r];
    for (const v1::ExportChunk& chunk : exports[r]) {
      for (const v1::PhaseRow& row : chunk.phases()) {
        const auto resource = std::find(kResourceNames.begin(), kResourceNames.end(), row.resource());
        if (row.job() >= jobs.size() || row.machine() >= machines.size() || resource == kResourceNames.end() ||
            row.stage() >= merged.workload.jobs[jobs[row.job()]].stages.size()) {
          return absl::InternalError("the export names a phase's job, stage, machine or resource it does not describe");
        }
        records.push_back(PhaseRecord{.task = TaskRef{JobId(jobs[row.job()]), row.stage(), row.task()},
                                      .attempt = row.attempt(),
                                      .phase = row.phase(),
                                      .resource = static_cast<Resource>(resource - kResourceNames.begin()),
                                      .machine = MachineId(machines[row.machine()]),
                                      .start_us = row.start_us() + merged.shift_us[r],
                                      .end_us = row.end_us() + merged.shift_us[r],
                                      .held = row.held(),
                                      .completed = row.completed()});
      }
    }
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const PhaseRecord& a, const PhaseRecord& b) { return a.end_us < b.end_us; });
  ASSIGN_OR_RETURN(std::unique_ptr<PhasesWriter> writer, PhasesWriter::Open(dir, merged.workload));
  for (const PhaseRecord& record : records) writer->OnPhaseEnd(record);
  return writer->Finish();
}

// WriteSeries writes series.csv from every replica's recorded values, in
// time order (each replica's own order kept at equal times), as the
// simulator does; no file when the policy recorded nothing.
absl::Status WriteSeries(const std::vector<std::vector<v1::ExportChunk>>& exports, const Merged& merged,
                         const std::string& dir) {
  std::vector<SeriesPoint> points;
  for (size_t r = 0; r < exports.size(); ++r) {
    const std::vector<uint32_t>& jobs = merged.job_index[r];
    for (const v1::ExportChunk& chunk : exports[r]) {
      for (const v1::SeriesRow& row : chunk.series()) {
        if (row.job() > jobs.size()) {
          return absl::InternalError("the export names a recorded value's job it does not describe");
        }
        // The point's name refers into the chunk, which outlives `points`.
        points.push_back(SeriesPoint{.time_us = row.time_us() + merged.shift_us[r],
                                     .series = row.series(),
                                     .job = row.job() == 0 ? JobId() : JobId(jobs[row.job() - 1]),
                                     .value = row.value()});
      }
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const SeriesPoint& a, const SeriesPoint& b) { return a.time_us < b.time_us; });
  SeriesWriter writer(dir, merged.workload);
  for (const SeriesPoint& point : points) writer.OnSeries(point);
  return writer.Finish();
}

}  // namespace

absl::Status WriteExportedResults(const std::vector<std::vector<v1::ExportChunk>>& exports, const std::string& dir) {
  if (exports.empty()) return absl::InternalError("the scheduler sent no export");
  ASSIGN_OR_RETURN(const Merged merged, Merge(exports));
  const Workload& workload = merged.workload;
  ASSIGN_OR_RETURN(std::unique_ptr<ResultsWriter> writer, ResultsWriter::Open(dir, workload));
  ASSIGN_OR_RETURN(std::unique_ptr<TimelineWriter> timeline, TimelineWriter::Open(dir, workload));
  RunMetrics metrics(workload);
  TimeUs end = 0;
  uint64_t attempts = 0;
  uint64_t ended = 0;
  for (size_t r = 0; r < exports.size(); ++r) {
    const std::vector<uint32_t>& jobs = merged.job_index[r];
    const std::vector<uint32_t>& machines = merged.machine_index[r];
    const TimeUs shift = merged.shift_us[r];
    for (const v1::ExportChunk& chunk : exports[r]) {
      for (const v1::AttemptRow& row : chunk.attempts()) {
        if (row.job() >= jobs.size() || row.machine() >= machines.size() ||
            row.stage() >= workload.jobs[jobs[row.job()]].stages.size()) {
          return absl::InternalError("the export names a job, stage or machine it does not describe");
        }
        ASSIGN_OR_RETURN(const Resources demand, FromProto(row.demand()));
        ASSIGN_OR_RETURN(const Resources usage, FromProto(row.usage()));
        const AttemptRecord a{TaskRef{JobId(jobs[row.job()]), row.stage(), row.task()},
                              row.attempt(),
                              MachineId(machines[row.machine()]),
                              row.ready_us() + shift,
                              row.start_us() + shift,
                              row.end_us() + shift,
                              OutcomeFrom(row.outcome()),
                              demand,
                              usage,
                              LocalityFrom(row.locality()),
                              false};
        writer->OnAttemptEnd(a);
        timeline->OnAttemptEnd(a);
        metrics.OnAttemptEnd(a);
        end = std::max(end, a.end_us);
        ++attempts;
      }
    }
    for (const v1::JobRow& row : exports[r][0].jobs()) {
      if (row.state() == "running" || row.job() >= jobs.size()) continue;  // not ended: no row yet
      const JobRecord j{JobId(jobs[row.job()]), row.arrival_us() + shift, row.start_us() + shift,
                        row.end_us() + shift, row.state() == "succeeded"};
      if (row.state() == "cancelled") {
        writer->OnJobCancelled(j);  // `cancelled` in jobs.csv; failed (not succeeded) for the metrics
      } else {
        writer->OnJobEnd(j);
      }
      timeline->OnJobEnd(j);
      metrics.OnJobEnd(j);
      end = std::max(end, j.end_us);
      ++ended;
    }
  }
  writer->OnRunEnd(end);
  metrics.OnRunEnd(end);
  RETURN_IF_ERROR(writer->Finish());
  timeline->OnRunEnd(end);
  RETURN_IF_ERROR(timeline->Finish());
  if (HasPhases(workload)) RETURN_IF_ERROR(WritePhases(exports, merged, dir));
  RETURN_IF_ERROR(WriteSeries(exports, merged, dir));
  nlohmann::ordered_json j;
  j["policy"] = exports[0][0].policy();
  j["seed"] = 0;
  j["model"] = "real";
  j["scheduler_replicas"] = exports.size();
  j["overbooking"] = false;
  j.update(metrics.summary().ToJson());
  j["attempts"] = attempts;
  j["jobs_ended"] = ended;
  j["wall_seconds"] = UsToSeconds(end);
  const std::string tmp = dir + "/summary.json.tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) return absl::InternalError("writing summary.json failed");
  }
  if (std::rename(tmp.c_str(), (dir + "/summary.json").c_str()) != 0) {
    return absl::InternalError("renaming summary.json failed");
  }
  return absl::OkStatus();
}

}  // namespace weft::runtime
