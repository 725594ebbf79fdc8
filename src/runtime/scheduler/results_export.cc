#include "runtime/scheduler/results_export.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "runtime/scheduler/job_intake.h"
#include "runtime/wire.h"

namespace weft::runtime {

void ResultsExport::OnSeries(const SeriesPoint& point) {
  series_.push_back(SeriesValue{point.time_us, std::string(point.series), point.job, point.value});
}

v1::ExportChunk ResultsExport::Build(const JobTable& jobs_table, std::span<const AttemptRecord> attempts,
                                    const std::map<uint32_t, v1::ArchivedJob>& archived, const Cluster& cluster,
                                    const ReplicaIds& replica, std::string_view policy, int64_t epoch_unix_us) const {
  auto archive_of = [&](uint32_t j) -> const v1::ArchivedJob& {
    static const v1::ArchivedJob kNone;
    auto it = archived.find(j);
    return it == archived.end() ? kNone : it->second;
  };
  v1::ExportChunk chunk;
  chunk.set_policy(std::string(policy));
  chunk.set_replica(replica.index);
  chunk.set_replicas(replica.count);
  chunk.set_epoch_unix_us(epoch_unix_us);
  // Names repeat across submissions; the results format needs them unique.
  absl::flat_hash_map<std::string, int> uses;
  auto name_of = [&](uint32_t j) -> const std::string& {
    return jobs_table[j].compacted ? archive_of(j).name() : jobs_table[j].name;
  };
  for (uint32_t j = 0; j < jobs_table.size(); ++j) ++uses[name_of(j)];
  // The workload is spliced from the jobs' export forms, kept as text since
  // their submission (job_intake.h): no job is parsed here, except those of
  // an archive written before the export form was kept.
  std::string& doc = *chunk.mutable_workload_json();
  doc = "{\"cluster\":";
  doc += ClusterJson(cluster).dump();
  doc += ",\"jobs\":[";
  for (uint32_t j = 0; j < jobs_table.size(); ++j) {
    if (j > 0) doc += ',';
    const bool compacted = jobs_table[j].compacted;
    const std::string& stored = compacted ? archive_of(j).spec_json() : jobs_table[j].spec_json;
    std::string old_form;
    if (compacted && !archive_of(j).export_form()) {
      old_form = ExportForm(nlohmann::json::parse(stored, nullptr, false));
    }
    const std::string& form = old_form.empty() ? stored : old_form;
    if (uses[name_of(j)] > 1) {
      doc += RenameExportForm(form, name_of(j), fmt::format("{}#{}", name_of(j), replica.Global(j)));
    } else {
      doc += form;
    }
  }
  doc += "],\"weft\":1}";
  for (const auto& [id, a] : archived) {
    if (id < jobs_table.size() && jobs_table[id].compacted) chunk.mutable_attempts()->Add(a.attempts().begin(), a.attempts().end());
  }
  absl::flat_hash_map<uint32_t, TimeUs> first_start;
  for (const AttemptRecord& a : attempts) {
    *chunk.add_attempts() = AttemptRowOf(a);
    auto [it, inserted] = first_start.try_emplace(a.task.job.value(), a.start_us);
    if (!inserted) it->second = std::min(it->second, a.start_us);
  }
  for (uint32_t j = 0; j < jobs_table.size(); ++j) {
    const JobInfo& info = jobs_table[j];
    v1::JobRow* row = chunk.add_jobs();
    if (info.compacted) {
      *row = archive_of(j).row();
      continue;
    }
    row->set_job(j);
    row->set_state(JobStateName(info.state));
    const TimeUs arrival = info.arrival_us;
    row->set_arrival_us(arrival);
    row->set_start_us(first_start.contains(j) ? first_start[j] : arrival);
    row->set_end_us(info.end_us);
  }
  for (const PhaseRecord& p : phases_) {
    v1::PhaseRow* row = chunk.add_phases();
    row->set_job(p.task.job.value());
    row->set_stage(p.task.stage);
    row->set_task(p.task.index);
    row->set_attempt(p.attempt);
    row->set_phase(p.phase);
    row->set_resource(std::string(kResourceNames[p.resource]));
    row->set_machine(p.machine.value());
    row->set_start_us(p.start_us);
    row->set_end_us(p.end_us);
    row->set_held(p.held);
    row->set_completed(p.completed);
  }
  for (const SeriesValue& v : series_) {
    v1::SeriesRow* row = chunk.add_series();
    row->set_time_us(v.time_us);
    row->set_series(v.series);
    if (v.job.valid()) row->set_job(v.job.value() + 1);
    row->set_value(v.value);
  }
  return chunk;
}

v1::AttemptRow AttemptRowOf(const AttemptRecord& a) {
  v1::AttemptRow row;
  row.set_job(a.task.job.value());
  row.set_stage(a.task.stage);
  row.set_task(a.task.index);
  row.set_attempt(a.attempt);
  row.set_machine(a.machine.value());
  row.set_ready_us(a.ready_us);
  row.set_start_us(a.start_us);
  row.set_end_us(a.end_us);
  row.set_outcome(OutcomeName(a.outcome));
  row.set_locality(LocalityName(a.locality));
  *row.mutable_demand() = ToProto(a.demand);
  *row.mutable_usage() = ToProto(a.usage);
  return row;
}

std::vector<v1::ArchivedJob> ArchivedJobs(std::span<const uint32_t> ids, const JobTable& jobs,
                                          std::span<const AttemptRecord> attempts) {
  absl::flat_hash_map<uint32_t, size_t> index;
  std::vector<v1::ArchivedJob> archive(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const JobInfo& info = jobs[ids[i]];
    index[ids[i]] = i;
    v1::ArchivedJob& a = archive[i];
    a.set_id(ids[i]);
    a.set_name(info.name);
    a.set_spec_json(info.spec_json);
    a.set_export_form(true);
    a.set_tasks(info.tasks);
    a.set_done(info.done);
    a.set_submitted_s(UsToSeconds(info.submitted_us));
    v1::JobRow* row = a.mutable_row();
    row->set_job(ids[i]);
    row->set_state(JobStateName(info.state));
    row->set_arrival_us(info.arrival_us);
    row->set_start_us(info.arrival_us);
    row->set_end_us(info.end_us);
  }
  // The same rows Export makes from the journal: its start is the first attempt's.
  absl::flat_hash_set<uint32_t> started;
  for (const AttemptRecord& r : attempts) {
    v1::ArchivedJob& a = archive[index.at(r.task.job.value())];
    *a.add_attempts() = AttemptRowOf(r);
    v1::JobRow* row = a.mutable_row();
    row->set_start_us(started.insert(r.task.job.value()).second ? r.start_us : std::min(row->start_us(), r.start_us));
  }
  return archive;
}

}  // namespace weft::runtime
