#include "python/simulate.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <thread>

#include "python/errors.h"
#include "trace/profile_reader.h"

namespace weft::python {

sim::SimulationRequest Request(const RunSpec& spec) {
  if (spec.model != "fixed" && spec.model != "contention") {
    throw pybind11::value_error("model: \"" + spec.model + "\" is not one of fixed, contention");
  }
  if (!(spec.latency_s >= 0 && spec.latency_s <= 3600)) throw pybind11::value_error("latency: must be in [0, 3600] seconds");
  if (spec.max_attempts < 1 || spec.max_attempts > 255) throw pybind11::value_error("max_attempts: must be in [1, 255]");
  if (!(spec.task_failures >= 0 && spec.task_failures <= 0.99)) throw pybind11::value_error("task_failures: must be in [0, 0.99]");
  if (!(spec.timeline_step_s >= 1e-6 && spec.timeline_step_s <= 86400)) {
    throw pybind11::value_error("timeline_step: must be in [1e-6, 86400] seconds");
  }
  sim::SimOptions o;
  o.seed = spec.seed;
  o.model = spec.model == "contention" ? sim::ExecutionModel::kContention : sim::ExecutionModel::kFixed;
  o.latency_us = std::llround(spec.latency_s * 1e6);
  o.max_attempts = spec.max_attempts;
  o.task_failure_prob = spec.task_failures;
  if (!spec.profile_path.empty() || !spec.profile_json.empty()) {
    absl::StatusOr<MachineProfile> profile = spec.profile_path.empty()
                                                 ? ParseMachineProfile(spec.profile_json, "profile")
                                                 : ReadMachineProfile(spec.profile_path);
    if (!profile.ok()) throw pybind11::value_error("profile: " + std::string(profile.status().message()));
    o.profile = *std::move(profile);
  }
  return sim::SimulationRequest{.policy = spec.policy,
                                .params = spec.params,
                                .options = o,
                                .timeline_step_us = std::max<TimeUs>(1, std::llround(spec.timeline_step_s * 1e6)),
                                .check = spec.check};
}

RecordedRun SimulateRecorded(const RunInput& input, const RunSpec& spec) {
  sim::SimulationRequest request = Request(spec);
  std::unique_ptr<JobSource> source = input.Source();
  RecordedRun run;
  run.records = std::make_unique<RunRecords>(source->workload());
  // The timeline starts at the first arrival, as timeline.csv does.
  const std::optional<JobId> first = source->Peek();
  const TimeUs origin = first ? source->workload().jobs[first->value()].arrival_us : 0;
  std::unique_ptr<TimelineWriter> timeline =
      TimelineWriter::InMemory(source->workload(), request.timeline_step_us, origin);
  request.observers = {run.records.get(), timeline.get()};
  absl::StatusOr<sim::SimulationResult> result = sim::Simulate(*source, request);
  ThrowIfError(result.status());
  run.result = std::move(*result);
  run.records->Finish();
  run.timeline = timeline->Rows();
  return run;
}

std::vector<sim::SimulationResult> SimulateMany(const RunInput& input, const std::vector<RunSpec>& specs,
                                                unsigned threads) {
  std::vector<sim::SimulationRequest> requests;
  for (const RunSpec& spec : specs) requests.push_back(Request(spec));
  std::vector<absl::StatusOr<sim::SimulationResult>> results(specs.size(), absl::UnknownError("not run"));
  std::vector<std::exception_ptr> errors(specs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < specs.size(); i = next++) {
      try {
        std::unique_ptr<JobSource> source = input.Source();
        results[i] = sim::Simulate(*source, requests[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(specs.size())));
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  std::vector<sim::SimulationResult> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    ThrowIfError(results[i].status());
    out.push_back(std::move(*results[i]));
  }
  return out;
}

}  // namespace weft::python
