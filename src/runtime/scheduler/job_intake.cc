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

// Keeps only the locality names that are nodes of `live`.
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

absl::StatusOr<Workload> ParseAgainst(const nlohmann::json& jobs, const Cluster& live) {
  const nlohmann::json doc = {{"weft", 1}, {"cluster", ClusterJson(live)}, {"jobs", jobs}};
  return ParseWorkload(doc.dump());
}

}  // namespace

absl::StatusOr<std::vector<nlohmann::json>> SplitSubmission(std::string_view workload_text, const Cluster& live) {
  // The submission as a whole, with its own cluster: every rule of the format.
  nlohmann::json doc = nlohmann::json::parse(workload_text, nullptr, /*allow_exceptions=*/false);
  // A jobs-only file (no cluster section: it would be ignored anyway) is
  // checked as if it had the live cluster's, spliced in as text so that the
  // reader still sees the file's own keys (and their duplicates).
  std::string spliced;
  if (doc.is_object() && !doc.empty() && !doc.contains("cluster")) {
    const size_t brace = workload_text.find('{');
    spliced = fmt::format("{}\"cluster\": {},{}", workload_text.substr(0, brace + 1), ClusterJson(live).dump(),
                          workload_text.substr(brace + 1));
  }
  ASSIGN_OR_RETURN(const Workload whole, ParseWorkload(spliced.empty() ? workload_text : spliced));
  // The reader applies the name rules too; checked here as well because a
  // command runs on the nodes with these names in it (model/names.h).
  RETURN_IF_ERROR(ValidateNames(whole));
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array()) {
    return absl::InvalidArgumentError("the workload has no jobs list");
  }
  absl::flat_hash_set<std::string> nodes;
  for (const Machine& m : live.machines()) nodes.insert(m.name);
  std::vector<nlohmann::json> jobs;
  for (nlohmann::json& job : doc["jobs"]) {
    RetargetLocality(job, nodes);
    jobs.push_back(std::move(job));
  }
  // And against the live nodes: every task must fit one of them.
  RETURN_IF_ERROR(ParseAgainst(nlohmann::json(jobs), live).status());
  return jobs;
}

absl::StatusOr<LiveJob> BuildJob(const nlohmann::json& job, const Cluster& live) {
  ASSIGN_OR_RETURN(Workload w, ParseAgainst(nlohmann::json::array({job}), live));
  if (w.jobs.size() != 1) return absl::InvalidArgumentError("expected exactly one job");
  LiveJob out{std::move(w.jobs[0]), ""};
  if (out.job.user.valid() && out.job.user.value() < w.users.size()) out.user = w.users[out.job.user.value()];
  return out;
}

}  // namespace weft::runtime
