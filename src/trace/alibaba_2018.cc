#include "trace/alibaba_2018.h"

#include "core/status.h"
#include "fmt/format.h"
#include "trace/alibaba_reader.h"

namespace weft {

absl::Status ReadAlibaba2018(const std::vector<std::string>& paths, TraceEmitter& out) {
  if (paths.size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("alibaba-2018: give one batch_task file ({} given; batch_instance is not read yet)", paths.size()));
  }
  AlibabaOptions options;
  options.machines = 4034;
  ASSIGN_OR_RETURN(AlibabaConversion converted, ConvertAlibabaFile(paths.front(), options));
  const AlibabaReport& r = converted.report;
  TraceReport& report = out.report();
  report.rows += r.rows;
  const std::array<std::string_view, AlibabaReport::kReasons> why = {
      "jobs with a task not Terminated",          "jobs with a malformed task name",
      "jobs with a missing or invalid number",    "jobs with two tasks of one number",
      "jobs with a parent that is no task of the job", "jobs with a dependency cycle",
      "jobs with a task larger than a machine"};
  for (int i = 0; i < AlibabaReport::kReasons; ++i) report.Skip(why[i], r.skipped[i], r.example[i]);
  report.Skip("jobs too small (--min-tasks, --min-stages)", r.too_small);
  nlohmann::json& doc = converted.document;
  RETURN_IF_ERROR(out.Cluster(std::move(doc["cluster"]["machines"])));
  for (nlohmann::json& job : doc["jobs"]) {
    const double arrival = job["arrival"].get<double>();
    job.erase("arrival");
    RETURN_IF_ERROR(out.Job(std::move(job), arrival));
  }
  return absl::OkStatus();
}

}  // namespace weft
