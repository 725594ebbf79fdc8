#include "runtime/scheduler/job_intake.h"

#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "fmt/format.h"
#include "model/names.h"
#include "trace/workload_reader.h"

namespace weft::runtime {

nlohmann::json ClusterJson(const Cluster& cluster) {
  nlohmann::json machines = nlohmann::json::array();
  for (const Machine& m : cluster.machines()) {
    nlohmann::json capacity;
    for (int r = 0; r < kNumResources; ++r) {
      capacity[std::string(kResourceNames[r])] = m.capacity.units(static_cast<Resource>(r));
    }
    machines.push_back({{"name", m.name}, {"capacity", capacity}});
  }
  return {{"machines", machines}};
}

namespace {

// Keeps only the locality names that are nodes of `live`: the journaled
// object then reads back (BuildJob) as RetargetJob made the typed job.
void RetargetLocality(nlohmann::json& job, const absl::flat_hash_set<std::string>& nodes) {
  if (!job.contains("stages")) return;
  for (nlohmann::json& stage : job["stages"]) {
    if (!stage.is_object() || !stage.contains("locality") || !stage["locality"].is_array()) continue;
    for (nlohmann::json& names : stage["locality"]) {
      if (!names.is_array()) continue;
      nlohmann::json kept = nlohmann::json::array();
      for (const nlohmann::json& n : names) {
        if (n.is_string() && nodes.contains(n.get<std::string>())) kept.push_back(n);
      }
      names = std::move(kept);
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<SubmittedJob>> ParseSubmission(std::string_view workload_text, const Cluster& live) {
  // The text is parsed once, into a document the jobs' texts are written
  // from, and read once, into the typed jobs.
  ASSIGN_OR_RETURN(nlohmann::json doc, ParseWorkloadJson(workload_text));
  // A jobs-only file (no cluster section: it would be ignored anyway) is
  // checked as if it had the live cluster's.
  if (doc.is_object() && !doc.empty() && !doc.contains("cluster")) doc["cluster"] = ClusterJson(live);
  // The submission as a whole, with its own cluster: every rule of the format.
  ASSIGN_OR_RETURN(Workload whole, ReadWorkloadJson(doc));
  // The reader applies the name rules too; checked here as well because a
  // command runs on the nodes with these names in it (model/names.h).
  RETURN_IF_ERROR(ValidateNames(whole));
  absl::flat_hash_set<std::string> nodes;
  for (const Machine& m : live.machines()) nodes.insert(m.name);
  nlohmann::json& objects = doc["jobs"];  // the reader checked it is a list of jobs
  std::vector<SubmittedJob> jobs(whole.jobs.size());
  // And against the live nodes: every task must fit one of them.
  for (size_t i = 0; i < whole.jobs.size(); ++i) {
    RETURN_IF_ERROR(RetargetJob(whole.jobs[i], objects[i], whole.cluster, live));
  }
  for (size_t i = 0; i < whole.jobs.size(); ++i) {
    SubmittedJob& out = jobs[i];
    nlohmann::json& object = objects[i];
    const UserId user = whole.jobs[i].user;
    out.live.user = user.valid() && user.value() < whole.users.size() ? whole.users[user.value()] : "";
    out.live.job = std::move(whole.jobs[i]);
    RetargetLocality(object, nodes);
    out.journal_json = object.dump();
    out.export_json = ExportForm(std::move(object));
  }
  return jobs;
}

absl::StatusOr<LiveJob> BuildJob(const nlohmann::json& job, const Cluster& live) {
  WorkloadBuilder builder;
  builder.SetCluster(live);
  ASSIGN_OR_RETURN(Job built, builder.BuildJob(job));
  LiveJob out{std::move(built), ""};
  const std::vector<std::string>& users = builder.workload().users;
  if (out.job.user.valid() && out.job.user.value() < users.size()) out.user = users[out.job.user.value()];
  return out;
}

std::string ExportForm(nlohmann::json job) {
  // Only a damaged journal or archive has anything else: kept as it is
  // (a discarded parse as null) rather than thrown on.
  if (!job.is_object()) return job.is_discarded() ? "null" : job.dump();
  job["arrival"] = 0;  // arrivals are in the job rows
  if (job.contains("stages") && job["stages"].is_array()) {
    for (nlohmann::json& stage : job["stages"]) {
      if (stage.is_object()) stage.erase("command");
    }
  }
  return job.dump();
}

std::string RenameExportForm(const std::string& export_json, const std::string& name, const std::string& new_name) {
  const std::string old_key = "\"name\":" + nlohmann::json(name).dump();
  const size_t at = export_json.find("\"name\":");
  if (at == std::string::npos || export_json.compare(at, old_key.size(), old_key) != 0) {
    // Not the form ExportForm writes: renamed the slow way.
    nlohmann::json job = nlohmann::json::parse(export_json, nullptr, false);
    if (!job.is_object()) return export_json;
    job["name"] = new_name;
    return job.dump();
  }
  std::string out = export_json.substr(0, at);
  out += "\"name\":";
  out += nlohmann::json(new_name).dump();
  out.append(export_json, at + old_key.size());
  return out;
}

}  // namespace weft::runtime
