// _simulate and _compare: runs as dicts of numpy columns and summaries, for
// python/weft/_runs.py to make DataFrames of.
#include <optional>
#include <thread>

#include "core/status.h"
#include "pybind11/numpy.h"
#include "pybind11/stl.h"
#include "python/bindings.h"
#include "python/frames.h"
#include "python/python_policy.h"
#include "python/simulate.h"

namespace py = pybind11;

namespace weft::python {
namespace {

py::dict Summary(const sim::SimulationResult& r) {
  py::dict d;
  d["summary_json"] = r.summary_json.dump();
  d["status"] = r.status.ok() ? std::string() : std::string(StatusMessage(r.status));
  return d;
}

InputSpec Input(const std::string& workload, const std::string& workload_json, const std::string& trace, uint64_t seed) {
  return InputSpec{.workload_path = workload, .workload_json = workload_json, .trace = trace, .seed = seed};
}

py::dict SimulateToPython(const std::string& workload, const std::string& workload_json, const std::string& trace,
                          const RunSpec& spec) {
  RecordedRun run;
  {
    py::gil_scoped_release release;
    std::unique_ptr<RunInput> input = RunInput::Open(Input(workload, workload_json, trace, spec.seed));
    TakePythonPolicyError();
    run = SimulateRecorded(*input, spec);
    // A Python policy that raised stopped deciding: its error, not the stall it caused.
    if (const std::string error = TakePythonPolicyError(); !error.empty()) throw std::runtime_error(error);
  }
  py::dict d = Summary(run.result);
  d["tasks"] = TaskFrame(run.records->tasks());
  d["jobs"] = JobFrame(run.records->jobs());
  d["phases"] = PhaseFrame(run.records->phases());
  d["timeline"] = TimelineFrame(run.timeline);
  return d;
}

py::list CompareToPython(const std::string& workload, const std::string& workload_json, const std::string& trace,
                         const std::vector<RunSpec>& specs, unsigned threads, std::optional<uint64_t> input_seed) {
  std::vector<sim::SimulationResult> results;
  {
    py::gil_scoped_release release;
    // A trace is read once for every run, with the first run's seed (as `weft compare` does)
    // unless the caller runs a part of a larger comparison and names that one's.
    const uint64_t seed = input_seed ? *input_seed : specs.empty() ? 1 : specs.front().seed;
    std::unique_ptr<RunInput> input = RunInput::Open(Input(workload, workload_json, trace, seed));
    results = SimulateMany(*input, specs, threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads);
  }
  py::list out;
  for (const sim::SimulationResult& r : results) {
    py::dict d = Summary(r);
    // `weft compare --csv`'s numbers, from the same fields (cli/compare_command.cc).
    const RunSummary& s = r.summary;
    d["avg_jct"] = s.avg_jct;
    d["median_jct"] = s.median_jct;
    d["p95_jct"] = s.p95_jct;
    d["makespan"] = s.makespan;
    d["cpu_util"] = s.utilization[kCpu];
    d["mem_util"] = s.utilization[kMem];
    d["delay_mean"] = s.delay_mean;
    d["delay_p95"] = s.delay_p95;
    d["jobs_failed"] = s.jobs_failed;
    d["wall_seconds"] = r.wall_seconds;
    d["check_ok"] = r.status.ok();
    d["makespan_lb"] = s.makespan_lb;
    d["makespan_ratio"] = s.makespan_ratio;
    d["median_job_ratio"] = s.median_job_ratio;
    d["p95_job_ratio"] = s.p95_job_ratio;
    d["cpu_used"] = s.used[kCpu];
    d["mem_used"] = s.used[kMem];
    out.append(d);
  }
  return out;
}

}  // namespace

void BindSimulate(py::module_& m) {
  py::class_<RunSpec>(m, "RunSpec")
      .def(py::init<>())
      .def_readwrite("policy", &RunSpec::policy)
      .def_readwrite("params", &RunSpec::params)
      .def_readwrite("seed", &RunSpec::seed)
      .def_readwrite("model", &RunSpec::model)
      .def_readwrite("latency", &RunSpec::latency_s)
      .def_readwrite("max_attempts", &RunSpec::max_attempts)
      .def_readwrite("task_failures", &RunSpec::task_failures)
      .def_readwrite("check", &RunSpec::check)
      .def_readwrite("timeline_step", &RunSpec::timeline_step_s)
      .def_readwrite("profile_path", &RunSpec::profile_path)
      .def_readwrite("profile_json", &RunSpec::profile_json);
  m.def("_simulate", &SimulateToPython, py::arg("workload"), py::arg("workload_json"), py::arg("trace"), py::arg("spec"));
  m.def("_compare", &CompareToPython, py::arg("workload"), py::arg("workload_json"), py::arg("trace"), py::arg("specs"),
        py::arg("threads"), py::arg("input_seed") = py::none());
}

}  // namespace weft::python
