#include "sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <unistd.h>

#include "core/status.h"
#include "fmt/format.h"
#include "metrics/event_log.h"
#include "metrics/flows_writer.h"
#include "metrics/phases_writer.h"
#include "metrics/results_writer.h"
#include "metrics/schedule_checker.h"
#include "metrics/series_writer.h"
#include "metrics/timeline_writer.h"
#include "policy/registry.h"

namespace weft::sim {
namespace {

// ProgressBar redraws one stderr line at most every quarter second, and only
// once the run has lasted a second (short runs stay silent).
class ProgressBar {
 public:
  explicit ProgressBar(std::chrono::steady_clock::time_point start) : start_(start) {}
  void Update(TimeUs now, uint64_t done, uint64_t total) {
    const auto wall = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(wall - start_).count();
    if (elapsed < 1.0 || std::chrono::duration<double>(wall - last_).count() < 0.25) return;
    last_ = wall;
    drawn_ = true;
    std::fprintf(stderr, "\r  sim %s s | tasks %llu/%llu (%.0f%%) | %.2fM tasks/s   ", FormatSeconds(now).c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
                 static_cast<double>(done) / elapsed / 1e6);
  }
  ~ProgressBar() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
};

}  // namespace

absl::StatusOr<SimulationResult> Simulate(const Workload& workload, const SimulationRequest& request) {
  WorkloadSource source(workload);
  return Simulate(source, request);
}

absl::StatusOr<SimulationResult> Simulate(JobSource& source, const SimulationRequest& request) {
  ASSIGN_OR_RETURN(policy::BuiltPolicy built, policy::BuildPolicy(request.policy, request.params));
  const Workload& workload = source.workload();
  SimOptions options = request.options;
  options.knowledge = built.knowledge();
  // Before any output exists: bad input writes nothing.
  RETURN_IF_ERROR(ValidateSimOptions(workload, *built.policy, options));
  // The first job, before any output: a source that fails at once (a trace
  // with a malformed first file, or no job) writes nothing either.
  const std::optional<JobId> first = source.Peek();
  RETURN_IF_ERROR(source.status());
  const TimeUs first_arrival_us = first ? workload.jobs[first->value()].arrival_us : 0;

  std::unique_ptr<ResultsWriter> writer;
  if (!request.out_dir.empty()) {
    ASSIGN_OR_RETURN(writer, ResultsWriter::Open(request.out_dir, workload, request.compress));
  }
  // phases.csv: only for workloads with phases (docs/results.md); whether
  // a streamed one has some is known at its end, so the file is opened
  // anyway and only kept then.
  std::unique_ptr<PhasesWriter> phases;
  if (writer) {
    ASSIGN_OR_RETURN(phases, PhasesWriter::Open(request.out_dir, workload, request.compress));
  }
  // series.csv: only when the policy records something (docs/results.md).
  std::unique_ptr<SeriesWriter> series;
  if (writer) series = std::make_unique<SeriesWriter>(request.out_dir, workload, request.compress);
  // flows.csv: only when bytes moved between machines (docs/results.md).
  std::unique_ptr<FlowsWriter> flows;
  if (writer) flows = std::make_unique<FlowsWriter>(request.out_dir, workload, request.compress);
  std::unique_ptr<TimelineWriter> timeline;
  if (!request.out_dir.empty()) {
    ASSIGN_OR_RETURN(timeline, TimelineWriter::Open(request.out_dir, workload, request.timeline_step_us, request.compress,
                                                      first_arrival_us));
  }
  std::unique_ptr<EventLog> events;
  if (!request.events_path.empty()) {
    ASSIGN_OR_RETURN(events, EventLog::Open(request.events_path, workload));
  }

  SimulationResult result;
  result.policy = request.policy;
  result.overbooking = built.policy->overbooking();
  Engine engine(source, *built.policy, options);
  RunMetrics metrics(workload);
  engine.AddObserver(&metrics);
  std::unique_ptr<ScheduleChecker> checker;
  if (request.check) {
    checker = std::make_unique<ScheduleChecker>(workload, built.policy->overbooked());
    engine.AddObserver(checker.get());
    // The checker's thread reads jobs the source may move or free.
    source.SetSync([c = checker.get()] { c->Flush(); });
  }
  if (writer) engine.AddObserver(writer.get());
  if (phases) engine.AddObserver(phases.get());
  if (series) engine.AddObserver(series.get());
  if (flows) engine.AddObserver(flows.get());
  if (timeline) engine.AddObserver(timeline.get());
  if (events) engine.AddObserver(events.get());
  for (RunObserver* observer : request.observers) engine.AddObserver(observer);

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<ProgressBar> bar;
  if (request.progress) {
    bar = std::make_unique<ProgressBar>(start);
    engine.SetProgress([&bar](TimeUs now, uint64_t done, uint64_t total) { bar->Update(now, done, total); }, 1 << 16);
  }
  result.status = engine.Run();
  source.SetSync({});
  bar.reset();
  // Bad input found while the run went: no results, as when found before.
  RETURN_IF_ERROR(source.status());
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.stats = engine.stats();
  result.summary = metrics.summary();
  if (checker) {
    result.checked = true;
    result.violation_count = checker->violation_count();
    result.violations = checker->violations();
    if (result.status.ok() && !checker->ok()) {
      result.status = absl::InternalError(
          fmt::format("the schedule failed the check ({} violations), first: {}", checker->violation_count(),
                      checker->violations().empty() ? "?" : checker->violations().front()));
    }
  }

  nlohmann::ordered_json j;
  j["policy"] = request.policy;
  j["params"] = built.params.values();
  j["seed"] = options.seed;
  j["model"] = ExecutionModelName(options.model);
  j["latency"] = UsToSeconds(options.latency_us);
  // Additive, only with a profile (so runs without one write what they did).
  if (const MachineProfile& p = options.profile; p.given()) {
    j["profile"] = {{"name", p.name},
                    {"launch_s", p.launch_s},
                    {"scheduler", {{"decision_s", p.decision_s}, {"message_s", p.message_s}}},
                    {"containers", {{"heartbeat_s", p.heartbeat_s}}},
                    {"cpu", {{"oversubscription_loss", p.cpu_oversubscription_loss}}},
                    {"disk", {{"stream_loss", p.disk_stream_loss}}},
                    {"memory", {{"paging_slowdown", p.paging_slowdown}}}};
  }
  j["overbooking"] = result.overbooking;
  // Additive: which resources the policy may overbook.
  nlohmann::json overbooked = nlohmann::json::array();
  for (int k = 0; k < kNumResources; ++k) {
    if (InMask(built.policy->overbooked(), static_cast<Resource>(k))) overbooked.push_back(kResourceNames[k]);
  }
  j["overbooked_resources"] = overbooked;
  j["knowledge"] = std::string(policy::KnowledgeName(built.policy->knowledge()));
  j.update(result.summary.ToJson());
  j["events"] = result.stats.events;
  j["messages"] = result.stats.messages;
  j["refused_decisions"] = result.stats.refused_decisions;
  j["wall_seconds"] = result.wall_seconds;
  j["check"] = {{"ran", result.checked}, {"ok", result.checked && result.violation_count == 0},
                {"violations", result.violation_count}, {"first", result.violations}};
  j["status"] = result.status.ok() ? "ok" : std::string(StatusMessage(result.status));
  result.summary_json = j;

  if (writer) {
    RETURN_IF_ERROR(writer->Finish());
    if (source.HasPhases()) RETURN_IF_ERROR(phases->Finish());
    RETURN_IF_ERROR(series->Finish());
    RETURN_IF_ERROR(flows->Finish());
    RETURN_IF_ERROR(timeline->Finish());
    std::ofstream summary(request.out_dir + "/summary.json.tmp");
    summary << result.summary_json.dump(2) << "\n";
    summary.close();
    if (!summary) return absl::InternalError("writing summary.json failed");
    std::rename((request.out_dir + "/summary.json.tmp").c_str(), (request.out_dir + "/summary.json").c_str());
  }
  if (events) RETURN_IF_ERROR(events->Finish());
  return result;
}

}  // namespace weft::sim
