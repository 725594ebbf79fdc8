#include "runtime/client/export_results.h"

#include <cstdio>
#include <fstream>

#include "core/status.h"
#include "metrics/results_writer.h"
#include "metrics/run_metrics.h"
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

}  // namespace

absl::Status WriteExportedResults(const std::vector<v1::ExportChunk>& chunks, const std::string& dir) {
  if (chunks.empty()) return absl::InternalError("the scheduler sent no export");
  ASSIGN_OR_RETURN(Workload workload, ParseWorkload(chunks[0].workload_json()));
  ASSIGN_OR_RETURN(std::unique_ptr<ResultsWriter> writer, ResultsWriter::Open(dir, workload));
  RunMetrics metrics(workload);
  TimeUs end = 0;
  uint64_t attempts = 0;
  for (const v1::ExportChunk& chunk : chunks) {
    for (const v1::AttemptRow& row : chunk.attempts()) {
      if (row.job() >= workload.jobs.size() || row.stage() >= workload.jobs[row.job()].stages.size() ||
          row.machine() >= workload.cluster.size()) {
        return absl::InternalError("the export names a job, stage or machine it does not describe");
      }
      ASSIGN_OR_RETURN(const Resources demand, FromProto(row.demand()));
      ASSIGN_OR_RETURN(const Resources usage, FromProto(row.usage()));
      const AttemptRecord r{TaskRef{JobId(row.job()), row.stage(), row.task()},
                            row.attempt(),
                            MachineId(row.machine()),
                            row.ready_us(),
                            row.start_us(),
                            row.end_us(),
                            OutcomeFrom(row.outcome()),
                            demand,
                            usage,
                            LocalityFrom(row.locality()),
                            false};
      writer->OnAttemptEnd(r);
      metrics.OnAttemptEnd(r);
      end = std::max(end, r.end_us);
      ++attempts;
    }
  }
  uint64_t ended = 0;
  for (const v1::JobRow& row : chunks[0].jobs()) {
    if (row.state() == "running" || row.job() >= workload.jobs.size()) continue;  // not ended: no row yet
    const JobRecord r{JobId(row.job()), row.arrival_us(), row.start_us(), row.end_us(), row.state() == "succeeded"};
    writer->OnJobEnd(r);
    metrics.OnJobEnd(r);
    end = std::max(end, r.end_us);
    ++ended;
  }
  writer->OnRunEnd(end);
  metrics.OnRunEnd(end);
  RETURN_IF_ERROR(writer->Finish());
  nlohmann::ordered_json j;
  j["policy"] = chunks[0].policy();
  j["seed"] = 0;
  j["model"] = "real";
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
